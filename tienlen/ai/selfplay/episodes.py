"""Self-play episodes for Deep Monte-Carlo training: whole games played by the engine.

An episode is one deal (:meth:`tienlen.Game.deal`) played to its end by
:func:`tienlen.ai.arena.play_out` (the engine decides what is legal, when a
round ends, out-of-turn chops and every payment), with one player per seat:
*learner* seats play the network being trained (with a small ``epsilon`` of
random options, so that it also sees what its other options return), the
other seats a member of the *pool* (:data:`POOL_KINDS`): a past snapshot of
the network, today's ``normal`` (the shipped scorer), the hand-written
heuristic, ``easy`` and ``greedy``.

Every decision a learner seat makes with a real choice (on its turn, at
least two options, none that goes out at once: the cases where ``normal+``
asks its model) is recorded as the feature row of the option it took
(:class:`tienlen.ai.features.Decision`, the scorer's own features: only the
seat's knowledge) and, for the critic, a *value input*: the decision's
context columns, the seat's own hand per rank and, with ``oracle``, the
other seats' hands per rank (never used to play: see
:mod:`tienlen.ai.selfplay.dmc`).  The target of every decision of a seat is
the seat's real return, ``game.settlement()[seat]`` in bet units (places,
chops, cóng, thối: whatever the rule set pays), plus ``first_bonus`` when it
finished first.

Everything is drawn from generators seeded by the run's seed and the
episode's number, so an episode is the same whichever chunk of a run plays it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from tienlen import RULESETS, Game
from tienlen.ai.arena import Policy, play_out
from tienlen.ai.easy import EASY, GREEDY, lowest_policy
from tienlen.ai.features import FEATURES, OPTION_NAMES, Decision
from tienlen.ai.model import Model
from tienlen.ai.normal import normal_move
from tienlen.ai.plus import plus_move
from tienlen.ai.situation import Situation

__all__ = ["POOL_KINDS", "VALUE_INPUTS", "ORACLE_INPUTS", "Batch", "deal_number", "draw_seats",
           "value_input", "play_episode", "play_episodes"]

POOL_KINDS = ("snapshot", "normal", "heuristic", "easy", "greedy")
"""Who may sit in a seat that is not the learner's: a past snapshot of the
network, today's ``normal`` (the shipped scorer), the heuristic, ``easy``, ``greedy``."""
CONTEXT_START = len(OPTION_NAMES)
"""The context columns of a feature row (the same for every option of a decision)."""
HAND_INPUTS = 13
ORACLE_INPUTS = 3 * 13
"""The other seats' hands per rank (in turn order after the seat; zeros for a seat that is out)."""
VALUE_INPUTS = FEATURES - CONTEXT_START + HAND_INPUTS
"""Inputs of the critic without the oracle (with it: ``VALUE_INPUTS + ORACLE_INPUTS``)."""
DEAL_BASE = 300_000_000
"""Training deals are ``DEAL_BASE + seed * 10**7 + episode``: far from the
benchmark's (``bench_ai.py --seed S`` plays ``S * 10**6 + ...``) and the labels' (50-95 million)."""


def deal_number(seed: int, episode: int) -> int:
    return DEAL_BASE + seed * 10_000_000 + episode


def _per_rank(mask: int) -> list[float]:
    return [((mask >> (4 * rank)) & 0xF).bit_count() / 4.0 for rank in range(13)]


def value_input(row: Sequence[float], game: Game, seat: int, oracle: bool) -> list[float]:
    """The critic's inputs at a decision: the row's context, the seat's hand per
    rank and (``oracle``) every other seat's hand per rank, read from the true game."""
    inputs = list(row[CONTEXT_START:]) + _per_rank(game.hand_mask(seat))
    if oracle:
        for step in range(1, 4):
            other = (seat + step) % game.players
            inputs += _per_rank(game.hand_mask(other)) if step < game.players else [0.0] * 13
    return inputs


@dataclass
class Batch:
    """Recorded learner decisions of some episodes, one row each."""

    rows: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    episodes: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    outcomes: list[tuple[int, str, float, bool]] = field(default_factory=list)
    """(episode, what the other seats were, learner's settlement, first) per learner seat."""

    def arrays(self, oracle: bool) -> dict[str, np.ndarray]:
        width = VALUE_INPUTS + (ORACLE_INPUTS if oracle else 0)
        return {
            "rows": np.stack(self.rows).astype(np.float64) if self.rows else np.zeros((0, FEATURES)),
            "values": np.stack(self.values).astype(np.float64) if self.values else np.zeros((0, width)),
            "returns": np.asarray(self.returns, dtype=np.float64),
            "episodes": np.asarray(self.episodes, dtype=np.int64),
            "seats": np.asarray(self.seats, dtype=np.int64),
        }


def draw_seats(rng: random.Random, players: int, learner_share: float, pool: Sequence[tuple[str, float]],
               snapshots: int) -> list[str]:
    """Each seat is the learner with chance ``learner_share``, else a pool kind
    drawn by weight ("snapshot:K" names one of ``snapshots`` past networks);
    at least one seat is the learner."""
    names = [name for name, _ in pool]
    weights = [weight for _, weight in pool]
    seats = []
    for _ in range(players):
        if rng.random() < learner_share:
            seats.append("learner")
            continue
        kind = rng.choices(names, weights)[0]
        if kind == "snapshot":
            kind = f"snapshot:{rng.randrange(snapshots)}" if snapshots else "normal"
        seats.append(kind)
    if "learner" not in seats:
        seats[rng.randrange(players)] = "learner"
    return seats


def _learner(model: Model, game: Game, rng: random.Random, epsilon: float, oracle: bool,
             record: Callable[[int, list[float], list[float]], None]) -> Policy:
    def move(situation: Situation):
        legal = situation.legal
        if not legal:
            return None
        if not situation.on_turn or not model.covers(situation.rules.name, situation.players):
            return plus_move(situation, model)  # out of turn: as normal+ does (the heuristic)
        if len(legal) == 1 and situation.top is None:
            return legal[0]
        decision = Decision(situation)
        if decision.finishing is not None or len(decision.moves) == 1:
            return decision.moves[decision.finishing or 0]
        rows = decision.compute_rows()
        if rng.random() < epsilon:
            index = rng.randrange(len(rows))
        else:
            index = int(np.argmax(model.predict(rows)))
        record(situation.seat, rows[index], value_input(rows[index], game, situation.seat, oracle))
        return decision.moves[index]

    return move


def _pool_policy(kind: str, normal: Model, snapshots: Sequence[Model], rng: random.Random) -> Policy:
    if kind == "normal":
        return lambda situation: plus_move(situation, normal)
    if kind.startswith("snapshot:"):
        snapshot = snapshots[int(kind.partition(":")[2])]
        return lambda situation: plus_move(situation, snapshot)
    if kind == "heuristic":
        return normal_move
    if kind in ("easy", "greedy"):
        return lowest_policy(rng, EASY if kind == "easy" else GREEDY)
    raise ValueError(f"unknown pool kind {kind!r}")


def play_episode(preset: str, seed: int, episode: int, model: Model, normal: Model, snapshots: Sequence[Model],
                 batch: Batch, *, learner_share: float = 0.5, pool: Sequence[tuple[str, float]],
                 epsilon: float = 0.02, oracle: bool = True, first_bonus: float = 0.0, players: int = 4) -> Game:
    """Play one episode and add its learner decisions to ``batch``; returns the finished game."""
    game = Game.deal(RULESETS[preset], players, deal_number(seed, episode))
    rng = random.Random(f"selfplay:{seed}:{episode}")
    seats = draw_seats(rng, players, learner_share, pool, len(snapshots))
    pending: list[tuple[int, list[float], list[float]]] = []
    record = lambda seat, row, values: pending.append((seat, row, values))
    policies = []
    for seat, kind in enumerate(seats):
        own = random.Random(f"selfplay:{seed}:{episode}:{seat}")
        if kind == "learner":
            policies.append(_learner(model, game, own, epsilon, oracle, record))
        else:
            policies.append(_pool_policy(kind, normal, snapshots, own))
    play_out(game, policies)
    settlement = game.settlement()
    first = game.places[0]
    returns = {seat: settlement[seat] + (first_bonus if seat == first else 0.0) for seat in range(players)}
    for seat, row, values in pending:
        batch.rows.append(np.asarray(row, dtype=np.float32))
        batch.values.append(np.asarray(values, dtype=np.float32))
        batch.returns.append(float(returns[seat]))
        batch.episodes.append(episode)
        batch.seats.append(seat)
    for seat, kind in enumerate(seats):
        if kind == "learner":
            others = ",".join(sorted(other.partition(":")[0] for index, other in enumerate(seats) if index != seat))
            batch.outcomes.append((episode, others, float(settlement[seat]), seat == first))
    return game


def play_episodes(preset: str, seed: int, episodes: range, model: Model, normal: Model,
                  snapshots: Sequence[Model], **options) -> Batch:
    """Episodes ``episodes`` (numbers) of run ``seed``, in order, into one batch."""
    batch = Batch()
    for episode in episodes:
        play_episode(preset, seed, episode, model, normal, snapshots, batch, **options)
    return batch

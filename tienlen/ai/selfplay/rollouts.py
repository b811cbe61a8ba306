"""Policy iteration on paired rollout labels (issue 44, second step).

Deep Monte-Carlo (:mod:`.dmc`) fits the scorer to whole-game returns, which
the deal dominates.  Here the target is the one ``normal`` was built on
(:mod:`tienlen.ai.labels`): at a few decisions of a game, *every* option is
played in a copy of the true deal and the game finished by the same seats'
policies, so the options of one decision are compared on the same cards and
the same continuation (a paired comparison; against deterministic players
the difference is exact for that deal).  What is new is who plays:

* the **hero** seat (one a deal, drawn from the deal's generator) plays the
  scorer being improved, in the labelled decision's continuation too;
* the **other** seats play a fixed scorer (today's ``normal`` by default:
  the table the goal is measured at) or the hero's own scorer (self-play).

Fitting a scorer to such labels (``python -m tienlen.ai.train fit``) is one
step of policy iteration: its argmax improves on the policy that played the
continuations.  The next round labels with the improved scorer as the hero.

The labels are written in :mod:`tienlen.ai.train`'s format (``rows``,
``values``, ``groups``, ``normal_choice``, ``firsts`` and a ``meta`` header
naming the seeds actually done), so ``train fit``, ``train combine`` and
``train bank`` read them as they are::

    python -m tienlen.ai.selfplay label --hero W1.npz --seeds 72000000:72200000 --hours 0.5 --out r2.npz
"""

from __future__ import annotations

import json
import random
import time
from typing import Callable

import numpy as np

from tienlen import RULESETS, Game
from tienlen.ai.arena import MAX_ACTIONS, Policy, apply_move, chop_out_of_turn, play_out
from tienlen.ai.features import Decision
from tienlen.ai.labels import DECISIONS_PER_GAME, LabelSet
from tienlen.ai.model import Model
from tienlen.ai.plus import plus_move
from tienlen.ai.situation import Situation

__all__ = ["scorer_policy", "hero_seat", "label_game", "label_deals", "label_arrays"]

LABEL_SHARE = 10.0
"""A hero plays about this many decisions with a real choice a game: a
decision is labelled with chance ``per_game / LABEL_SHARE``."""


def scorer_policy(model: Model) -> Policy:
    """``normal+`` with ``model`` (deterministic)."""
    return lambda situation: plus_move(situation, model)


def hero_seat(deal: int, players: int = 4) -> int:
    """The hero's seat at deal ``deal`` (from the deal's own generator)."""
    return random.Random(f"rollouts:{deal}").randrange(players)


def _label(game: Game, situation: Situation, policies: list[Policy], labels: LabelSet) -> None:
    """Every option of the seat's decision played out in a copy of the true game."""
    decision = Decision(situation)
    if decision.finishing is not None or len(decision.moves) < 2:
        return
    values, firsts = [], []
    for move in decision.moves:
        world = game.copy()
        apply_move(world, situation.seat, move)
        play_out(world, policies)
        values.append(float(world.settlement()[situation.seat]))
        firsts.append(world.places[0] == situation.seat)
    labels.add(decision, values, firsts)


def label_game(preset: str, deal: int, hero: Model, others: Model, labels: LabelSet,
               per_game: int = DECISIONS_PER_GAME, players: int = 4) -> Game:
    """Play deal ``deal`` (the hero's scorer in one seat, ``others`` in the rest)
    and label about ``per_game`` of the hero's decisions; returns the finished game."""
    game = Game.deal(RULESETS[preset], players, deal)
    seat_of_hero = hero_seat(deal, players)
    policies = [scorer_policy(hero if seat == seat_of_hero else others) for seat in range(players)]
    chooser = random.Random(f"rollouts:{preset}:{deal}:chooser")
    share = per_game / LABEL_SHARE
    for _ in range(MAX_ACTIONS):
        if game.finished:
            return game
        if game.rules.four_pairs_out_of_turn and chop_out_of_turn(game, policies):
            continue
        seat = game.turn
        if game.top is not None and not game.legal_plays(seat):
            game.pass_turn(seat)
            continue
        situation = Situation.from_game(game, seat)
        if seat == seat_of_hero and chooser.random() < share:
            _label(game, situation, policies, labels)
        apply_move(game, seat, policies[seat](situation))
    raise RuntimeError(f"deal {deal} did not finish")


def label_deals(preset: str, deals: range, hero: Model, others: Model, *, per_game: int = DECISIONS_PER_GAME,
                stop: Callable[[], bool] = lambda: False) -> tuple[LabelSet, int]:
    """Label the deals in order until ``stop()``; returns the labels and how many deals were done."""
    labels = LabelSet()
    done = 0
    for deal in deals:
        if stop():
            break
        label_game(preset, deal, hero, others, labels, per_game)
        done += 1
    return labels, done


def label_arrays(preset: str, deals: range, hero: Model, others: Model, *, per_game: int = DECISIONS_PER_GAME,
                 hours: float = 0.0, names: dict | None = None) -> dict[str, np.ndarray]:
    """Labels of ``deals`` (stopping after ``hours`` when given) as arrays for
    ``np.savez``, with a ``meta`` header that names the seeds actually done."""
    started = time.monotonic()
    deadline = started + 3600 * hours if hours else None
    labels, done = label_deals(preset, deals, hero, others, per_game=per_game,
                               stop=lambda: deadline is not None and time.monotonic() >= deadline)
    arrays = labels.arrays()
    meta = {"preset": preset, "seeds": f"{deals.start}:{deals.start + done}", "per_game": per_game,
            "policy": "rollouts", **(names or {}), "decisions": labels.decisions, "options": len(labels.values),
            "seconds": round(time.monotonic() - started, 1)}
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    return arrays

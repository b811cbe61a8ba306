"""Training labels for the learned scorer: every option played out in the true deal.

A game is dealt from a seed and played by a *labelling policy* (``normal``,
or ``normal+`` with given weights in later rounds): in every seat, or in one
seat against opponents drawn from a mixture of types (``normal``, ``easy``,
``greedy``, ``normal+``), so that the scorer does not learn to exploit
``normal`` alone.  At a few of its decisions (chosen by a generator seeded
from the deal), every option of that decision
(:func:`tienlen.ai.features.options`) is played in a copy of the true game,
which is then finished by the same seats' policies (random ones with the
same seeds for every option), and the seat's settlement is recorded, with
whether the seat finished first (so that a fit may weigh first place apart
from the money: ``train fit --first-bonus``).  Comparing the options of one decision on
the same deal and the same continuation is a paired comparison: the label
of an option is its settlement minus the mean over that decision's options.

The features of a decision come only from the deciding seat's knowledge
(:class:`~tienlen.ai.situation.Situation`); only the labels use the deal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from tienlen import RULESETS, Game
from tienlen.ai.arena import MAX_ACTIONS, Policy, apply_move, chop_out_of_turn, play_out
from tienlen.ai.easy import EASY, GREEDY, lowest_policy
from tienlen.ai.features import FEATURES, Decision
from tienlen.ai.model import Model
from tienlen.ai.normal import normal_move
from tienlen.ai.plus import plus_move
from tienlen.ai.situation import Situation

__all__ = ["Policy", "policy_of", "seat_policies", "finish", "LabelSet", "label_deal", "label_deals",
           "parse_mixture", "DECISIONS_PER_GAME"]

DECISIONS_PER_GAME = 4
"""About this many decisions of a game are labelled (games are ~40 decisions long)."""


def policy_of(model: Model | None) -> Policy:
    """``normal`` when no model is given, else ``normal+`` with that model."""
    if model is None:
        return normal_move
    return lambda situation: plus_move(situation, model)


def seat_policies(types: list[str], model: Model | None, seed: str) -> list[Policy]:
    """One policy per seat: "policy" (the labelling policy: ``normal+`` with
    ``model``, else ``normal``), "normal", "plus", "easy" or "greedy".  The
    random ones draw from generators seeded by ``seed`` and the seat, so that
    every option of a decision meets the same luck (a paired comparison)."""
    policies = []
    for seat, kind in enumerate(types):
        if kind == "policy":
            policies.append(policy_of(model))
        elif kind == "plus" and model is not None:
            policies.append(policy_of(model))
        elif kind in ("normal", "plus"):
            policies.append(normal_move)
        else:
            policies.append(lowest_policy(random.Random(f"{seed}:{seat}"), EASY if kind == "easy" else GREEDY))
    return policies


def parse_mixture(text: str | None) -> list[tuple[str, float]] | None:
    """"normal:2,easy:1,greedy:1" -> weights of opponent types (None: every seat
    plays the labelling policy and every seat's decisions are labelled)."""
    if not text:
        return None
    mixture = []
    for part in text.split(","):
        name, _, weight = part.partition(":")
        mixture.append((name.strip(), float(weight or 1)))
    return mixture


def finish(game: Game, policies: list[Policy], max_actions: int = MAX_ACTIONS) -> Game:
    """Play ``game`` to its end, each seat by its policy (seeing only its own
    hand); out-of-turn chops are offered as the table offers them."""
    return play_out(game, policies, max_actions)


@dataclass
class LabelSet:
    """Labelled decisions, one row per option (``group`` numbers the decisions)."""

    rows: list[np.ndarray] = field(default_factory=list)
    """One float32 array per decision (Python floats would take ten times the memory)."""
    values: list[float] = field(default_factory=list)
    groups: list[int] = field(default_factory=list)
    normal_choice: list[bool] = field(default_factory=list)
    firsts: list[bool] = field(default_factory=list)
    """Whether the deciding seat finished first after each option."""
    decisions: int = 0

    def add(self, decision: Decision, values: list[float], firsts: list[bool]) -> None:
        self.rows.append(np.asarray(decision.compute_rows(), dtype=np.float32))
        for index, (value, first) in enumerate(zip(values, firsts, strict=True)):
            self.values.append(value)
            self.firsts.append(first)
            self.groups.append(self.decisions)
            self.normal_choice.append(index == decision.heuristic_choice)
        self.decisions += 1

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "rows": np.concatenate(self.rows) if self.rows else np.zeros((0, FEATURES), np.float32),
            "values": np.asarray(self.values, dtype=np.float32),
            "groups": np.asarray(self.groups, dtype=np.int64),
            "normal_choice": np.asarray(self.normal_choice, dtype=bool),
            "firsts": np.asarray(self.firsts, dtype=bool),
        }


def label_deal(preset: str, deal: int, model: Model | None, labels: LabelSet,
               per_game: int = DECISIONS_PER_GAME, opponents: list[tuple[str, float]] | None = None,
               players: int = 4) -> None:
    """Play deal ``deal`` at a table of ``players`` and label about ``per_game`` of its decisions.

    Without ``opponents`` every seat plays the labelling policy and any seat's
    decision may be labelled; with a mixture, one seat (drawn from the deal's
    generator) plays the labelling policy and is the only one labelled, and
    each other seat plays a type drawn from the mixture.
    """
    game = Game.deal(RULESETS[preset], players, deal)
    # 4-player seeds keep their old name, so earlier label files can be regenerated exactly
    chooser = random.Random(f"labels:{preset}:{deal}" if players == 4 else f"labels:{preset}:{players}:{deal}")
    if opponents is None:
        types, labelled, share = ["policy"] * players, set(range(players)), per_game / 40.0
    else:
        names, weights = zip(*opponents)
        types = chooser.choices(names, weights, k=players)
        hero = chooser.randrange(players)
        types[hero] = "policy"
        labelled, share = {hero}, per_game / 10.0
    policies = seat_policies(types, model, f"{deal}:game")
    for step in range(MAX_ACTIONS):
        if game.finished:
            return
        if game.rules.four_pairs_out_of_turn and chop_out_of_turn(game, policies):
            continue
        seat = game.turn
        if game.top is not None and not game.legal_plays(seat):
            game.pass_turn(seat)
            continue
        situation = Situation.from_game(game, seat)
        if seat in labelled and chooser.random() < share:
            _label_decision(game, situation, types, model, f"{deal}:{step}", labels)
        apply_move(game, seat, policies[seat](situation))


def _label_decision(game: Game, situation: Situation, types: list[str], model: Model | None, seed: str,
                    labels: LabelSet) -> None:
    decision = Decision(situation)
    if decision.finishing is not None or len(decision.moves) < 2:
        return
    values, firsts = [], []
    for move in decision.moves:
        world = game.copy()
        apply_move(world, situation.seat, move)
        finish(world, seat_policies(types, model, seed))
        values.append(float(world.settlement()[situation.seat]))
        firsts.append(world.places[0] == situation.seat)
    labels.add(decision, values, firsts)


def label_deals(preset: str, deals: range, model: Model | None, *, per_game: int = DECISIONS_PER_GAME,
                opponents: list[tuple[str, float]] | None = None,
                stop: Callable[[], bool] = lambda: False, players: int = 4) -> tuple[LabelSet, int]:
    """Label the deals in order until ``stop()``; returns the labels and how
    many deals were done (so a time-limited run still names its seeds)."""
    labels = LabelSet()
    done = 0
    for deal in deals:
        if stop():
            break
        label_deal(preset, deal, model, labels, per_game, opponents, players)
        done += 1
    return labels, done

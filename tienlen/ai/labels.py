"""Training labels for the learned scorer: every option played out in the true deal.

A game is dealt from a seed and played by a *labelling policy* in every seat
(``normal``, or ``normal+`` with given weights in later rounds).  At a few of
its decisions (chosen by a generator seeded from the deal), every option of
that decision (:func:`tienlen.ai.features.options`) is played in a copy of
the true game, which is then finished by the same policy in every seat, and
the seat's settlement is recorded.  Comparing the options of one decision on
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
from tienlen.ai.arena import MAX_ACTIONS, apply_move
from tienlen.ai.features import FEATURES, Decision
from tienlen.ai.model import Model
from tienlen.ai.normal import normal_move
from tienlen.ai.plus import plus_move
from tienlen.ai.situation import Situation
from tienlen.combos import Combo

__all__ = ["Policy", "policy_of", "finish", "LabelSet", "label_deal", "label_deals", "DECISIONS_PER_GAME"]

Policy = Callable[[Situation], "Combo | None"]
DECISIONS_PER_GAME = 4
"""About this many decisions of a game are labelled (games are ~40 decisions long)."""


def policy_of(model: Model | None) -> Policy:
    """``normal`` when no model is given, else ``normal+`` with that model."""
    if model is None:
        return normal_move
    return lambda situation: plus_move(situation, model)


def finish(game: Game, policy: Policy, max_actions: int = MAX_ACTIONS) -> Game:
    """Play ``game`` to its end with ``policy`` in every seat (each seeing only
    its own hand); out-of-turn chops are offered as the table offers them and
    answered by ``normal`` (as ``normal+`` does)."""
    for _ in range(max_actions):
        if game.finished:
            return game
        if game.rules.four_pairs_out_of_turn and _chop_out_of_turn(game):
            continue
        seat = game.turn
        if game.top is not None and not game.legal_plays(seat):
            game.pass_turn(seat)
            continue
        apply_move(game, seat, policy(Situation.from_game(game, seat)))
    raise RuntimeError("play-out did not finish")


def _chop_out_of_turn(game: Game) -> bool:
    top = game.top
    if top is None or top.chop_target is None:
        return False
    owner = game.top_owner if game.top_owner is not None else 0
    for step in range(1, game.players):
        seat = (owner + step) % game.players
        if seat == game.turn or not game.legal_plays(seat):
            continue
        move = normal_move(Situation.from_game(game, seat))
        if move is not None:
            game.play(seat, move)
            return True
    return False


@dataclass
class LabelSet:
    """Labelled decisions, one row per option (``group`` numbers the decisions)."""

    rows: list[np.ndarray] = field(default_factory=list)
    """One float32 array per decision (Python floats would take ten times the memory)."""
    values: list[float] = field(default_factory=list)
    groups: list[int] = field(default_factory=list)
    normal_choice: list[bool] = field(default_factory=list)
    decisions: int = 0

    def add(self, decision: Decision, values: list[float]) -> None:
        self.rows.append(np.asarray(decision.compute_rows(), dtype=np.float32))
        for index, value in enumerate(values):
            self.values.append(value)
            self.groups.append(self.decisions)
            self.normal_choice.append(index == decision.heuristic_choice)
        self.decisions += 1

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "rows": np.concatenate(self.rows) if self.rows else np.zeros((0, FEATURES), np.float32),
            "values": np.asarray(self.values, dtype=np.float32),
            "groups": np.asarray(self.groups, dtype=np.int64),
            "normal_choice": np.asarray(self.normal_choice, dtype=bool),
        }


def label_deal(preset: str, deal: int, policy: Policy, labels: LabelSet,
               per_game: int = DECISIONS_PER_GAME) -> None:
    """Play deal ``deal`` with ``policy`` and label about ``per_game`` of its decisions."""
    game = Game.deal(RULESETS[preset], 4, deal)
    chooser = random.Random(f"labels:{preset}:{deal}")
    share = per_game / 40.0
    for _ in range(MAX_ACTIONS):
        if game.finished:
            return
        if game.rules.four_pairs_out_of_turn and _chop_out_of_turn(game):
            continue
        seat = game.turn
        if game.top is not None and not game.legal_plays(seat):
            game.pass_turn(seat)
            continue
        situation = Situation.from_game(game, seat)
        if chooser.random() < share:
            _label_decision(game, situation, policy, labels)
        apply_move(game, seat, policy(situation))


def _label_decision(game: Game, situation: Situation, policy: Policy, labels: LabelSet) -> None:
    decision = Decision(situation)
    if decision.finishing is not None or len(decision.moves) < 2:
        return
    values = []
    for move in decision.moves:
        world = game.copy()
        apply_move(world, situation.seat, move)
        finish(world, policy)
        values.append(float(world.settlement()[situation.seat]))
    labels.add(decision, values)


def label_deals(preset: str, deals: range, policy: Policy, *, per_game: int = DECISIONS_PER_GAME,
                stop: Callable[[], bool] = lambda: False) -> tuple[LabelSet, int]:
    """Label the deals in order until ``stop()``; returns the labels and how
    many deals were done (so a time-limited run still names its seeds)."""
    labels = LabelSet()
    done = 0
    for deal in deals:
        if stop():
            break
        label_deal(preset, deal, policy, labels, per_game)
        done += 1
    return labels, done

"""Opponent types: what kind of player each other seat seems to be.

``hard`` can model every other seat as one of a few *types* instead of
assuming the heuristic everywhere (people and other bots do not play like it).
A type is two things: a policy for the search's play-outs, and the likelihood
of one observed decision given the seat's hand at the time:

* ``heuristic`` — the hand-written heuristic: a softmax over its scores
  (:class:`~tienlen.ai.inference.OpponentModel`);
* ``easy`` — :class:`~tienlen.ai.easy.EasyPlayer`'s own probabilities (the
  lowest combo, now and then a random one or a lazy pass);
* ``greedy`` — the lowest combo every time, every free chop taken;
* ``scorer`` — the learned scorer (``normal``, the bot's own AI seats) in the
  play-outs, recognised by the heuristic's likelihood.  It agrees with the
  heuristic on 72 % of decisions (6,840 decisions of 150 deals); the
  heuristic's softmax gives its moves a mean log-likelihood of −1.28 against
  −0.69 for the heuristic's own, so the two are told apart only through their
  prior weights.  A likelihood of its own would cost 305 µs a decision term
  against 51 µs, in a chain whose every step recomputes the terms of two seats'
  past decisions.

:class:`TypedModel` keeps a prior weight per type.  For the deal chain it
gives each seat's log-likelihood of a hand as the prior-weighted mixture over
the types (the types are summed out), and :meth:`TypedModel.posterior` the
weights of the types given the seat's decisions and that hand, from which
each sampled world draws each seat's type.  Averaged over the chain's worlds
these are the seat's posterior weights over types.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Callable

from tienlen.ai.arena import Policy
from tienlen.ai.easy import EASY, GREEDY, lowest_key, lowest_policy
from tienlen.ai.inference import FLOOR, Decision, OpponentModel
from tienlen.ai.normal import DEFAULT_WEIGHTS, Weights, normal_move
from tienlen.game import legal_plays_on_turn

if TYPE_CHECKING:
    from tienlen.ai.model import Model
    from tienlen.game import SeatView

__all__ = ["TYPES", "LowestModel", "TypedModel", "parse_prior", "policy_for", "draw_types"]

TYPES = {"heuristic": None, "easy": EASY, "greedy": GREEDY, "scorer": None}
"""Type name -> the lowest-combo chances (wander, lazy, notice_chop), or None for the heuristic's
likelihood.  ``scorer`` plays the learned scorer (``normal``) in the play-outs but is recognised
by the heuristic's likelihood."""


def parse_prior(text: str) -> dict[str, float]:
    """"heuristic:2,easy:1,greedy:1" -> prior weights (normalised), e.g. from ``--hard types=...``.

    >>> parse_prior("heuristic:2,easy:1,greedy:1")
    {'heuristic': 0.5, 'easy': 0.25, 'greedy': 0.25}
    """
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, _, weight = part.partition(":")
        name = name.strip()
        if name not in TYPES:
            raise ValueError(f"unknown opponent type {name!r}; choose from {', '.join(TYPES)}")
        weights[name] = float(weight or 1)
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("the prior weights must add up to more than 0")
    return {name: weight / total for name, weight in weights.items()}


class LowestModel(OpponentModel):
    """The decisions' log-likelihood under a lowest-combo player (``easy``, ``greedy``)."""

    def __init__(self, view: "SeatView", decisions: list[Decision], chances: tuple[float, float, float]) -> None:
        self.chances = chances
        super().__init__(view, decisions, temperature=1.0)

    def context(self) -> tuple:
        return ("lowest", self.chances)

    def _decision_log_likelihood(self, decision: Decision, hand: int) -> float:
        legal = legal_plays_on_turn(self.rules, hand, decision.top, decision.required)
        following = decision.top is not None
        if not legal or (len(legal) == 1 and not following):
            return 0.0  # forced
        wander, lazy, _ = self.chances
        mask = decision.action_mask
        if not mask:
            chance = lazy if following else 0.0
        elif not any(combo[1] == mask for combo in legal):
            chance = 0.0  # cannot happen in a consistent deal
        else:
            lowest = min(legal, key=lowest_key)
            chance = (1 - lazy if following else 1.0) * ((1 - wander) * (lowest[1] == mask) + wander / len(legal))
        # The floor keeps a deterministic type (greedy) alive after one odd move:
        # a human who mostly plays low is still better explained by it.
        return math.log(max(chance, FLOOR))


class TypedModel:
    """Per seat and hand: the log-likelihood of its decisions, summed over the
    types with the ``prior`` weights, and the posterior over the types."""

    def __init__(self, view: "SeatView", decisions: list[Decision], prior: dict[str, float],
                 temperature: float, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.prior = prior
        self.models: dict[str, OpponentModel] = {}
        for name in prior:
            chances = TYPES[name]
            self.models[name] = (OpponentModel(view, decisions, temperature, weights) if chances is None
                                 else LowestModel(view, decisions, chances))
        self._logs = {name: math.log(weight) for name, weight in prior.items() if weight > 0}

    def _joint(self, seat: int, hand: int) -> dict[str, float]:
        return {name: log + self.models[name].seat_log_likelihood(seat, hand) for name, log in self._logs.items()}

    def seat_log_likelihood(self, seat: int, hand: int) -> float:
        joint = self._joint(seat, hand)
        best = max(joint.values())
        if best == -math.inf:
            return best
        return best + math.log(sum(math.exp(value - best) for value in joint.values()))

    def posterior(self, seat: int, hand: int) -> dict[str, float]:
        """The weights of the types for ``seat`` if it holds ``hand`` now."""
        joint = self._joint(seat, hand)
        best = max(joint.values())
        if best == -math.inf:
            return dict(self.prior)
        raw = {name: math.exp(value - best) for name, value in joint.items()}
        total = sum(raw.values())
        return {name: value / total for name, value in raw.items()}


def draw_types(weights_by_seat: dict[int, dict[str, float]], rng: random.Random) -> dict[int, str]:
    """One type per seat, drawn from its weights (seats in order: reproducible)."""
    types = {}
    for seat in sorted(weights_by_seat):
        names = list(weights_by_seat[seat])
        types[seat] = rng.choices(names, [weights_by_seat[seat][name] for name in names])[0]
    return types


def policy_for(kind: str, seed: int, weights: Weights = DEFAULT_WEIGHTS, scorer: "Model | None" = None) -> Policy:
    """A play-out policy of type ``kind``; random types draw from a generator
    seeded by ``seed`` (the same seed for every candidate of a world: paired).
    ``scorer`` is the model the ``scorer`` type plays (default: the shipped one)."""
    chances = TYPES[kind]
    if kind == "scorer":
        from tienlen.ai.plus import plus_move, shipped_model

        model = scorer if scorer is not None else shipped_model()
        return lambda situation: plus_move(situation, model)
    if chances is None:
        return normal_heuristic(weights)
    return lowest_policy(random.Random(seed), chances)


def normal_heuristic(weights: Weights) -> Callable:
    if weights is DEFAULT_WEIGHTS:
        return normal_move
    return lambda situation: normal_move(situation, weights)

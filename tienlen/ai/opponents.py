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
  play-outs.  In the deal chain it borrows the heuristic's likelihood: the
  scorer's own (:class:`ScorerModel`, a softmax over its values) costs 305 µs
  a decision term against 51 µs, and every chain step recomputes the terms of
  two seats' past decisions.  The two players agree on 72 % of decisions, so
  with ``tell_scorer`` the scorer's likelihood is measured once per seat and
  search, on the first world's hand, to tell a ``scorer`` seat from a
  ``heuristic`` one (:meth:`TypedModel.posterior`).

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
from typing import TYPE_CHECKING, Callable, Sequence

from tienlen.ai.arena import Policy
from tienlen.ai.easy import EASY, GREEDY, lowest_key, lowest_policy
from tienlen.ai.inference import FLOOR, Decision, OpponentModel
from tienlen.ai.normal import DEFAULT_WEIGHTS, Weights, normal_move
from tienlen.ai.situation import Situation
from tienlen.game import legal_plays_on_turn

if TYPE_CHECKING:
    from tienlen.ai.model import Model
    from tienlen.game import SeatView

__all__ = ["TYPES", "LEVEL_TYPES", "LowestModel", "ScorerModel", "TypedModel", "parse_prior", "policy_for", "draw_types",
           "known_types", "seat_prior", "scorer_plays"]

TYPES = {"heuristic": None, "easy": EASY, "greedy": GREEDY, "scorer": None}
"""Type name -> the lowest-combo chances (wander, lazy, notice_chop), or None for the heuristic's
likelihood.  ``scorer`` plays the learned scorer (``normal``) in the play-outs but is recognised
by the heuristic's likelihood."""


LEVEL_TYPES = {"easy": "easy", "normal": "scorer", "normal+": "scorer", "hard": "scorer",
               "heuristic": "heuristic", "greedy": "greedy"}
"""The type that plays like an AI seat of each level: the bot shows every AI seat's
level at the table, so ``hard`` need not infer it.  ``hard`` is modelled as the
scorer it searches around."""


def known_types(levels: "Sequence[str | None] | None", seat: int) -> dict[int, str]:
    """Other seat -> its type, for the seats whose level is public (AI seats);
    people (None) and unknown levels are left to the opponent model.

    >>> known_types(["easy", None, "normal", "hard"], seat=3)
    {0: 'easy', 2: 'scorer'}
    """
    if not levels:
        return {}
    return {other: LEVEL_TYPES[level] for other, level in enumerate(levels)
            if other != seat and level in LEVEL_TYPES}


def seat_prior(prior: dict[str, float], known: dict[int, str], seat: int) -> dict[str, float]:
    """The prior weights of ``seat``'s types: its known type alone, if known.

    >>> seat_prior({"heuristic": 0.5, "easy": 0.5}, {2: "scorer"}, 2)
    {'scorer': 1.0}
    """
    kind = known.get(seat)
    return prior if kind is None else {kind: 1.0}


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


SCORER_TEMPERATURE = 0.2
"""How freely (bet units) a ``scorer`` seat strays from the learned scorer's best value."""


class ScorerModel(OpponentModel):
    """The decisions' log-likelihood under the learned scorer: a softmax over
    its values of every option (``temperature`` in bet units).  Costs about six
    times the heuristic's likelihood, so :class:`TypedModel` uses it only to
    tell a ``scorer`` seat from a ``heuristic`` one, not inside the deal chain."""

    def __init__(self, view: "SeatView", decisions: list[Decision], scorer: "Model",
                 temperature: float = SCORER_TEMPERATURE) -> None:
        self.scorer = scorer
        self.actions = tuple(view.actions)  # read before each decision (and in its memo key)
        super().__init__(view, decisions, temperature)

    def context(self) -> tuple:
        return ("scorer", id(self.scorer), self.temperature)

    def history_before(self, decision: Decision) -> tuple:
        return self.actions[:decision.index]

    def _decision_log_likelihood(self, decision: Decision, hand: int) -> float:
        from tienlen.ai.plus import ranked_options  # numpy only where a scorer is used

        situation = self.situation_at(decision, hand)
        if not isinstance(situation, Situation):
            return situation
        mask = decision.action_mask
        ranked = ranked_options(situation, self.scorer)
        observed = next((value for value, move in ranked if (move[1] if move is not None else 0) == mask), None)
        if observed is None:
            return math.log(FLOOR)
        best = ranked[0][0]
        if best == math.inf:
            return 0.0  # going out: always taken
        total = sum(math.exp((value - best) / self.temperature) for value, _ in ranked)
        return math.log(max(math.exp((observed - best) / self.temperature) / total, FLOOR))


class TypedModel:
    """Per seat and hand: the log-likelihood of its decisions, summed over the
    types with the ``prior`` weights, and the posterior over the types.  A seat
    in ``known`` (seat -> type, e.g. an AI seat of a public level) has that
    type alone.  With ``exact_chain``, the ``scorer`` type's likelihood is
    ``exact``'s own instead of the heuristic's it is lent by default."""

    def __init__(self, view: "SeatView", decisions: list[Decision], prior: dict[str, float],
                 temperature: float, weights: Weights = DEFAULT_WEIGHTS, scorer: "Model | None" = None,
                 known: "dict[int, str] | None" = None, exact: "Model | None" = None,
                 exact_chain: bool = False, exact_temperature: float = SCORER_TEMPERATURE) -> None:
        self.prior = prior
        self.known = known or {}
        self.models: dict[str, OpponentModel] = {}
        heuristic = None  # one model for the types that share the heuristic's likelihood
        for name in {**prior, **dict.fromkeys(self.known.values())}:
            chances = TYPES[name]
            if chances is None:
                heuristic = heuristic or OpponentModel(view, decisions, temperature, weights)
                self.models[name] = heuristic
            else:
                self.models[name] = LowestModel(view, decisions, chances)
        self._logs = {name: math.log(weight) for name, weight in prior.items() if weight > 0}
        self.scorer_model = (ScorerModel(view, decisions, scorer)
                             if scorer is not None and "scorer" in self._logs and len(self._logs) > 1
                             and scorer_plays(scorer, view.rules.name, view.players) else None)
        """With a ``scorer`` type and its model: the scorer's own likelihood, which
        tells a ``scorer`` seat from a ``heuristic`` one in :meth:`posterior`."""
        self.exact_model = (ScorerModel(view, decisions, exact, exact_temperature)
                            if exact is not None and "scorer" in self.known.values()
                            and scorer_plays(exact, view.rules.name, view.players) else None)
        """With ``exact``: the scorer's own likelihood for the seats known to be the
        scorer, which :meth:`known_correction` sets against the lent one."""
        if exact_chain and self.exact_model is not None:
            self.models["scorer"] = self.exact_model  # the chain weighs them by it: nothing left to correct
        self._shifts: dict[int, float] = {}

    def _joint(self, seat: int, hand: int) -> dict[str, float]:
        known = self.known.get(seat)
        if known is not None:
            return {known: self.models[known].seat_log_likelihood(seat, hand)}
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
        if len(joint) == 1:
            return {name: 1.0 for name in joint}
        if self.scorer_model is not None:
            joint["scorer"] += self._scorer_shift(seat, hand)
        best = max(joint.values())
        if best == -math.inf:
            return dict(self.prior)
        raw = {name: math.exp(value - best) for name, value in joint.items()}
        total = sum(raw.values())
        return {name: value / total for name, value in raw.items()}

    def known_correction(self, hands: dict[int, int]) -> float:
        """How much better (log-likelihood) the scorer's own softmax explains the
        decisions of the seats known to be the scorer, holding ``hands``, than
        the heuristic's likelihood the deal chain lends them: the log of an
        importance weight that turns the chain's deals into deals drawn by the
        scorer's own likelihood (0 without ``exact``)."""
        if self.exact_model is None:
            return 0.0
        return sum(self._own_over_lent(self.exact_model, seat, hands[seat]) or 0.0
                   for seat, kind in self.known.items() if kind == "scorer" and seat in hands)

    def _own_over_lent(self, own_model: ScorerModel, seat: int, hand: int) -> float | None:
        """The scorer's own log-likelihood of ``seat``'s decisions minus the one the
        chain lends the ``scorer`` type (None when either is impossible)."""
        own = own_model.seat_log_likelihood(seat, hand)
        lent = self.models["scorer"].seat_log_likelihood(seat, hand)
        return own - lent if math.isfinite(own) and math.isfinite(lent) else None

    def _scorer_shift(self, seat: int, hand: int) -> float:
        """How much better (log-likelihood) the scorer's own softmax explains the
        seat's decisions than the heuristic's, which the chain lends the
        ``scorer`` type.  Measured once per seat, on the first world's hand: the
        chain's later worlds differ in a few cards, and each measure costs a
        scorer evaluation per past decision."""
        shift = self._shifts.get(seat)
        if shift is None:
            shift = self._own_over_lent(self.scorer_model, seat, hand)
            if shift is None:
                return 0.0  # not kept: the next world's hand may tell
            self._shifts[seat] = shift
        return shift


def scorer_plays(scorer: "Model | None", preset: str, players: int) -> bool:
    """Whether ``scorer`` (or the rules scorer that stands in for it,
    :func:`tienlen.ai.plus.for_table`) plays at this table; False without one."""
    if scorer is None:
        return False
    from tienlen.ai.plus import plays_at  # numpy only where a scorer is used

    return plays_at(scorer, preset, players)


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

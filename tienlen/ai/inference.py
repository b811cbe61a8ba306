"""Soft inference on the hidden hands from the other seats' public decisions.

Passing is never proof (a player may keep a 2 for later), so no deal is
rejected for behaviour.  Instead a deal gets a weight: the likelihood of each
public on-turn decision of the other seats under a *softmax* over the normal
heuristic's scores for that seat's hand at the time,

    P(action | hand) = exp(score(action) / T) / Σ exp(score(option) / T),

so a deal in which an opponent passed while holding an obviously good play is
unlikely, and a deal that explains their plays is likely.  The temperature
``T`` (in the heuristic's units, "turns") says how freely players deviate from
the heuristic; a large ``T`` flattens the weights out.

Each seat's decisions depend only on its own hand (and public facts), so the
log-likelihood of a deal is a sum of per-seat terms, each memoised on that
seat's hand.  :class:`DealSampler` runs a Metropolis–Hastings chain over
swaps of unseen cards between seats, which moves towards the deals that
explain the table's play, and hands out deals along the way.

The public state at each past decision (counts, top, passes, cards played) is
the same in every consistent deal, so it is read once from one replayed world.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from tienlen.ai.normal import DEFAULT_WEIGHTS, Weights, _Scorer, rank_moves
from tienlen.ai.situation import Situation
from tienlen.cards import FULL_DECK
from tienlen.combos import Combo
from tienlen.game import legal_plays_on_turn
from tienlen.instant import instant_win_kind

if TYPE_CHECKING:
    from tienlen.game import Action, Game, SeatView

__all__ = ["Decision", "record_decisions", "OpponentModel", "DealSampler", "DEFAULT_TEMPERATURE"]

DEFAULT_TEMPERATURE = 0.5
_TERMS: dict[tuple, float] = {}
_TERMS_LIMIT = 100_000
"""Per-process memo of decision terms (cleared when full)."""
FLOOR = 1e-3
"""Smallest probability given to an observed action (robustness against moves
the heuristic would not list, such as a straight variant it merged away)."""


@dataclass(frozen=True)
class Decision:
    """The public state when ``seat`` acted on its turn, and what it did."""

    seat: int
    action_mask: int  # 0 = pass
    counts: tuple[int, ...]
    top: Combo | None
    top_owner: int | None
    passed: frozenset[int]
    in_play: tuple[bool, ...]
    has_played: tuple[bool, ...]
    played: int
    """Every card played before this decision."""
    required: int
    played_later: int
    """Cards this seat played from this decision on (filled in afterwards)."""
    index: int = 0
    """The decision's position in the action log (the actions before it are public)."""


def record_decisions(game: "Game", actions: "Sequence[Action]", skip_seat: int,
                     apply: Callable[["Game", "Action"], object]) -> list[Decision]:
    """Replay ``actions`` on ``game`` (via ``apply``), recording every on-turn
    play or pass of the seats other than ``skip_seat``.  Raises what ``apply``
    raises."""
    later = _played_from(actions)
    decisions: list[Decision] = []
    for index, action in enumerate(actions):
        seat = action.seat
        if seat != skip_seat and seat == game.turn and action.kind in ("play", "pass"):
            required = game.required_card
            decisions.append(Decision(
                seat=seat,
                action_mask=action.mask if action.kind == "play" else 0,
                counts=tuple(game.card_counts()),
                top=game.top,
                top_owner=game.top_owner,
                passed=game.passed,
                in_play=tuple(game.in_play(other) for other in range(game.players)),
                has_played=tuple(game.has_played(other) for other in range(game.players)),
                played=game.cards_played,
                required=required.mask if required is not None else 0,
                played_later=later[index].get(seat, 0),
                index=index,
            ))
        apply(game, action)
    return decisions


def _played_from(actions: "Sequence[Action]") -> list[dict[int, int]]:
    """Per action index: the cards each seat plays from that action on."""
    suffix: dict[int, int] = {}
    out: list[dict[int, int]] = [{}] * len(actions)
    for index in range(len(actions) - 1, -1, -1):
        action = actions[index]
        if action.mask:
            suffix = dict(suffix)
            suffix[action.seat] = suffix.get(action.seat, 0) | action.mask
        out[index] = suffix
    return out


class OpponentModel:
    """Log-likelihood of the other seats' recorded decisions, per seat and hand."""

    def __init__(self, view: "SeatView", decisions: list[Decision], temperature: float,
                 weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.rules = view.rules
        self.players = view.players
        self.first_game = view.first_game
        self.temperature = temperature
        self.weights = weights
        self.by_seat: dict[int, list[Decision]] = {}
        for decision in decisions:
            self.by_seat.setdefault(decision.seat, []).append(decision)
        self.played = view.played
        self._cache: dict[tuple[int, int], float] = {}
        # What the per-decision terms depend on besides the hand: the decision,
        # the actions before it that the model reads, and the model's context;
        # terms are shared between searches of one process (later decisions of
        # a game revisit the same past decisions).
        context = (hash(view.rules), view.players, self.context())
        self._keys = {id(decision): hash((context, decision, self.history_before(decision)))
                      for decision in decisions}

    def context(self) -> tuple:
        """What this model's decision terms depend on besides the rules, the
        decision and the hand (part of the memo keys shared between searches)."""
        return (self.temperature, self.weights)

    def seat_log_likelihood(self, seat: int, hand: int) -> float:
        """Log-likelihood of ``seat``'s decisions if it holds ``hand`` now
        (-inf if its dealt hand would have been an instant win)."""
        key = (seat, hand)
        known = self._cache.get(key)
        if known is None:
            known = self._compute(seat, hand)
            self._cache[key] = known
        return known

    def _compute(self, seat: int, hand: int) -> float:
        dealt = hand | self.played[seat]
        if self.rules.instant_wins and instant_win_kind(self.rules, dealt, first_game=self.first_game):
            return -math.inf
        total = 0.0
        for decision in self.by_seat.get(seat, ()):
            then = hand | decision.played_later
            key = (self._keys[id(decision)], then)  # ints only: invisible to the garbage collector
            term = _TERMS.get(key)
            if term is None:
                if len(_TERMS) >= _TERMS_LIMIT:
                    _TERMS.clear()
                term = _TERMS[key] = self._decision_log_likelihood(decision, then)
            total += term
        return total

    def situation_at(self, decision: Decision, hand: int) -> "Situation | float":
        """The seat's situation at ``decision`` had it held ``hand``; or, when
        the decision says nothing about the player, its log-likelihood (0 when
        forced, the floor when impossible in this deal)."""
        legal = legal_plays_on_turn(self.rules, hand, decision.top, decision.required)
        if decision.action_mask and not any(combo[1] == decision.action_mask for combo in legal):
            return math.log(FLOOR)  # cannot happen in a consistent deal; stay robust
        if not legal or (len(legal) == 1 and decision.top is None):
            return 0.0  # forced
        return Situation(
            rules=self.rules, seat=decision.seat, players=self.players, hand=hand,
            counts=decision.counts, top=decision.top, top_owner=decision.top_owner, on_turn=True,
            passed=decision.passed, in_play=decision.in_play, has_played=decision.has_played,
            unseen=FULL_DECK & ~hand & ~decision.played, legal=legal, actions=self.history_before(decision),
        )

    def history_before(self, decision: Decision) -> tuple:
        """The public actions a player of this model reads at ``decision`` (the heuristic: none)."""
        return ()

    def _decision_log_likelihood(self, decision: Decision, hand: int) -> float:
        situation = self.situation_at(decision, hand)
        if not isinstance(situation, Situation):
            return situation
        ranked = rank_moves(situation, self.weights)
        if len(ranked) == 1:
            return 0.0
        scores = [score for score, _ in ranked]
        observed, listed = _observed_score(situation, ranked, decision.action_mask, self.weights)
        if not listed:
            scores.append(observed)  # a play the ranking merged away still counts in the softmax
        best = max(scores)
        temperature = self.temperature
        total = sum(math.exp((score - best) / temperature) for score in scores)
        return math.log(max(math.exp((observed - best) / temperature) / total, FLOOR))


def _observed_score(situation: Situation, ranked, mask: int, weights: Weights) -> tuple[float, bool]:
    """The heuristic's score of the observed action, and whether ``ranked`` listed it."""
    for score, move in ranked:
        if (move is None and not mask) or (move is not None and move[1] == mask):
            return score, True
    scorer = _Scorer(situation, weights)
    if not mask:
        return scorer.score(None), False
    for combo in situation.legal:
        if combo[1] == mask:
            return scorer.score(combo), False
    return ranked[-1][0], True


class DealSampler:
    """A Metropolis–Hastings chain over the hidden cards.

    ``hands`` maps each other seat (and ``SET_ASIDE`` = -1, the cards never
    dealt) to the unseen cards it holds in the current deal.  A step picks two
    free cards (pinned cards never move); if different seats hold them, it
    proposes swapping them and accepts with the likelihood ratio, so counts
    never change and the chain's deals follow the opponent model.
    """

    SET_ASIDE = -1

    def __init__(self, model: OpponentModel, hands: dict[int, int], free_cards: list[int],
                 rng: random.Random) -> None:
        self.model = model
        self.rng = rng
        self.hands = dict(hands)
        self.owner = {card: seat for seat, mask in hands.items() for card in free_cards if mask >> card & 1}
        self.free = [card for card in free_cards if card in self.owner]
        self.log_likelihood = sum(self._term(seat, mask) for seat, mask in self.hands.items())
        self.steps = 0
        self.accepted = 0

    def _term(self, seat: int, hand: int) -> float:
        return 0.0 if seat == self.SET_ASIDE else self.model.seat_log_likelihood(seat, hand)

    def step(self) -> None:
        if len(self.free) < 2:
            return
        rng = self.rng
        first, second = rng.choice(self.free), rng.choice(self.free)
        a, b = self.owner[first], self.owner[second]
        self.steps += 1
        if a == b:
            return
        swap = (1 << first) | (1 << second)
        new_a, new_b = self.hands[a] ^ swap, self.hands[b] ^ swap
        delta = (self._term(a, new_a) + self._term(b, new_b)) - (
            self._term(a, self.hands[a]) + self._term(b, self.hands[b]))
        if delta >= 0 or (delta > -math.inf and rng.random() < math.exp(delta)):
            self.hands[a], self.hands[b] = new_a, new_b
            self.owner[first], self.owner[second] = b, a
            self.log_likelihood += delta
            self.accepted += 1

"""The records a game produces: actions, outcomes, chop events, payments, and
the :class:`SeatView` an AI player receives.  All small immutable values.

They live apart from :mod:`tienlen.game` so that the settlement (which makes
payments) and the game (which asks for them) need not import each other.

>>> Action(kind="play", seat=2, mask=0b111).cards
[Card('3S'), Card('3C'), Card('3D')]
>>> Payment(payer=1, payee=0, units=2, reason=PaymentReason.PLACE).units
2
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from tienlen.cards import FULL_DECK, Card, as_mask, cards_of, format_cards, parse_cards
from tienlen.values import Combo

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = ["Action", "Payment", "PaymentReason", "ChopEvent", "Outcome", "SeatView"]


class Action(NamedTuple):
    """One accepted action: ``kind`` is "play", "pass", "timeout" or "leave"."""

    kind: str
    seat: int
    mask: int = 0

    @property
    def cards(self) -> list[Card]:
        return cards_of(self.mask)

    def to_json(self) -> list[Any]:
        if self.kind == "play":
            return [self.kind, self.seat, format_cards(cards_of(self.mask), ascii=True)]
        return [self.kind, self.seat]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "Action":
        kind, seat = str(data[0]), int(data[1])
        if kind not in ("play", "pass", "timeout", "leave"):
            raise ValueError(f"unknown action kind: {kind}")
        mask = as_mask(parse_cards(data[2])) if kind == "play" else 0
        return cls(kind=kind, seat=seat, mask=mask)


class PaymentReason(str, Enum):
    PLACE = "place"  # money by finishing place
    CHOP = "chop"  # chặt: 2s and bombs chopped
    INSTANT_WIN = "instant-win"  # tới trắng
    CONG = "cong"  # frozen (cóng)
    LEFTOVER = "leftover"  # thối / úng: 2s and bombs still held at the end
    FINISH_PENALTY = "finish-penalty"  # mien-bac: went out on a 2 or four of a kind
    LEAVE_PENALTY = "leave-penalty"  # left mid-game


class Payment(NamedTuple):
    """``payer`` owes ``payee`` ``units`` bet units for ``reason``."""

    payer: int
    payee: int
    units: int
    reason: PaymentReason


class ChopEvent(NamedTuple):
    """A bomb landing on a 2 or a bomb.

    ``chain_value`` is the chain's total so far (what the chopped player pays
    if nobody chops back); ``chopped_went_out`` is true when the chopped play
    was its player's last cards (then nobody pays for the chain).
    """

    round: int
    chopper: int
    chopped: int
    bomb: Combo
    target: Combo
    value: int
    chain_value: int
    chopped_went_out: bool


class Outcome(NamedTuple):
    """What one action changed, for announcing it."""

    action: Action
    combo: Combo | None = None
    chop: ChopEvent | None = None
    out_of_turn: bool = False
    went_out: int | None = None
    """The place (0 = first) the actor took by playing their last cards."""
    finish_penalty: bool = False
    """mien-bac: the actor went out on a 2 / four of a kind and is ranked last (thối)."""
    frozen: tuple[int, ...] = ()
    """Seats found frozen (cóng) when the first player went out."""
    stuck: tuple[int, ...] = ()
    """mien-bac with going out on a 2 forbidden: leaders holding only unplayable cards."""
    round_over: bool = False
    leader: int | None = None
    """Who leads the new round, when ``round_over``."""
    finished: bool = False
    timed_out_pass: bool = False


@dataclass(frozen=True)
class SeatView:
    """What one seat may know: its own hand and everything played in public.

    This is all an AI player receives; other hands appear only as card counts.
    """

    rules: RuleSet
    seat: int
    players: int
    hand: int
    """This seat's cards (mask)."""
    counts: tuple[int, ...]
    """Cards left in each seat's hand."""
    played: tuple[int, ...]
    """Cards each seat has played so far (masks)."""
    top: Combo | None
    top_owner: int | None
    turn: int | None
    passed: frozenset[int]
    in_play: tuple[bool, ...]
    places: tuple[int, ...]
    left: tuple[int, ...]
    has_played: tuple[bool, ...]
    first_game: bool
    previous_winner: int | None
    required: int
    """Mask of the card the opening lead must contain (0 if none)."""
    actions: tuple[Action, ...]
    """The public action log (a lead-time-out records the card it played)."""
    legal_plays: tuple[Combo, ...]
    """The engine's legal plays for this seat now."""
    round_number: int = 0
    chain_value: int = 0
    """Chop money riding on the current round's chain of chops (public)."""

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: in other hands, or out of play."""
        seen = self.hand
        for mask in self.played:
            seen |= mask
        return FULL_DECK & ~seen

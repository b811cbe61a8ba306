"""What a step asks to store, and what storing it made known.

A step (:mod:`runtime.steps`) never writes; it returns records.  The store
(:mod:`runtime.store`) writes all the records of one step in one
transaction, and answers with a :class:`Receipt`: the id of a game it
created, the chips a settlement moved.  Only then does the runtime keep the
step's new state, completed with the receipt (:func:`runtime.steps.complete`).

Records are small immutable values, built by keyword; nothing here imports
the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

from tienlen.records import Payment

__all__ = [
    "SaveTable", "DeleteTable", "CreateGame", "AppendAction", "SeatOutcome", "SettleGame", "AbortGame", "Record",
    "Payout", "PayoutLine", "RatingMove", "Receipt",
]


@dataclass(frozen=True)
class SaveTable:
    """The table's new stored state, and the game it plays (None between
    games; a step that creates a game links the table to that game)."""

    state: Mapping[str, Any]
    game_id: int | None = None


@dataclass(frozen=True)
class DeleteTable:
    """Forget the table (it closed)."""


@dataclass(frozen=True)
class CreateGame:
    """A game dealt now; its id comes back in the receipt."""

    rules: str
    options: Mapping[str, Any]
    bet: int
    seats: Sequence[Mapping[str, Any]]
    record: Mapping[str, Any] = field(repr=False)
    """The engine's game JSON without actions: every hand, private."""
    rated: bool = False
    """Whether the game moves skill ratings."""


@dataclass(frozen=True)
class AppendAction:
    """The game's action number ``seq``."""

    game_id: int
    seq: int
    action: Any


@dataclass(frozen=True)
class SeatOutcome:
    """How one seat did in a finished game (for its account's statistics)."""

    place: int
    won: bool
    chops_made: int = 0
    chops_suffered: int = 0


@dataclass(frozen=True)
class SettleGame:
    """Pay a finished game out (once, whatever happens) and mark it finished."""

    game_id: int | None
    """None: the game created by the same step (an instant win at the deal)."""
    payments: tuple[Payment, ...]
    """The engine's payments, seat to seat, in bet units."""
    results: Mapping[int, SeatOutcome]
    bet: int
    rake_percent: int
    outcome: Mapping[str, Any]
    ranks: tuple[int, ...] = ()
    """Each seat's rank (1 first), for a rated game's ratings."""


@dataclass(frozen=True)
class AbortGame:
    game_id: int
    reason: str


Record = Union[SaveTable, DeleteTable, CreateGame, AppendAction, SettleGame, AbortGame]


@dataclass(frozen=True)
class PayoutLine:
    """One human seat's chips from a settlement."""

    user_id: int
    net: int
    """Chips won (+) or lost (−), after the cap and the rake."""
    balance_after: int


@dataclass(frozen=True)
class RatingMove:
    """A player's shown rating before and after one game."""

    before: int
    after: int


@dataclass(frozen=True)
class Payout:
    """What a settlement moved, by game seat (human seats only)."""

    game_id: int
    lines: Mapping[int, PayoutLine]
    ratings: Mapping[int, RatingMove] = field(default_factory=dict)
    """The humans' rating changes, when the game moved ratings."""

    def chips_by_user(self) -> dict[int, int]:
        return {line.user_id: line.net for line in self.lines.values()}


@dataclass(frozen=True)
class Receipt:
    """What the store learned while storing a step's records."""

    game_id: int | None = None
    """The id of the game the step created."""
    payout: Payout | None = None

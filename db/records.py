"""Plain, immutable values that the data layer returns and accepts.

Nothing here is bound to a database session: callers may keep these values
across awaits and Discord I/O, which ORM objects must never be.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tienlen.ratings import PROVISIONAL_GAMES


class Reason(StrEnum):
    """Why a ledger entry changed a balance."""

    START_GRANT = "start_grant"
    DAILY = "daily"
    SETTLEMENT = "settlement"
    LEAVE_PENALTY = "leave_penalty"
    ADMIN_GRANT = "admin_grant"
    REFUND = "refund"
    TRANSFER = "transfer"
    RESET = "reset"


class GameStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


@dataclass(frozen=True)
class Account:
    guild_id: int
    user_id: int
    balance: int
    created_at: datetime.datetime
    last_daily_at: datetime.datetime | None
    games_played: int
    firsts: int
    wins: int
    chips_won: int
    chips_lost: int
    chops_made: int
    chops_suffered: int


@dataclass(frozen=True)
class LedgerEntry:
    id: int
    guild_id: int
    user_id: int
    amount: int
    balance_after: int
    reason: Reason
    game_id: int | None
    idempotency_key: str
    created_at: datetime.datetime
    details: dict[str, Any] | None


@dataclass(frozen=True)
class BalanceChange:
    """The effect of one grant, debit or penalty.

    ``replayed`` is true when the idempotency key had already been used: the
    values are then those of the original change and nothing new happened.
    """

    guild_id: int
    user_id: int
    amount: int
    balance: int
    replayed: bool


@dataclass(frozen=True)
class TransferResult:
    payer_balance: int
    payee_balance: int
    replayed: bool


@dataclass(frozen=True)
class DailyClaim:
    amount: int
    balance: int
    next_claim_at: datetime.datetime


@dataclass(frozen=True)
class GuildSettings:
    """What a server's admins chose; None for what they left at the bot's default."""

    guild_id: int
    timezone: str
    locale: str | None
    """The language of public table messages (None: the server's own Discord language)."""
    starting_chips: int | None = None
    daily_chips: int | None = None
    default_rules: str | None = None
    default_bet: int | None = None
    default_turn_seconds: int | None = None
    ai_allowed: bool | None = None
    table_channels: tuple[int, ...] | None = None
    """Channels where tables may be opened (None or empty: all)."""
    daily_min_account_days: int | None = None
    ranked_only: bool | None = None
    """Whether only the games of ranked tables move ratings (None: the default, no: every game counts)."""


@dataclass(frozen=True)
class SettingChange:
    """One change of a server setting: who, what, when."""

    user_id: int
    name: str
    value: Any
    created_at: datetime.datetime


@dataclass(frozen=True)
class StoredGame:
    """A game as stored; ``actions`` are in seq order.

    ``record`` holds every hand: it is private and must never be logged at
    INFO or shown publicly.
    """

    id: int
    guild_id: int
    channel_id: int
    rules: str
    options: dict[str, Any]
    bet: int
    seats: list[dict[str, Any]]
    record: dict[str, Any]
    status: GameStatus
    started_at: datetime.datetime
    ended_at: datetime.datetime | None
    outcome: dict[str, Any] | None
    settled_at: datetime.datetime | None
    actions: tuple[Any, ...] = field(default=())

    def __repr__(self) -> str:
        # Keeps hands out of tracebacks and debug logs.
        return (
            f"StoredGame(id={self.id}, guild_id={self.guild_id}, "
            f"channel_id={self.channel_id}, status={self.status.value}, "
            f"actions={len(self.actions)})"
        )


@dataclass(frozen=True)
class SeatSummary:
    """One seat of a past game, for /history.

    ``place`` is 0 for the first to finish; ``chips`` is the net chip change
    (after cap and rake).  Both are None when the game was not settled, and
    ``chips`` is None for AI seats.
    """

    seat: int
    user_id: int | None
    name: str
    ai: str | None
    place: int | None
    chips: int | None


@dataclass(frozen=True)
class GameSummary:
    game_id: int
    rules: str
    bet: int
    status: GameStatus
    started_at: datetime.datetime
    ended_at: datetime.datetime | None
    seats: tuple[SeatSummary, ...]


@dataclass(frozen=True)
class StoredTable:
    channel_id: int
    guild_id: int
    state: dict[str, Any]
    updated_at: datetime.datetime
    game_id: int | None = None
    """The game the table is playing (None between games)."""


@dataclass(frozen=True)
class SeatPayment:
    """One payment the engine's settlement asks for, between seats, in bet units."""

    payer: int
    payee: int
    units: int
    reason: str


@dataclass(frozen=True)
class SeatResult:
    """How a seat ended the game; ``place`` 0 is the first to finish."""

    place: int
    won: bool
    chops_made: int = 0
    chops_suffered: int = 0


@dataclass(frozen=True)
class SettlementLine:
    """One human seat's chips for a settled game.

    ``owed`` is what the engine's payments add up to (units × bet);
    ``gross`` is what was actually collected or paid after the cap;
    ``rake`` is the house's cut of a gain; ``net`` = gross − rake is the
    ledger amount; ``balance_after`` the balance right after settlement.
    """

    user_id: int
    gross: int
    rake: int
    net: int
    balance_after: int
    owed: int


@dataclass(frozen=True)
class Settlement:
    game_id: int
    lines: dict[int, SettlementLine]
    replayed: bool
    ratings: dict[int, "RatingChange"] = field(default_factory=dict)
    """Each human seat's rating change, when the game moved ratings."""


@dataclass(frozen=True)
class RatingChange:
    """One player's rating before and after one game (see tienlen.ratings)."""

    user_id: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in a guild: the belief, the best shown so far, and the rank
    in its list (the established players', or the provisional ones' apart).

    A provisional player's rank is among the provisional players, as the
    rating board lists them: the place they see there, not one behind every
    established player."""

    guild_id: int
    user_id: int
    mu: float
    sigma: float
    games: int
    peak: int
    rank: int

    @property
    def provisional(self) -> bool:
        """Fewer rated games than an established rating needs: its rank is in the provisional list."""
        return self.games < PROVISIONAL_GAMES


@dataclass(frozen=True)
class RatingBoard:
    """The rating leaderboard: the established players first, then the provisional ones apart."""

    rows: list[LeaderRow]
    provisional: list[LeaderRow]
    caller: LeaderRow | None
    """The caller's own row (its value is the shown rating), if they have a rating."""


@dataclass(frozen=True)
class RatedGame:
    """A rated game in a player's history: the rating after it, and the balance after it."""

    game_id: int
    mu_after: float
    sigma_after: float
    rank: int
    balance_after: int | None
    created_at: datetime.datetime


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    user_id: int
    value: float | int
    games_played: int


@dataclass(frozen=True)
class Leaderboard:
    rows: list[LeaderRow]
    caller: LeaderRow | None


@dataclass(frozen=True)
class PlayerStats:
    guild_id: int
    user_id: int
    balance: int
    games_played: int
    firsts: int
    wins: int
    win_rate: float
    chips_won: int
    chips_lost: int
    chops_made: int
    chops_suffered: int
    chips_rank: int

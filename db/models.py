"""SQLAlchemy ORM models: the schema of the bot's database.

The Alembic migrations in ``db/migrations`` must produce exactly this schema
(a test compares them).  These classes are used inside sessions only; callers
outside :mod:`db` get the frozen dataclasses of :mod:`db.records`.
"""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from db.coltypes import AutoIncrementId, UtcDateTime, utcnow
from db.records import GameStatus, Reason

# Deterministic names let SQLite batch migrations find constraints again.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

DEFAULT_TIMEZONE = "Asia/Ho_Chi_Minh"

# The win-rate leaderboard's partial index covers accounts with at least this
# many games; leaderboards asking for fewer still work, only without the index.
WINRATE_INDEX_MIN_GAMES = 10


def _one_of(column: str, values: type[Reason] | type[GameStatus]) -> str:
    quoted = ", ".join(f"'{member.value}'" for member in values)
    return f"{column} IN ({quoted})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class AccountRow(Base):
    __tablename__ = "accounts"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    balance: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)
    last_daily_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    games_played: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    firsts: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    wins: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # wins / games_played, kept next to them so the win-rate board is an index walk.
    win_rate: Mapped[float] = mapped_column(Float, default=0.0, server_default=text("0"))
    chips_won: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))
    chips_lost: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))
    chops_made: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    chops_suffered: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))

    __table_args__ = (CheckConstraint("balance >= 0", name="balance_not_negative"),)


# Leaderboards read these in order; ties within a value come out by user id.
Index("ix_accounts_chips", AccountRow.guild_id, AccountRow.balance.desc(), AccountRow.user_id)
Index("ix_accounts_wins", AccountRow.guild_id, AccountRow.wins.desc(), AccountRow.user_id)
# games_played rides along so that counting a caller's rank (which filters
# on it) never leaves the index.
Index(
    "ix_accounts_winrate",
    AccountRow.guild_id,
    AccountRow.win_rate.desc(),
    AccountRow.user_id,
    AccountRow.games_played,
    sqlite_where=text(f"games_played >= {WINRATE_INDEX_MIN_GAMES}"),
    postgresql_where=text(f"games_played >= {WINRATE_INDEX_MIN_GAMES}"),
)


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(AutoIncrementId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    rules: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    bet: Mapped[int] = mapped_column(BigInteger)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    # Private: every hand.  Never log it at INFO.
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.RUNNING.value)
    started_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)
    ended_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    settled_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    # Per-seat places and chip figures written by settle_game, for /history
    # and for replaying a settlement's result.
    settlement: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    # When the public end-of-game summary reached Discord (NULL: not yet, and
    # a finished game's summary is posted again after a restart).
    summary_posted_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    # Whether the game moves skill ratings, decided at the deal (NULL: a game
    # from before ratings, counted with at least two humans).
    rated: Mapped[bool | None] = mapped_column(Boolean)

    __table_args__ = (
        CheckConstraint("bet >= 0", name="bet_not_negative"),
        CheckConstraint(_one_of("status", GameStatus), name="status_known"),
        Index("ix_games_channel_id_id", "channel_id", "id"),
        Index("ix_games_status", "status"),
    )


class GameActionRow(Base):
    __tablename__ = "game_actions"

    game_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[Any] = mapped_column(JSON)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)


class LedgerRow(Base):
    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(AutoIncrementId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("games.id"))
    idempotency_key: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))

    __table_args__ = (
        ForeignKeyConstraint(["guild_id", "user_id"], ["accounts.guild_id", "accounts.user_id"]),
        CheckConstraint("balance_after >= 0", name="balance_after_not_negative"),
        CheckConstraint(_one_of("reason", Reason), name="reason_known"),
        Index("ix_ledger_guild_id_user_id_id", "guild_id", "user_id", "id"),
        Index("ix_ledger_game_id", "game_id"),
    )


class TableRow(Base):
    __tablename__ = "tables"

    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)
    # The game the table is playing (NULL between games).
    game_id: Mapped[int | None] = mapped_column(BigInteger)


class GuildSettingsRow(Base):
    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    timezone: Mapped[str] = mapped_column(
        String(64), default=DEFAULT_TIMEZONE, server_default=DEFAULT_TIMEZONE
    )
    locale: Mapped[str | None] = mapped_column(String(16))
    # Each setting: NULL while the server keeps the bot's default.
    starting_chips: Mapped[int | None] = mapped_column(BigInteger)
    daily_chips: Mapped[int | None] = mapped_column(BigInteger)
    default_rules: Mapped[str | None] = mapped_column(String(32))
    default_bet: Mapped[int | None] = mapped_column(BigInteger)
    default_turn_seconds: Mapped[int | None] = mapped_column(Integer)
    ai_allowed: Mapped[bool | None] = mapped_column(Boolean)
    table_channels: Mapped[list[int] | None] = mapped_column(JSON(none_as_null=True))
    daily_min_account_days: Mapped[int | None] = mapped_column(Integer)
    ranked_only: Mapped[bool | None] = mapped_column(Boolean)


class RatingRow(Base):
    """A player's skill rating in a guild (see tienlen.ratings)."""

    __tablename__ = "ratings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    # mu - 3 sigma, kept as a column so the leaderboard is an index walk.
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    peak: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)


# The rating board reads this in order; ties within a value come out by user id.
Index("ix_ratings_guild_id_ordinal", RatingRow.guild_id, RatingRow.ordinal.desc(), RatingRow.user_id)


class RatingHistoryRow(Base):
    """One rated game of one player: the rating before and after it."""

    __tablename__ = "rating_history"

    game_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("games.id"), primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    rank: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (Index("ix_rating_history_guild_id_user_id_game_id", "guild_id", "user_id", "game_id"),)


class GuildSettingChangeRow(Base):
    __tablename__ = "guild_setting_changes"

    id: Mapped[int] = mapped_column(AutoIncrementId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(32))
    value: Mapped[Any | None] = mapped_column(JSON(none_as_null=True))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (Index("ix_guild_setting_changes_guild_id_id", "guild_id", "id"),)


class ClusterSlotRow(Base):
    """One row per cluster slot: who holds it and the epoch that fences writes.

    The advisory lock says who holds a slot *now*; the epoch, bumped at every
    claim, lets a write tell whether its process still does (see db.cluster).
    """

    __tablename__ = "cluster_slots"

    slot: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    epoch: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))
    holder: Mapped[str | None] = mapped_column(String(200))
    shard_count: Mapped[int | None] = mapped_column(Integer)
    claimed_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    activity_url: Mapped[str | None] = mapped_column(String(300))
    """Where the holder serves the Activity for the other processes (NULL until it publishes)."""


class ForwardedInteractionRow(Base):
    """An interaction forwarded to another slot that is too large for NOTIFY's
    8,000-byte payload: the notification carries only this row's id."""

    __tablename__ = "forwarded_interactions"

    id: Mapped[int] = mapped_column(AutoIncrementId, primary_key=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, default=utcnow)


class DmChannelRow(Base):
    """The direct-message channel the bot has with a user (it never changes):
    a process that takes over a table sends hands without asking Discord to
    open the channel again (that route allows 5 calls per 5 s per bot)."""

    __tablename__ = "dm_channels"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    channel_id: Mapped[int] = mapped_column(BigInteger)

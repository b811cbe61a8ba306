"""Exceptions raised by the data layer.

Every error the bot is expected to handle derives from :class:`DbError`, so a
cog can catch one type and translate it into a message for the player.  Errors
about bad arguments also derive from :class:`ValueError`, because that is what
they are.
"""

from __future__ import annotations

import datetime


class DbError(Exception):
    """Base class of every error raised on purpose by :mod:`db`."""


class CommitOutcomeUnknown(Exception):
    """A write may be stored or not, and only reading the database again can
    tell: the connection was lost after COMMIT was sent, or a batch stored
    change by change failed after some of its changes were committed.

    Not a :class:`DbError`: the data refused nothing, and running the same
    writes again (as a refused batch is, one change at a time) could store
    them twice.  ``error`` is the failure (SQLAlchemy's DBAPIError, with
    ``connection_invalidated`` for a lost connection)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(f"the write's outcome is unknown: {type(error).__name__}")
        self.error = error


class InvalidAmount(DbError, ValueError):
    """A chip amount is not an int, is out of range, or is zero/negative where
    a positive amount is required."""


class InsufficientFunds(DbError):
    """A debit asked for more chips than the account holds."""

    def __init__(self, guild_id: int, user_id: int, needed: int) -> None:
        super().__init__(f"account {guild_id}/{user_id} cannot pay {needed} chips")
        self.guild_id = guild_id
        self.user_id = user_id
        self.needed = needed


class UnknownAccount(DbError):
    """No account exists for this (guild, user)."""

    def __init__(self, guild_id: int, user_id: int) -> None:
        super().__init__(f"no account for user {user_id} in guild {guild_id}")
        self.guild_id = guild_id
        self.user_id = user_id


class DailyAlreadyClaimed(DbError):
    """The daily chips were already claimed today (guild's local calendar day)."""

    def __init__(self, retry_after: datetime.timedelta) -> None:
        super().__init__(f"daily chips already claimed; next claim in {retry_after}")
        self.retry_after = retry_after


class GameNotFound(DbError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game with id {game_id}")
        self.game_id = game_id


class GameClosed(DbError):
    """The game is no longer in a state that allows this change (for example an
    action appended to an aborted game, or an aborted game settled)."""


class ActionConflict(DbError):
    """A different action is already stored at this (game, seq): the stored log
    and the caller's game have diverged."""


class TablePlaying(DbError):
    """The table already plays a running game: a new deal would leave it behind
    (the caller missed that deal, whose answer was lost)."""

    def __init__(self, channel_id: int, game_id: int) -> None:
        super().__init__(f"table {channel_id} already plays running game {game_id}")
        self.channel_id = channel_id
        self.game_id = game_id


class IdempotencyConflict(DbError):
    """An idempotency key was reused for a different operation."""


class InvalidGame(DbError, ValueError):
    """Game data (seats, settlement input) is malformed."""


class InvalidTimezone(DbError, ValueError):
    """The time zone name is not known to the IANA database."""


class SchemaError(DbError):
    """The database schema could not be brought to the version this code needs.

    The message is one line, meant to be shown to the bot's operator as is.
    """


class StaleEpoch(DbError):
    """This process no longer holds its cluster slot: another process claimed it
    (bumping the epoch) and owns its tables now, so the write was refused."""

    def __init__(self, slot: int, epoch: int, current: int | None) -> None:
        super().__init__(f"cluster slot {slot}: epoch {epoch} is stale (now {current})")
        self.slot = slot
        self.epoch = epoch
        self.current = current

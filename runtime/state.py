"""A table as the runtime keeps it: the game-side model and what only the runtime needs.

:class:`TableState` is a committed value: the runtime never changes one in
place.  A step copies what it changes (:meth:`TableState.edit`) and the copy
replaces the committed state only once the store has written it.

What is stored of a state (:meth:`TableState.stored`) is the engine's table
JSON plus the runtime's own fields; the game itself is stored as its deal
and its actions, and what a settlement paid lives with the game.  Turn
deadlines are not part of it: the scheduler derives them, and a restart
gives the player on turn full time again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from runtime.records import Payout
from tienlen import Game
from tienlen.table import Phase, Table

__all__ = ["TableState"]


@dataclass(frozen=True)
class TableState:
    table: Table
    """The game-side table (seats, host, options, game, series)."""
    message_id: int | None = None
    """The public table message, edited in place."""
    last_activity: float = 0.0
    """When somebody last changed the table (epoch seconds): idle tables close."""
    locales: Mapping[int, str] = field(default_factory=dict)
    """Each player's Discord language (user id → locale), for their DMs."""
    payout: Payout | None = None
    """What the finished game paid, until the table moves on to the next game."""
    language: str | None = None
    """The language of the public table message, chosen by the server when the game was dealt
    (None: the server's own Discord language)."""

    @property
    def channel_id(self) -> int:
        return self.table.channel_id

    @property
    def guild_id(self) -> int:
        return self.table.guild_id

    @property
    def game(self) -> Game | None:
        return self.table.game if self.table.phase is Phase.PLAYING else None

    def edit(self, **changes: Any) -> "TableState":
        """A copy to change: the table (and its game) copied, ``changes`` applied.

        Made by hand, not with ``dataclasses.replace`` (a sixth of its cost: a
        step makes one on every move); the fields are this class's own."""
        other = object.__new__(TableState)
        fields = other.__dict__
        fields.update(self.__dict__)
        fields["table"] = self.table.copy()
        fields["locales"] = dict(self.locales)
        for name, value in changes.items():
            if name not in fields:
                raise TypeError(f"TableState has no field {name!r}")
            fields[name] = value
        return other

    def locale_of(self, user_id: int | None) -> str:
        return self.locales.get(user_id, "en-US") if user_id is not None else "en-US"

    # --------------------------------------------------------------- storage
    def stored(self) -> dict[str, Any]:
        """The table row's state: the engine's table JSON and the runtime's fields."""
        data = self.table.to_json()
        data["message_id"] = self.message_id
        data["last_activity"] = self.last_activity
        data["locales"] = {str(user): locale for user, locale in sorted(self.locales.items())}
        data["language"] = self.language
        return data

    @classmethod
    def from_stored(cls, data: Mapping[str, Any], *, game: Game | None, game_id: int | None,
                    payout: Payout | None = None) -> "TableState":
        """The state a table row (and its game) stands for."""
        locales = {int(user): locale for user, locale in (data.get("locales") or {}).items()}
        for seat in list(data.get("seats", [])) + list(data.get("game_seats", [])):
            # Rows written before languages moved here kept them in the seats.
            if seat.get("user_id") is not None and "locale" in seat:
                locales.setdefault(int(seat["user_id"]), seat["locale"])
        return cls(
            table=Table.from_json(dict(data), game, game_id),
            message_id=data.get("message_id"),
            last_activity=float(data.get("last_activity") or 0.0),
            locales=locales,
            payout=payout,
            language=data.get("language"),
        )

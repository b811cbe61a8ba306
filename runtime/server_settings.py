"""A server's settings as the bot applies them: its admins' choices, else the bot's defaults.

The bot's environment (:class:`~runtime.settings.Settings`) gives the
defaults; a server's admins change what they want with ``/tienlen-admin
settings``.  What the bot reads from here, and when a change takes effect:

* starting chips: accounts created afterwards; daily chips, the day's time
  zone and the minimum account age: the next claims;
* default rules, bet and turn time, and the channels tables may be opened
  in: tables opened afterwards;
* whether ratings move only at ranked tables: from the next game of a table on;
* whether AI seats are allowed, and the language of the public table
  messages: from the next game of a table on (a game being played keeps
  what it was dealt with).

>>> from runtime.settings import Settings
>>> server = ServerSettings.defaults(1, Settings())
>>> server.starting_chips, server.ai_allowed, server.allows_tables_in(42)
(1000, True, True)
>>> server = ServerSettings.defaults(1, Settings()).with_changes(table_channels=(7,), ai_allowed=False)
>>> server.allows_tables_in(42), server.allows_tables_in(7), server.ai_allowed
(False, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from runtime.settings import Settings

__all__ = ["ServerSettings", "LANGUAGES", "DEFAULT_TIMEZONE"]

LANGUAGES = ("vi", "en")
"""Languages a server may choose for its public table messages (else: its own Discord language)."""
DEFAULT_TIMEZONE = "Asia/Ho_Chi_Minh"


@dataclass(frozen=True)
class ServerSettings:
    guild_id: int
    starting_chips: int
    daily_chips: int
    timezone: str
    default_rules: str
    default_bet: int
    default_turn_seconds: int | None
    """None: each rule set's own turn time."""
    table_language: str | None
    """"vi" or "en"; None: the server's own Discord language."""
    ai_allowed: bool
    table_channels: tuple[int, ...]
    """Where tables may be opened; empty: every channel."""
    daily_min_account_days: int
    ranked_only: bool = False
    """Whether only the games of ranked tables move ratings (else every game with two people counts)."""
    chosen: frozenset[str] = frozenset()
    """The settings the server's admins chose (the others are the bot's defaults)."""

    @classmethod
    def defaults(cls, guild_id: int, settings: Settings) -> "ServerSettings":
        """The settings of a server whose admins changed nothing."""
        return cls(
            guild_id=guild_id,
            starting_chips=settings.starting_chips,
            daily_chips=settings.daily_chips,
            timezone=DEFAULT_TIMEZONE,
            default_rules=settings.default_rules,
            default_bet=settings.default_bet,
            default_turn_seconds=settings.default_turn_seconds,
            table_language=None,
            ai_allowed=True,
            table_channels=(),
            daily_min_account_days=0,
        )

    def with_changes(self, **chosen: Any) -> "ServerSettings":
        """These settings with the admins' choices (None: left at the default)."""
        values = {name: value for name, value in chosen.items() if value is not None}
        return replace(self, **values, chosen=self.chosen | frozenset(values))

    @classmethod
    def of(cls, guild_id: int, settings: Settings, stored: Mapping[str, Any]) -> "ServerSettings":
        """The settings of a server that stored ``stored`` (column → value, None: default)."""
        choices = dict(stored)
        choices["table_language"] = choices.pop("locale", None)
        if choices.get("timezone") == DEFAULT_TIMEZONE:
            choices["timezone"] = None  # stored for every server that has a row at all
        if choices.get("table_channels") is not None:
            choices["table_channels"] = tuple(choices["table_channels"])
        return cls.defaults(guild_id, settings).with_changes(**choices)

    def allows_tables_in(self, channel_id: int) -> bool:
        return not self.table_channels or channel_id in self.table_channels

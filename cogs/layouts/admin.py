"""/tienlen-admin: a server's settings with the last changes, and the confirmation of a balance reset."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import ui

import db
from cogs.custom_ids import admin_id
from cogs.layouts.style import accent_for, block, button, heading, panel, row, text
from cogs.layouts.words import rules_title
from i18n import number, t

if TYPE_CHECKING:
    from runtime.server_settings import ServerSettings

__all__ = ["settings_layout", "reset_layout", "SETTING_COLUMNS"]

ACCENT = accent_for(None)

SETTING_COLUMNS = {"starting_chips": "starting_chips", "daily_chips": "daily_chips", "timezone": "timezone",
            "rules": "default_rules", "bet": "default_bet", "turn_seconds": "default_turn_seconds",
            "language": "locale", "ai_seats": "ai_allowed", "channels": "table_channels",
            "account_days": "daily_min_account_days", "ranked_only": "ranked_only"}
"""Option name → the stored setting it changes."""



def settings_layout(server: "ServerSettings", history: list[db.SettingChange], lang: str, *,
                    saved: bool = False) -> ui.LayoutView:
    """The server's settings, which of them are the bot's defaults, and the last changes."""
    shown = []
    for name, value in _shown_settings(server, lang):
        chosen = _COLUMN_OF_FIELD.get(name, name) in server.chosen
        mark = "" if chosen else " · " + t(lang, "admin.default")
        shown.append(f"**{t(lang, f'setting.{name}')}:** {value}{mark}")
    lines = [t(lang, "admin.change_line", user=f"<@{change.user_id}>", setting=_setting_label(change.name, lang),
               when=f"<t:{int(change.created_at.timestamp())}:R>") for change in history]
    return panel(ACCENT, [text(t(lang, "admin.saved")) if saved else None,
                          heading(t(lang, "admin.title"), t(lang, "admin.applies")), text("\n".join(shown)),
                          block(t(lang, "admin.changes_title"), "\n".join(lines) or t(lang, "admin.no_changes"))])


def reset_layout(lang: str, message: str, *, request_id: int | None = None) -> ui.LayoutView:
    """A reset of every balance: ``message``, and Confirm / Cancel while ``request_id`` awaits an answer."""
    buttons = None
    if request_id is not None:
        buttons = row(button(admin_id("reset", request_id), t(lang, "button.confirm_reset"),
                             discord.ButtonStyle.danger),
                      button(admin_id("keep", request_id), t(lang, "button.cancel")))
    return panel(ACCENT, [text(message), buttons])


_COLUMN_OF_FIELD = {"language": "table_language", "channels": "table_channels", "ai_seats": "ai_allowed",
                    "account_days": "daily_min_account_days", "rules": "default_rules", "bet": "default_bet",
                    "turn_seconds": "default_turn_seconds"}
_FIELD_OF_COLUMN = {column: option for option, column in SETTING_COLUMNS.items()}


def _setting_label(column: str, lang: str) -> str:
    return t(lang, f"setting.{_FIELD_OF_COLUMN.get(column, column)}")


def _shown_settings(server: "ServerSettings", lang: str) -> list[tuple[str, str]]:
    on_off = {True: t(lang, "admin.on"), False: t(lang, "admin.off")}
    turn = (t(lang, "admin.preset_turn") if server.default_turn_seconds is None
            else t(lang, "count.seconds", count=server.default_turn_seconds))
    return [
        ("starting_chips", number(server.starting_chips, lang)),
        ("daily_chips", number(server.daily_chips, lang) if server.daily_chips else on_off[False]),
        ("timezone", server.timezone),
        ("rules", rules_title(server.default_rules, lang)),
        ("bet", number(server.default_bet, lang)),
        ("turn_seconds", turn),
        ("language", t(lang, f"choice.{server.table_language or 'auto'}")),
        ("ai_seats", on_off[server.ai_allowed]),
        ("channels", " ".join(f"<#{channel}>" for channel in server.table_channels) or t(lang, "admin.all")),
        ("account_days", t(lang, "count.days", count=server.daily_min_account_days)),
        ("ranked_only", on_off[server.ranked_only]),
    ]


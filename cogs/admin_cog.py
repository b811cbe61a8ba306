"""/tienlen-admin: each server's admins run their own tables and economy.

``/tienlen-admin settings`` shows the server's settings and the last changes,
or changes them (one option a setting); ``/tienlen-admin reset-balances``
sets every balance back to the starting chips after a confirmation.  Both
are for members who can manage the server: Discord shows them only to those
(``default_permissions``), and the bot checks again, since a server may give
the commands to others.  What a change applies to is
:mod:`runtime.server_settings`'s to say; the answer tells the admin.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str
from discord.ext import commands

import db
from cogs import inputs
from cogs.delivery.answers import edit_own, fail, guild_only, lang_of, reply, within
from cogs.layouts.admin import SETTING_COLUMNS, reset_layout, settings_layout
from i18n import number, t
from tienlen import RULESETS

if TYPE_CHECKING:
    from runtime.server_settings import ServerSettings
    from runtime.service import TableService

__all__ = ["AdminCog"]

CHANGES_SHOWN = 5
CONFIRM_FOR = datetime.timedelta(minutes=10)
"""How long a reset may be confirmed after it was asked for."""


def _ls(text: str, key: str) -> locale_str:
    return locale_str(text, key=key)


def _choices(values: tuple[str, ...], prefix: str) -> list[Choice[str]]:
    return [Choice(name=_ls(value, f"{prefix}.{value}"), value=value) for value in values]


async def _is_admin(interaction: discord.Interaction) -> bool:
    """Members who can manage the server; anybody else is told, privately."""
    if not await guild_only(interaction):
        return False
    if interaction.permissions is None or not interaction.permissions.manage_guild:
        await reply(interaction, t(lang_of(interaction), "error.admin_only"))
        return False
    return True


class AdminCog(commands.Cog, name="AdminCog"):
    admin = app_commands.Group(
        name="tienlen-admin", description=_ls("This server's Tiến lên settings (Manage Server)", "cmd.admin"),
        guild_only=True, default_permissions=discord.Permissions(manage_guild=True))

    def __init__(self, tables: "TableService") -> None:
        self.tables = tables

    # ------------------------------------------------------------- settings
    @admin.command(name="settings", description=_ls("Show or change this server's settings", "cmd.settings"))
    @app_commands.describe(
        starting_chips=_ls("Chips a new player starts with", "arg.starting_chips"),
        daily_chips=_ls("Chips of /chips daily (0: off)", "arg.daily_chips"),
        timezone=_ls("Time zone of a day, e.g. Asia/Ho_Chi_Minh", "arg.timezone"),
        rules=_ls("Rule set of new tables", "arg.default_rules"),
        bet=_ls("Bet of new tables", "arg.default_bet"),
        turn_seconds=_ls("Turn time of new tables (10–120)", "arg.default_turn"),
        language=_ls("Language of the table messages", "arg.language"),
        ai_seats=_ls("Whether AI players may sit", "arg.ai_seats"),
        allow_channel=_ls("Let tables be opened in this channel", "arg.allow_channel"),
        disallow_channel=_ls("No more tables in this channel", "arg.disallow_channel"),
        all_channels=_ls("Tables in every channel again", "arg.all_channels"),
        account_days=_ls("Minimum account age (days) for daily chips", "arg.account_days"),
        ranked_only=_ls("Only ranked tables move ratings", "arg.ranked_only"),
        restore=_ls("Set one setting back to the bot's default", "arg.restore"),
    )
    @app_commands.choices(rules=[Choice(name=_ls(name, f"choice.{name}"), value=name) for name in RULESETS],
                          language=_choices(inputs.LANGUAGE_CHOICES, "choice"),
                          restore=_choices(inputs.RESTORABLE, "setting"))
    async def settings(
        self,
        interaction: discord.Interaction,
        starting_chips: app_commands.Range[int, 1, 10_000_000] | None = None,
        daily_chips: app_commands.Range[int, 0, 1_000_000] | None = None,
        timezone: str | None = None,
        rules: str | None = None,
        bet: app_commands.Range[int, 1, 1_000_000] | None = None,
        turn_seconds: app_commands.Range[int, 10, 120] | None = None,
        language: str | None = None,
        ai_seats: bool | None = None,
        allow_channel: discord.TextChannel | None = None,
        disallow_channel: discord.TextChannel | None = None,
        all_channels: bool | None = None,
        account_days: app_commands.Range[int, 0, 3650] | None = None,
        ranked_only: bool | None = None,
        restore: str | None = None,
    ) -> None:
        if not await _is_admin(interaction):
            return
        guild_id = interaction.guild_id
        assert guild_id is not None
        try:
            server = await within(interaction, self.tables.server(guild_id))
            changes = self._changes(server, starting_chips=starting_chips, daily_chips=daily_chips,
                                    timezone=timezone, rules=rules, bet=bet, turn_seconds=turn_seconds,
                                    language=language, ai_seats=ai_seats, allow_channel=allow_channel,
                                    disallow_channel=disallow_channel, all_channels=all_channels,
                                    account_days=account_days, ranked_only=ranked_only, restore=restore)
            if changes:
                await within(interaction, db.change_guild_settings(self.tables.db, guild_id, interaction.user.id,
                                                                   changes))
                server = await self.tables.server(guild_id)
            history = await within(interaction, db.recent_setting_changes(self.tables.db, guild_id, CHANGES_SHOWN))
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, layout=settings_layout(server, history, lang_of(interaction), saved=bool(changes)))

    def _changes(self, server: "ServerSettings", **given: Any) -> dict[str, Any]:
        """The stored columns to change (None: back to the default), each option checked."""
        changes: dict[str, Any] = {}
        minimum_turn = self.tables.settings.min_turn_seconds
        if given["starting_chips"] is not None:
            changes["starting_chips"] = inputs.whole_in(given["starting_chips"], inputs.STARTING_CHIPS,
                                                        "bad_starting_chips")
        if given["daily_chips"] is not None:
            changes["daily_chips"] = inputs.whole_in(given["daily_chips"], inputs.DAILY_CHIPS, "bad_daily_chips")
        if given["timezone"] is not None:
            changes["timezone"] = inputs.timezone(given["timezone"])
        if given["rules"] is not None:
            changes["default_rules"] = inputs.rules_name(given["rules"])
        if given["bet"] is not None:
            changes["default_bet"] = inputs.bet(given["bet"])
        if given["turn_seconds"] is not None:
            changes["default_turn_seconds"] = inputs.turn_seconds(given["turn_seconds"], minimum_turn)
        if given["language"] is not None:
            chosen = inputs.language(given["language"])
            changes["locale"] = None if chosen == "auto" else chosen
        if given["ai_seats"] is not None:
            changes["ai_allowed"] = inputs.flag(given["ai_seats"])
        if given["ranked_only"] is not None:
            changes["ranked_only"] = inputs.flag(given["ranked_only"])
        if given["account_days"] is not None:
            changes["daily_min_account_days"] = inputs.whole_in(given["account_days"], inputs.ACCOUNT_DAYS,
                                                                "bad_account_days")
        channels = set(server.table_channels)
        if given["all_channels"]:
            channels = set()
        if given["allow_channel"] is not None:
            channels.add(given["allow_channel"].id)
        if given["disallow_channel"] is not None:
            channels.discard(given["disallow_channel"].id)
        if channels != set(server.table_channels):
            changes["table_channels"] = sorted(channels) or None
        restore = inputs.restorable(given["restore"])
        if restore is not None:
            changes[SETTING_COLUMNS[restore]] = None
        return changes

    @settings.autocomplete("timezone")
    async def timezone_autocomplete(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        """IANA time zones that contain what was typed."""
        from zoneinfo import available_timezones

        typed = current.lower().replace(" ", "_")
        names = sorted(name for name in available_timezones() if typed in name.lower())
        return [Choice(name=name, value=name) for name in names[:25]]

    # ------------------------------------------------------------- balances
    @admin.command(name="reset-balances", description=_ls("Reset every chip balance to the starting chips",
                                                          "cmd.reset_balances"))
    async def reset_balances(self, interaction: discord.Interaction) -> None:
        if not await _is_admin(interaction):
            return
        guild_id = interaction.guild_id
        assert guild_id is not None
        try:
            server = await within(interaction, self.tables.server(guild_id))
        except Exception as error:
            return await fail(interaction, error)
        lang = lang_of(interaction)
        await reply(interaction, layout=reset_layout(
            lang, t(lang, "admin.reset_confirm", amount=number(server.starting_chips, lang)), request_id=interaction.id))

    async def on_admin_button(self, interaction: discord.Interaction, action: str, request_id: int) -> None:
        """The confirmation of a reset: done once (its key is the request), by an admin, while it is fresh."""
        if not await _is_admin(interaction):
            return
        lang = lang_of(interaction)
        guild_id = interaction.guild_id
        assert guild_id is not None
        if action == "keep":
            return await edit_own(interaction, layout=reset_layout(lang, t(lang, "admin.reset_cancelled")))
        if discord.utils.utcnow() - discord.utils.snowflake_time(request_id) > CONFIRM_FOR:
            return await edit_own(interaction, layout=reset_layout(lang, t(lang, "admin.reset_expired")))
        try:
            server = await within(interaction, self.tables.server(guild_id), update=True)
            changed = await within(interaction, db.reset_balances(
                self.tables.db, guild_id, amount=server.starting_chips, key=f"reset:{guild_id}:{request_id}"),
                update=True)
        except Exception as error:
            return await fail(interaction, error)
        text = t(lang, "admin.reset_done", amount=number(server.starting_chips, lang), count=changed)
        await edit_own(interaction, layout=reset_layout(lang, text))

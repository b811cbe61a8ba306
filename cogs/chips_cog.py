"""/chips balance, /chips daily and /leaderboard: reading and claiming chips."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str
from discord.ext import commands

import db
from cogs import inputs
from cogs.delivery.answers import fail, guild_only, lang_of, reply, send_public, within
from cogs.layouts.stats import leaderboard_layout, rating_board_layout
from i18n import number, t

if TYPE_CHECKING:
    from runtime.service import TableService

__all__ = ["ChipsCog"]

BY_CHOICES = [
    Choice(name=locale_str("rating", key="choice.rating"), value="rating"),
    Choice(name=locale_str("chips", key="choice.chips"), value="chips"),
    Choice(name=locale_str("wins", key="choice.wins"), value="wins"),
    Choice(name=locale_str("win rate", key="choice.winrate"), value="winrate"),
]


class ChipsCog(commands.Cog, name="ChipsCog"):
    chips = app_commands.Group(name="chips", description=locale_str("Your chips in this server", key="cmd.chips"),
                               guild_only=True)

    def __init__(self, tables: "TableService") -> None:
        self.tables = tables
        self.db = tables.db

    @chips.command(name="balance", description=locale_str("Show a chip balance", key="cmd.balance"))
    @app_commands.describe(user=locale_str("Whose balance (default: you)", key="arg.user"))
    async def balance(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        if not await guild_only(interaction):
            return
        target = user or interaction.user
        lang = lang_of(interaction)
        try:
            if target.id == interaction.user.id:
                server = await within(interaction, self.tables.server(interaction.guild_id))  # type: ignore[arg-type]
                account = await within(interaction, db.get_or_create_account(
                    self.db, interaction.guild_id, target.id, starting_chips=server.starting_chips))  # type: ignore[arg-type]
            else:
                account = await within(interaction, db.get_account(self.db, interaction.guild_id, target.id))  # type: ignore[arg-type]
        except Exception as error:
            return await fail(interaction, error)
        if account is None:
            return await reply(interaction, t(lang, "chips.no_account", name=target.display_name))
        text = t(lang, "chips.balance", name=target.display_name, balance=number(account.balance, lang), count=account.balance)
        await reply(interaction, text)

    @chips.command(name="daily", description=locale_str("Claim your daily chips", key="cmd.daily"))
    async def daily(self, interaction: discord.Interaction) -> None:
        if not await guild_only(interaction):
            return
        lang = lang_of(interaction)
        try:
            server = await within(interaction, self.tables.server(interaction.guild_id))  # type: ignore[arg-type]
            if not server.daily_chips:
                raise inputs.InputError("daily_off")
            if account_days(interaction.user) < server.daily_min_account_days:
                raise inputs.InputError("account_too_new", days=server.daily_min_account_days)
            claim = await within(interaction, db.claim_daily(
                self.db, interaction.guild_id, interaction.user.id,  # type: ignore[arg-type]
                amount=server.daily_chips, starting_chips=server.starting_chips))
        except Exception as error:
            return await fail(interaction, error)
        text = t(lang, "chips.daily", amount=number(claim.amount, lang), balance=number(claim.balance, lang), count=claim.amount)
        await reply(interaction, text)

    @app_commands.command(name="leaderboard", description=locale_str("The best players of this server", key="cmd.leaderboard"))
    @app_commands.describe(by=locale_str("Rank by skill rating (default), chips, wins or win rate", key="arg.by"))
    @app_commands.choices(by=BY_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction, by: str | None = None) -> None:
        if not await guild_only(interaction):
            return
        lang = lang_of(interaction)
        try:
            order = inputs.board_order(by)
            if order == "rating":
                ratings = await within(interaction, db.rating_board(
                    self.db, interaction.guild_id, caller_id=interaction.user.id))  # type: ignore[arg-type]
                layout = rating_board_layout(ratings, lang, interaction.user.id)
            else:
                board = await within(interaction, db.leaderboard(
                    self.db, interaction.guild_id, by=order, caller_id=interaction.user.id))  # type: ignore[arg-type]
                layout = leaderboard_layout(board, order, lang, interaction.user.id)
        except Exception as error:
            return await fail(interaction, error)
        await send_public(interaction, view=layout)


def account_days(user: discord.abc.User, now: datetime.datetime | None = None) -> int:
    """How many whole days ago the Discord account was made (from its id)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return (now - user.created_at).days

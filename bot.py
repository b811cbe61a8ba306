"""Entry point of the Tiến lên Discord bot: ``python bot.py [--sync]``.

Reads settings from the environment / ``.env``, upgrades the database, loads
the cogs, restores unfinished tables and games, and connects to Discord.
Without a token it prints one line saying how to get one.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys

import discord
from discord.ext import commands

import db
from cogs.chips_cog import ChipsCog
from cogs.components import DYNAMIC_ITEMS, HAND_TEMPLATE, SELECT_TEMPLATE, TABLE_TEMPLATE
from cogs.messenger import Messenger
from cogs.replies import fail, lang_of, reply
from cogs.rules_pages import RULES_TEMPLATE, RulesButton
from cogs.tienlen_cog import TienLenCog
from cogs.translator import CatalogueTranslator
from i18n import t
from runtime.manager import TableManager
from runtime.settings import Settings

log = logging.getLogger("tienlen")

TOKEN_HELP = (
    "No Discord token: create an application at https://discord.com/developers/applications, "
    "add a Bot, copy its token into .env as DISCORD_TOKEN=... (see .env.example)."
)
_OUR_COMPONENTS = tuple(re.compile(template) for template in (TABLE_TEMPLATE, HAND_TEMPLATE, SELECT_TEMPLATE, RULES_TEMPLATE))


class TienLenBot(commands.AutoShardedBot):
    """The bot: one process, many tables, as many gateway shards as Discord
    recommends (one until about 2,500 servers); no privileged intents."""

    def __init__(self, settings: Settings, *, sync_globally: bool = False, **options) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None, **options)
        self.settings = settings
        self.sync_globally = sync_globally
        self.database: db.Database | None = None
        self.manager: TableManager | None = None
        self.messenger = Messenger(self, edit_interval=settings.table_edit_interval)

    async def setup_hook(self) -> None:
        self.database = db.Database.from_url(self.settings.database_url)
        await self.database.upgrade()
        self.manager = TableManager(self.database, self.settings, notifier=self.messenger)
        self.messenger.manager = self.manager
        await self.tree.set_translator(CatalogueTranslator())
        await self.add_cog(TienLenCog(self.manager, self.messenger))
        await self.add_cog(ChipsCog(self.database, self.settings))
        self.add_dynamic_items(*DYNAMIC_ITEMS, RulesButton)
        self.tree.on_error = self._on_command_error
        await self.manager.start()
        await self._sync_commands()
        await asyncio.to_thread(_warm_up_pictures)

    async def _sync_commands(self) -> None:
        if self.settings.dev_guild_id:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
            log.info("slash commands synced to the development guild")
        if self.sync_globally:
            await self.tree.sync()
            log.info("slash commands synced globally (may take up to an hour to appear)")

    async def on_ready(self) -> None:
        log.info("connected as %s to %d servers", self.user, len(self.guilds))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer clicks on components that are not ours (or no longer exist)."""
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str((interaction.data or {}).get("custom_id", ""))
        ours = any(pattern.fullmatch(custom_id) for pattern in _OUR_COMPONENTS)
        # discord.py only dispatches ids that are really on the message; answer the rest.
        if not (ours and _on_message(interaction.message, custom_id)) and not interaction.response.is_done():
            await reply(interaction, t(lang_of(interaction), "error.stale"))

    async def _on_command_error(self, interaction: discord.Interaction, error: discord.app_commands.AppCommandError) -> None:
        original = getattr(error, "original", error)
        if isinstance(error, discord.app_commands.CheckFailure):
            await reply(interaction, t(lang_of(interaction), "error.guild_only"))
            return
        await fail(interaction, original)

    async def close(self) -> None:
        if self.manager is not None:
            await self.manager.close()
        await self.messenger.close()
        if self.database is not None:
            await self.database.dispose()
        await super().close()


def _on_message(message: discord.Message | None, custom_id: str) -> bool:
    if message is None:
        return False
    stack = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        stack.extend(getattr(component, "children", []))
    return False


def _warm_up_pictures() -> None:
    from render import warm_up

    warm_up()


def point_at_fake_discord(settings: Settings) -> None:
    """Test only: talk to a fake Discord server instead of discord.com."""
    import yarl

    if settings.api_base:
        discord.http.Route.BASE = settings.api_base
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the Tiến lên Discord bot.")
    parser.add_argument("--sync", action="store_true", help="register the slash commands globally, then run")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # discord.py's own INFO lines (login, gateway) only when debugging.
    logging.getLogger("discord").setLevel(logging.DEBUG if settings.log_level == "DEBUG" else logging.WARNING)
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # this bot has no voice
    if not settings.discord_token:
        print(TOKEN_HELP, file=sys.stderr)
        return 2
    point_at_fake_discord(settings)
    bot = TienLenBot(settings, sync_globally=args.sync)
    try:
        bot.run(settings.discord_token, log_handler=None)
    except discord.LoginFailure:
        print("Discord refused DISCORD_TOKEN (invalid or reset): copy a fresh token from the Developer Portal into .env.",
              file=sys.stderr)
        return 2
    except db.SchemaError as error:
        print(f"Database not ready: {error}", file=sys.stderr)
        return 2
    except discord.PrivilegedIntentsRequired:
        print("Discord asked for a privileged intent; this bot needs none — check the Developer Portal.", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

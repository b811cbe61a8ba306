"""Entry point of the Tiến lên Discord bot: ``python bot.py [--sync] [--debug]``.

Reads settings from the environment / ``.env``, upgrades the database, claims
a cluster slot (PostgreSQL; a standby waits here for a free one), loads the
cogs, restores its slot's unfinished tables and games, and connects its
gateway shards.  Start-up problems (no token, a refused token, Discord out of
reach, an unusable database or cluster setting) are one line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import re
import sys

import aiohttp
import asyncpg
import discord
from discord.ext import commands

import db
from activity.entry_point import EntryPointTree
from activity.settings import ActivitySettings
from cogs.admin_cog import AdminCog
from cogs.chips_cog import ChipsCog
from cogs.cluster_routing import InteractionRouter
from cogs.delivery import Delivery
from cogs.delivery.limits import ChannelBudget, EditLimits, GlobalPace, rest_trace
from cogs.components import component_handlers
from cogs.custom_ids import TEMPLATES
from cogs.delivery.answers import fail, lang_of, reply
from cogs.tienlen_cog import TienLenCog
from cogs.translator import CatalogueTranslator
from i18n import t
from runtime import logs
from runtime.cluster import ClusterMember, ClusterMismatch, round_up_shards
from runtime.service import TableService
from runtime.metrics import Metrics
from runtime.settings import Settings
from tienlen.table import Phase

log = logging.getLogger("tienlen")

# Exit statuses, for a supervisor (deploy/tienlen-bot@.service): a restart cannot
# fix the configuration; it may fix a start-up failure (network, Discord, the
# database, cluster members mid-way through a settings change); a lost slot is
# expected to restart as a standby.
EXIT_CONFIG = 78  # EX_CONFIG of sysexits.h
EXIT_START_FAILED = 2
EXIT_LOST_SLOT = 3
_CONFIG_ERRORS = (discord.LoginFailure, discord.PrivilegedIntentsRequired)
"""Start-up failures that only a change to the configuration fixes."""

TOKEN_HELP = (
    "No Discord token: create an application at https://discord.com/developers/applications, "
    "add a Bot, copy its token into .env as DISCORD_TOKEN=... (see .env.example)."
)
_OUR_COMPONENTS = tuple(re.compile(template) for template in TEMPLATES)


class TienLenBot(commands.AutoShardedBot):
    """The bot: many tables, as many gateway shards as Discord recommends (one
    until about 2,500 servers); no privileged intents.  With PostgreSQL it is
    one member of a cluster: it runs the shards of the slot it holds."""

    def __init__(self, settings: Settings, *, sync_globally: bool = False, activity_settings: ActivitySettings | None = None,
                 **options) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        self.metrics = Metrics()
        self.router: InteractionRouter | None = None
        self.budget = ChannelBudget()
        self.edit_limits = EditLimits()
        logging.getLogger("discord.http").addFilter(self.edit_limits.filter)
        pace = GlobalPace(settings.rest_requests_per_second) if settings.rest_requests_per_second else None
        options.setdefault("http_trace", rest_trace(self.metrics, self.budget, self._first_answer, pace,
                                                    edit_limits=self.edit_limits))
        # A global sync keeps the Entry Point command that Discord gives an application with Activities.
        options.setdefault("tree_cls", EntryPointTree)
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None, **options)
        self.settings = settings
        self.sync_globally = sync_globally
        self.database: db.Database | None = None
        self.tables: TableService | None = None
        self.cluster: ClusterMember | None = None
        self.lost_slot = False
        self.delivery = Delivery(self, edit_interval=settings.table_edit_interval, budget=self.budget,
                                 edit_limits=self.edit_limits)
        self.activity_settings = activity_settings if activity_settings is not None else ActivitySettings.from_env()
        # The Activity's web server (activity/), when ACTIVITY_PORT is set (``activity`` is discord.py's presence).
        self.activity_server = None
        self._our_components = _OUR_COMPONENTS
        self.freeze_after_start = False
        """Set by the entry point (one bot a process; not for the many bots of one test process)."""
        self._freezing: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        self._watch()
        # Drawn and loaded while a standby waits, so a takeover (and the first AI move) does not pay for it.
        warming = asyncio.create_task(asyncio.to_thread(_warm_up), name="warm-up")
        if self.settings.metrics_port:
            await self.metrics.serve(self.settings.metrics_host, self.settings.metrics_port)
        self.database = db.Database.from_url(self.settings.database_url)
        self.database.observe = self.metrics.observe_transaction
        await self.database.upgrade()
        if not self.settings.uses_sqlite:
            try:
                await self._join_cluster()
            except (OSError, asyncpg.PostgresError) as error:
                raise db.SchemaError(f"cannot hold a cluster slot in PostgreSQL: {error}") from error
        owns = self.cluster.owns_guild if self.cluster is not None else None
        self.tables = TableService(self.database, self.settings, notifier=self.delivery, owns_guild=owns)
        self.delivery.tables = self.tables
        if self.activity_settings.enabled:
            await self._serve_activity()
        await self.tree.set_translator(CatalogueTranslator())
        game_cog = TienLenCog(self.tables, self.delivery)
        await self.add_cog(game_cog)
        await self.add_cog(ChipsCog(self.tables))
        admin_cog = AdminCog(self.tables)
        await self.add_cog(admin_cog)
        self.add_dynamic_items(*component_handlers(game_cog, admin_cog))
        self.tree.on_error = self._on_command_error
        self.router = InteractionRouter(self, self.tables, self.database, member=self.cluster, metrics=self.metrics)
        self.router.install()
        await self.tables.start(took_over=self.cluster is not None and self.cluster.took_over)
        await self._sync_commands()
        await warming
        if self.freeze_after_start:
            self._freezing = asyncio.create_task(self._freeze_once_ready(), name="gc-freeze")

    async def _freeze_once_ready(self) -> None:
        """What start-up made (modules, the models, restored tables) lives as long as the process: moved out of
        the collector's reach, so each full collection scans only what came since (about half as long).  Done
        once connected, so that the collection it takes first does not delay the gateway after a takeover."""
        await self.wait_until_ready()
        gc.collect()
        gc.freeze()

    async def _serve_activity(self) -> None:
        """The table as a Discord Activity (docs/activity.md): its web server, told of every committed
        change as the outbox publishes it, before and apart from the Discord layer's delivery."""
        from activity.discord_api import DiscordApi
        from activity.launch import OPEN_TEMPLATE, OpenActivity
        from activity.server import ActivityServer

        assert self.tables is not None
        api = DiscordApi(lambda: discord.http.Route.BASE, bot_token=self.settings.discord_token or "",
                         application_id=lambda: self.application_id,
                         client_secret=self.activity_settings.client_secret)
        owner_of = self.cluster.activity_url_of_guild if self.cluster is not None else None
        self.activity_server = ActivityServer(self.tables, self.activity_settings, api=api, owner_of=owner_of)
        hub, loop = self.activity_server.hub, asyncio.get_running_loop()
        # Right after the commit (in commit order, once the step is done), not behind Discord's REST.
        self.tables.outbox.watch(lambda snapshot: loop.call_soon(hub.table_changed, snapshot))
        await self.activity_server.start()
        if self.cluster is not None:  # clients of our tables that land on another process are carried here
            await self.cluster.publish_activity(self.activity_settings.peer_address(self.activity_server.port))
        self.delivery.table_messages.offers_activity = True  # "Open the table", answered by OpenActivity
        self.add_dynamic_items(OpenActivity)
        self._our_components = (*self._our_components, re.compile(OPEN_TEMPLATE))

    # ------------------------------------------------------------ the cluster
    async def _join_cluster(self) -> None:
        """Wait for a free slot (a standby waits here), then run its shards."""
        assert self.database is not None
        clusters = self.settings.clusters
        shard_count = self.settings.shard_count or self.shard_count
        if shard_count is None:
            recommended, _url, _limit = await self.http.get_bot_gateway()
            shard_count = round_up_shards(recommended, clusters)
        self.cluster = ClusterMember(self.database, clusters=clusters)
        self.cluster.on_lost = self._slot_lost
        await self.cluster.claim(shard_count)
        self.shard_count = shard_count
        self.shard_ids = self.cluster.shard_ids
        self.metrics.slot.set(self.cluster.slot)
        if self.cluster.took_over:
            self.metrics.takeovers.inc()

    def _first_answer(self, interaction_id: str) -> float | None:
        return self.router.answered(interaction_id) if self.router is not None else None

    def _slot_lost(self) -> None:
        """Another process may own our tables now: stop at once, write nothing."""
        self.lost_slot = True
        asyncio.get_running_loop().create_task(self.close())

    def _watch(self) -> None:
        """What /healthz and /metrics read."""
        self.metrics.healthy = self.serving
        self.metrics.open_tables.set_function(lambda: len(self.tables.tables) if self.tables else 0)
        self.metrics.games_running.set_function(
            lambda: sum(table.phase is Phase.PLAYING for table in self.tables.tables) if self.tables else 0)
        self.metrics.shards.labels("assigned").set_function(lambda: len(self.shard_ids or ()) if self.is_ready() else 0)
        self.metrics.shards.labels("connected").set_function(
            lambda: sum(not shard.is_closed() for shard in self.shards.values()))

    def serving(self) -> bool:
        """Holds its slot and every one of its shards is connected."""
        if self.is_closed() or not self.is_ready() or self.lost_slot:
            return False
        if self.cluster is not None and (self.cluster.lease is None or self.cluster.lost):
            return False
        shards = self.shards
        return bool(shards) and all(not shard.is_closed() for shard in shards.values())

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
        ours = any(pattern.fullmatch(custom_id) for pattern in self._our_components)
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
        if self.cluster is not None:
            self.cluster.stopping()
        if self.activity_server is not None:
            await self.activity_server.close()
        if self.tables is not None:
            await self.tables.close()
        await self.delivery.close()
        if self.cluster is not None:
            await self.cluster.close()
        if self.database is not None:
            await self.database.dispose()
        await self.metrics.close()
        await super().close()


def _on_message(message: discord.Message | None, custom_id: str) -> bool:
    if message is None:
        return False
    stack = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        stack.extend(getattr(component, "children", None) or [])
        accessory = getattr(component, "accessory", None)  # a Components V2 section's button
        if accessory is not None:
            stack.append(accessory)
    return False


def _warm_up() -> None:
    from render import warm_up
    from tienlen.ai.plus import load_models

    warm_up()
    load_models()  # ~0.1 s each, which the first `normal` move would otherwise spend on the event loop


def point_at_endpoints(settings: Settings) -> None:
    """REST through DISCORD_API_BASE (a shared rate-limit proxy) when set;
    tests point REST and the gateway at a fake Discord server."""
    import yarl

    api_base = settings.api_base or settings.discord_api_base
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the Tiến lên Discord bot.")
    parser.add_argument("--sync", action="store_true", help="register the slash commands globally, then run")
    parser.add_argument("--debug", action="store_true", help="log everything, with tracebacks of start-up failures")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    debug = args.debug or settings.log_level == "DEBUG"
    logging.basicConfig(level="DEBUG" if debug else settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logs.install()  # no card in a log line at INFO and above, whatever quotes one
    # discord.py's own INFO lines (login, gateway) only when debugging.
    logging.getLogger("discord").setLevel(logging.DEBUG if debug else logging.WARNING)
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # this bot has no voice
    if not settings.discord_token:
        print(TOKEN_HELP, file=sys.stderr)
        return EXIT_CONFIG
    activity_settings = ActivitySettings.from_env()
    problem = settings.cluster_problem() or activity_settings.problem()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_CONFIG
    point_at_endpoints(settings)
    bot = TienLenBot(settings, sync_globally=args.sync, activity_settings=activity_settings)
    bot.freeze_after_start = True
    try:
        bot.run(settings.discord_token, log_handler=None)
    except Exception as error:
        line = start_up_failure(error)
        if line is None:
            raise
        if debug:
            log.exception("start-up failed")
        print(line, file=sys.stderr)
        return EXIT_CONFIG if isinstance(error, _CONFIG_ERRORS) else EXIT_START_FAILED
    if bot.lost_slot:
        return EXIT_LOST_SLOT  # a supervisor restarts it; it comes back as a standby
    return 0


def start_up_failure(error: BaseException) -> str | None:
    """The one line an operator needs for a start-up failure (None: a bug)."""
    if isinstance(error, discord.LoginFailure):
        return "Discord refused DISCORD_TOKEN (invalid or reset): copy a fresh token from the Developer Portal into .env."
    if isinstance(error, db.SchemaError):
        return f"Database not ready: {error}"
    if isinstance(error, ClusterMismatch):
        return str(error)
    if isinstance(error, discord.PrivilegedIntentsRequired):
        return "Discord asked for a privileged intent; this bot needs none — check the Developer Portal."
    if isinstance(error, (aiohttp.ClientConnectionError, OSError, asyncio.TimeoutError)):
        return f"Cannot reach Discord ({discord.http.Route.BASE}): check the network, then start again."
    if isinstance(error, discord.DiscordServerError):
        return f"Discord is not answering properly ({error.status}); try again in a minute."
    return None


if __name__ == "__main__":
    sys.exit(main())

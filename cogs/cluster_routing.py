"""Interactions across a cluster: the Discord side of ``runtime.cluster``.

Discord delivers every direct-message interaction to shard 0, which the
holder of slot 0 runs; a table lives in the process of its guild's slot.  The
:class:`InteractionRouter` sits in front of discord.py's INTERACTION_CREATE
parser: an interaction for a table this process does not hold is forwarded
to the owning slot (through PostgreSQL, see :mod:`db.cluster`), which parses
it as if its own gateway had delivered it and answers with the interaction's
token.  If the owner does not take it in time (it is being replaced), the
forwarder answers, ephemerally and in the user's language, that the table
is moving.

The router also notes when each interaction arrived, so that the REST trace
(:func:`cogs.rest_budget.rest_trace`) can time the first answer for the metrics.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable

import discord

import db
from cogs.delivery.answers import lang_of, reply
from i18n import t
from runtime.metrics import Metrics

if TYPE_CHECKING:
    from runtime.cluster import ClusterMember
    from runtime.service import TableService

log = logging.getLogger(__name__)

__all__ = ["InteractionRouter", "table_channel_of"]

# Every component of a table carries its channel: tl:t:join:<channel>, tl:h:play:<channel>:<game>...
_TABLE_COMPONENT = re.compile(r"tl:[th]:[a-z]+:(?P<channel>[0-9]{1,20})(?::|$)")
_KEEP_ARRIVALS = 2048


def table_channel_of(data: dict[str, Any]) -> int | None:
    """The table channel a component interaction refers to, if any."""
    custom_id = str((data.get("data") or {}).get("custom_id") or "")
    match = _TABLE_COMPONENT.match(custom_id)
    return int(match.group("channel")) if match else None


class InteractionRouter:
    def __init__(
        self,
        bot: discord.Client,
        tables: "TableService",
        database: "db.Database",
        *,
        member: "ClusterMember | None" = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.bot = bot
        self.tables = tables
        self.database = database
        self.member = member
        self.metrics = metrics
        self._arrivals: OrderedDict[str, float] = OrderedDict()
        self._guilds: dict[int, int] = {}  # table channel -> guild (a channel never changes guild)
        self._parse: Callable[[dict[str, Any]], None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def install(self) -> None:
        """Put the router in front of discord.py's INTERACTION_CREATE parser.

        discord.py's gateway looks parsers up in this very dict for each event,
        so replacing the entry is enough (and survives reconnects)."""
        parsers = self.bot._connection.parsers
        self._parse = parsers["INTERACTION_CREATE"]
        parsers["INTERACTION_CREATE"] = self._on_interaction_create
        if self.member is not None:
            self.member.on_forwarded = self._on_forwarded

    # ------------------------------------------------------------ arrivals
    def _arrived(self, interaction_id: str) -> None:
        self._arrivals[interaction_id] = time.perf_counter()
        while len(self._arrivals) > _KEEP_ARRIVALS:
            self._arrivals.popitem(last=False)

    def answered(self, interaction_id: str) -> float | None:
        """Seconds from arrival to the first answer (once per interaction)."""
        started = self._arrivals.pop(interaction_id, None)
        return None if started is None else time.perf_counter() - started

    # ------------------------------------------------------------ routing
    def _on_interaction_create(self, data: dict[str, Any]) -> None:
        assert self._parse is not None
        self._arrived(str(data.get("id")))
        channel_id = self._foreign_table(data)
        if channel_id is None:
            self._parse(data)
            return
        task = asyncio.create_task(self._route(data, channel_id), name="route-interaction")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _foreign_table(self, data: dict[str, Any]) -> int | None:
        """The channel of a table that may live in another process (DMs only:
        a guild's interactions always reach the process that owns the guild)."""
        if self.member is None or self.member.clusters == 1 or data.get("guild_id"):
            return None
        channel_id = table_channel_of(data)
        if channel_id is None or self.tables.table(channel_id) is not None:
            return None
        return channel_id

    async def _route(self, data: dict[str, Any], channel_id: int) -> None:
        assert self._parse is not None and self.member is not None
        try:
            guild_id = self._guilds.get(channel_id)
            if guild_id is None:
                guild_id = await db.table_guild(self.database, channel_id)
                if guild_id is not None:
                    self._guilds[channel_id] = guild_id
            if guild_id is None or self.member.owns_guild(guild_id):
                self._parse(data)  # no such table, or ours: answered here as usual
                return
            if await self.member.forward(self.member.slot_of_guild(guild_id), data):
                self._count_forward("taken")
                return
            self._count_forward("not_taken")
            log.warning("slot %d did not take a forwarded interaction in time",
                        self.member.slot_of_guild(guild_id))
        except Exception:
            log.exception("could not forward an interaction")
        await self._answer_moving(data)

    def _count_forward(self, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.forwarded.labels(outcome).inc()

    async def _answer_moving(self, data: dict[str, Any]) -> None:
        interaction = discord.Interaction(data=data, state=self.bot._connection)
        try:
            await reply(interaction, t(lang_of(interaction), "error.table_moving"))
        except discord.HTTPException:
            log.warning("could not tell a player that their table is moving")

    async def _on_forwarded(self, data: dict[str, Any]) -> None:
        assert self._parse is not None
        self._arrived(str(data.get("id")))
        self._parse(data)

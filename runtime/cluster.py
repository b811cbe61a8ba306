"""This process's place in a cluster of bot processes that share one token.

Every process runs the same ``python bot.py``.  With PostgreSQL, a process
waits until it can claim a free slot ``0..CLUSTERS-1`` (a standby retries
every ``retry_seconds``), then runs the gateway shards ``shard % CLUSTERS ==
slot`` and owns the tables of the guilds on those shards.  If it loses the
slot (its database session died or timed out), it must stop at once: the
epoch fence in :mod:`db` already refuses its writes.

No discord here: the Discord side (which interactions to forward) lives in
``cogs/cluster_routing.py``.

>>> shard_of_guild(81_384_788_765_712_384, 4)
2
>>> shards_of_slot(1, clusters=2, shard_count=6)
[1, 3, 5]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

import db
from db.cluster import ClusterMismatch, LostSlot, SlotLease, activity_url, take_forwarded

log = logging.getLogger(__name__)

__all__ = ["ClusterMember", "ClusterMismatch", "LostSlot", "shard_of_guild", "shards_of_slot", "round_up_shards"]

# The forwarder answers the user itself ("the table is moving") when the
# owner has not taken a forwarded interaction within ACK_TIMEOUT; the owner
# drops one older than STALE_AFTER, so the two can never both answer.
ACK_TIMEOUT = 1.5
STALE_AFTER = 1.0


def shard_of_guild(guild_id: int, shard_count: int) -> int:
    """Discord's routing of a guild's events to a gateway shard."""
    return (guild_id >> 22) % shard_count


def shards_of_slot(slot: int, *, clusters: int, shard_count: int) -> list[int]:
    return [shard for shard in range(shard_count) if shard % clusters == slot]


def round_up_shards(recommended: int, clusters: int) -> int:
    """Discord's recommended shard count, rounded up so every slot gets as many."""
    recommended = max(1, recommended)
    return -(-recommended // clusters) * clusters


class ClusterMember:
    """Claims a slot, keeps it alive, and carries interactions between slots.

    ``on_forwarded(payload)`` is called (in this process's event loop) for each
    interaction another process forwarded to this slot; ``on_lost()`` once, if
    the slot is lost.
    """

    def __init__(
        self,
        database: "db.Database",
        *,
        clusters: int,
        retry_seconds: float = 2.0,
        heartbeat_seconds: float = 1.0,
        holder: str | None = None,
    ) -> None:
        self.database = database
        self.clusters = clusters
        self.retry_seconds = retry_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self.holder = holder or f"{socket.gethostname()}:{os.getpid()}"
        self.lease: SlotLease | None = None
        self.shard_count = 0
        self.took_over = False
        """Whether the slot had been held before (a takeover, not a first start)."""
        self.on_forwarded: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        self.on_lost: Callable[[], None] | None = None
        self._acks: dict[str, asyncio.Future[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._lost = False

    # ------------------------------------------------------------ claiming
    @property
    def slot(self) -> int:
        assert self.lease is not None, "no slot claimed yet"
        return self.lease.slot

    @property
    def shard_ids(self) -> list[int]:
        return shards_of_slot(self.slot, clusters=self.clusters, shard_count=self.shard_count)

    async def claim(self, shard_count: int) -> SlotLease:
        """Wait until a slot is free and take it; then keep it alive."""
        self.shard_count = shard_count
        announced = False
        while True:
            for slot in range(self.clusters):
                lease = await SlotLease.try_claim(self.database, slot=slot, holder=self.holder,
                                                  shard_count=shard_count, clusters=self.clusters)
                if lease is not None:
                    await self._hold(lease)
                    return lease
            if not announced:
                log.info("standby: waiting for a free slot")
                announced = True
            await asyncio.sleep(self.retry_seconds)

    async def _hold(self, lease: SlotLease) -> None:
        self.lease = lease
        self.took_over = lease.epoch > 1
        self.database.fence = lease.fence
        lease.on_termination(self._lose)
        await lease.listen(self._received, self._acked)
        self._tasks.append(asyncio.create_task(self._heartbeat(), name="cluster-heartbeat"))
        log.info("cluster slot %d/%d: shards %s", lease.slot, self.clusters, self.shard_ids)

    async def _heartbeat(self) -> None:
        assert self.lease is not None
        while not self._lost:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                await self.lease.heartbeat()
            except LostSlot as error:
                log.error("lost %s", error)
                self._lose()
            except Exception:
                log.exception("cluster heartbeat failed")
                self._lose()

    def _lose(self) -> None:
        if self._lost:
            return
        self._lost = True
        log.error("cluster slot %s lost: stopping this process (a standby takes over)",
                  self.lease.slot if self.lease else "?")
        if self.on_lost is not None:
            self.on_lost()

    @property
    def lost(self) -> bool:
        return self._lost

    # ------------------------------------------------------------ ownership
    def slot_of_guild(self, guild_id: int) -> int:
        return shard_of_guild(guild_id, self.shard_count) % self.clusters

    def owns_guild(self, guild_id: int) -> bool:
        return self.lease is not None and self.slot_of_guild(guild_id) == self.slot

    # ------------------------------------------------------------ the Activity
    async def publish_activity(self, url: str) -> None:
        """Tell the other processes where this slot's Activity clients should be carried."""
        assert self.lease is not None
        await self.lease.publish_activity(url)

    async def activity_url_of_guild(self, guild_id: int) -> str | None:
        """Where the owner of ``guild_id``'s tables serves the Activity (None: not published)."""
        return await activity_url(self.database, self.slot_of_guild(guild_id))

    # ------------------------------------------------------------ forwarding
    async def forward(self, slot: int, payload: dict[str, Any]) -> bool:
        """Hand ``payload`` (a raw interaction) to ``slot``'s holder; True once
        it confirms within ACK_TIMEOUT, False if nobody took it."""
        assert self.lease is not None
        key = str(payload["id"])
        waiter = asyncio.get_running_loop().create_future()
        self._acks[key] = waiter
        try:
            await self.lease.forward(self.database, slot, {**payload, "_forwarded_at": time.time()})
            await asyncio.wait_for(waiter, ACK_TIMEOUT)
            return True
        except asyncio.TimeoutError:
            return False
        finally:
            self._acks.pop(key, None)

    def _acked(self, interaction_id: str) -> None:
        waiter = self._acks.get(interaction_id)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _received(self, body: str) -> None:
        self._tasks = [task for task in self._tasks if not task.done()]
        self._tasks.append(asyncio.create_task(self._take(body), name="cluster-forwarded"))

    async def _take(self, body: str) -> None:
        assert self.lease is not None
        try:
            payload = json.loads(body)
            if set(payload) == {"row"}:
                payload = await take_forwarded(self.database, int(payload["row"]))
                if payload is None:
                    return
            forwarded_at = float(payload.pop("_forwarded_at", 0.0))
            if time.time() - forwarded_at > STALE_AFTER:
                log.warning("dropped a forwarded interaction that arrived too late (the forwarder answered it)")
                return
            if self.on_forwarded is None:
                return  # not ready to answer yet: unacknowledged, the forwarder tells the player to retry
            await self.lease.acknowledge(str(payload["id"]))
            await self.on_forwarded(payload)
        except Exception:
            log.exception("could not handle a forwarded interaction")

    # ------------------------------------------------------------ shutdown
    def stopping(self) -> None:
        """A clean stop has begun: the session ending now is not a lost slot."""
        self._lost = True

    async def close(self) -> None:
        self.stopping()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.lease is not None:
            await self.lease.release()

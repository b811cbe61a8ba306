"""Cluster coordination in PostgreSQL: slot leases, epochs and forwarding.

Several bot processes for one token share one PostgreSQL, the only
coordinator.  A process holds a *slot* while its dedicated session holds the
advisory lock ``(namespace, slot)``: when the process dies, PostgreSQL ends
the session and the lock goes with it, so a standby can take the slot.  Each
claim bumps the slot's epoch in ``cluster_slots``; :class:`db.Database` checks
it in every write transaction (see :class:`db.Fence`).

The same session LISTENs on the slot's channel: the process holding shard 0
forwards direct-message interactions for another slot's tables with NOTIFY
(the raw JSON, or the id of a ``forwarded_interactions`` row when it is too
big for NOTIFY), and owners acknowledge on a shared channel.

Names (lock namespace, channels) include the current schema, so tests in
separate schemas of one database never see each other.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

import asyncpg
from sqlalchemy import delete, insert, text
from sqlalchemy.engine import make_url

from db.coltypes import utcnow
from db.database import Database, Fence
from db.models import ForwardedInteractionRow

log = logging.getLogger(__name__)

__all__ = ["SlotLease", "LostSlot", "ClusterMismatch", "take_forwarded", "slot_holders", "activity_url",
           "NOTIFY_LIMIT"]

# PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more.
NOTIFY_LIMIT = 7900
# A paused or cut-off holder loses its session (and so its slot) after this
# much silence; its heartbeat runs several times within it.
IDLE_SESSION_TIMEOUT_MS = 6000
HEARTBEAT_TIMEOUT = 3.0
LATE_REPLY_GRACE = 0.5
"""After HEARTBEAT_TIMEOUT, how long the event loop gets to read a reply that
came while it was stalled (a busy loop looks like a silent server from here)."""

_NAMESPACE = "SELECT hashtext('tienlen-cluster:' || current_schema())"
_CLAIM = """
INSERT INTO cluster_slots (slot, epoch, holder, shard_count, claimed_at)
VALUES ($1, 1, $2, $3, $4)
ON CONFLICT (slot) DO UPDATE
   SET epoch = cluster_slots.epoch + 1, holder = EXCLUDED.holder,
       shard_count = EXCLUDED.shard_count, claimed_at = EXCLUDED.claimed_at, activity_url = NULL
RETURNING epoch
"""

# Slots other than ours whose advisory lock a live session holds right now
# (a two-key advisory lock shows its first key as classid, an unsigned oid).
_LIVE_PEERS = """
SELECT s.slot, s.shard_count FROM cluster_slots s
WHERE s.slot <> $2 AND EXISTS (
    SELECT 1 FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
      AND l.classid::int8 = ($1::int8 & 4294967295) AND l.objid::int8 = s.slot)
ORDER BY s.slot
"""


class ClusterMismatch(Exception):
    """Live processes of the cluster run with another CLUSTERS or SHARD_COUNT:
    they would disagree on which process owns a guild.  The message is the one
    line an operator needs."""


class LostSlot(Exception):
    """The session that held this process's slot is gone (killed, timed out,
    or the database is unreachable): another process may own the slot now."""


def slot_channel(namespace: int, slot: int) -> str:
    return f"tl_{namespace & 0xFFFFFFFF:x}_slot_{slot}"


def ack_channel(namespace: int) -> str:
    return f"tl_{namespace & 0xFFFFFFFF:x}_ack"


def _asyncpg_args(database: Database) -> tuple[str, dict[str, str]]:
    url = make_url(database.url)
    if url.get_backend_name() != "postgresql":
        raise ValueError("cluster slots need PostgreSQL")
    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    settings = dict(database.connect_args.get("server_settings") or {})
    return dsn, settings


class SlotLease:
    """A dedicated PostgreSQL session that holds one slot's advisory lock.

    >>> lease = await SlotLease.try_claim(database, slot=1, holder="host:1234", shard_count=4)
    >>> database.fence = lease.fence        # every write now checks the epoch
    """

    def __init__(self, connection: asyncpg.Connection, namespace: int, fence: Fence) -> None:
        self._connection = connection
        self._busy = asyncio.Lock()  # asyncpg runs one statement at a time per connection
        self.namespace = namespace
        self.fence = fence

    @property
    def slot(self) -> int:
        return self.fence.slot

    @property
    def epoch(self) -> int:
        return self.fence.epoch

    @property
    def backend_pid(self) -> int:
        """The PostgreSQL server process of the lease's session."""
        return self._connection.get_server_pid()

    @classmethod
    async def try_claim(cls, database: Database, *, slot: int, holder: str, shard_count: int,
                        clusters: int | None = None) -> "SlotLease | None":
        """Take ``slot`` if no live session holds it; bump and return its epoch.

        With ``clusters``, first check that every other live slot holder runs
        the same ``shard_count`` and a slot below ``clusters``; if not, give the
        slot back and raise :class:`ClusterMismatch` (two processes with
        different settings would each think they own some guilds).
        """
        dsn, settings = _asyncpg_args(database)
        settings["idle_session_timeout"] = str(IDLE_SESSION_TIMEOUT_MS)
        settings["application_name"] = f"tienlen slot {slot}"[:63]
        connection = await asyncpg.connect(dsn, server_settings=settings)
        try:
            namespace = await connection.fetchval(_NAMESPACE)
            if not await connection.fetchval("SELECT pg_try_advisory_lock($1, $2)", namespace, slot):
                await connection.close()
                return None
            if clusters is not None:
                problem = _mismatch(await connection.fetch(_LIVE_PEERS, namespace, slot), shard_count, clusters)
                if problem:
                    raise ClusterMismatch(problem)
            # The epoch is bumped only once the lock is ours; the UPDATE waits for
            # fenced writes of the previous holder that are still in flight.
            epoch = await connection.fetchval(_CLAIM, slot, holder[:200], shard_count, utcnow())
        except BaseException:
            connection.terminate()
            raise
        return cls(connection, namespace, Fence(slot, int(epoch)))

    async def heartbeat(self) -> None:
        """Prove the session (and so the lock) is still alive, or raise LostSlot.

        Only a server silent for HEARTBEAT_TIMEOUT while this process runs
        loses the slot: when the timeout fires late because the event loop was
        stalled, a reply that arrived meanwhile is read first (LATE_REPLY_GRACE).
        A session PostgreSQL ended during a long stall still shows as lost:
        the connection is closed when it is next read.
        """
        try:
            async with self._busy:
                query = asyncio.ensure_future(self._connection.fetchval("SELECT 1"))
                try:
                    done, _ = await asyncio.wait({query}, timeout=HEARTBEAT_TIMEOUT)
                    if not done:
                        done, _ = await asyncio.wait({query}, timeout=LATE_REPLY_GRACE)
                    if not done:
                        raise asyncio.TimeoutError(f"no answer to the heartbeat in {HEARTBEAT_TIMEOUT:g} s")
                    query.result()
                finally:
                    if not query.done():
                        query.cancel()
        except Exception as error:  # asyncpg has several kinds (a paused process sees odd states): all mean lost
            raise LostSlot(f"slot {self.slot}: {type(error).__name__}: {error}") from error

    async def listen(self, on_forwarded: Callable[[str], None], on_ack: Callable[[str], None]) -> None:
        """Receive interactions forwarded to this slot, and acknowledgements."""

        def forwarded(_connection: Any, _pid: int, _channel: str, payload: str) -> None:
            on_forwarded(payload)

        def acked(_connection: Any, _pid: int, _channel: str, payload: str) -> None:
            on_ack(payload)

        async with self._busy:
            await self._connection.add_listener(slot_channel(self.namespace, self.slot), forwarded)
            await self._connection.add_listener(ack_channel(self.namespace), acked)

    async def forward(self, database: Database, slot: int, payload: dict[str, Any]) -> None:
        """Send ``payload`` to the process holding ``slot`` (NOTIFY, or a row id
        when it is too big for NOTIFY)."""
        body = json.dumps(payload, separators=(",", ":"))
        if len(body.encode()) >= NOTIFY_LIMIT:
            async with database.engine.begin() as connection:
                row_id = await connection.scalar(
                    insert(ForwardedInteractionRow).values(payload=payload, created_at=utcnow())
                    .returning(ForwardedInteractionRow.id)
                )
            body = json.dumps({"row": row_id})
        await self._notify(slot_channel(self.namespace, slot), body)

    async def acknowledge(self, interaction_id: str) -> None:
        """Tell the forwarder that this slot's holder took the interaction."""
        await self._notify(ack_channel(self.namespace), interaction_id)

    async def _notify(self, channel: str, body: str) -> None:
        # On the lease's own session: one round trip, no pool checkout; every
        # millisecond counts against Discord's 3 s.
        async with self._busy:
            await self._connection.execute("SELECT pg_notify($1, $2)", channel, body)

    async def publish_activity(self, url: str) -> None:
        """Say where this holder serves the Activity (only while its epoch is the slot's)."""
        async with self._busy:
            await self._connection.execute(
                "UPDATE cluster_slots SET activity_url = $1 WHERE slot = $2 AND epoch = $3",
                url[:300], self.slot, self.epoch)

    def on_termination(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` as soon as the session's connection is lost."""
        self._connection.add_termination_listener(lambda _connection: callback())

    async def release(self) -> None:
        """Give the slot up (a clean stop): closing the session unlocks it."""
        try:
            await asyncio.wait_for(self._connection.close(), 5)
        except Exception:
            self._connection.terminate()


def _mismatch(peers: list[Any], shard_count: int, clusters: int) -> str | None:
    """Why live peers (slot, shard_count) cannot share a cluster with us, or None."""
    for peer_slot, peer_shards in peers:
        if peer_slot >= clusters:
            return (f"CLUSTERS={clusters} here, but a running process holds slot {peer_slot}: "
                    "give every process of the cluster the same CLUSTERS and SHARD_COUNT.")
        if peer_shards != shard_count:
            return (f"SHARD_COUNT={shard_count} here, but the process holding slot {peer_slot} runs "
                    f"{peer_shards} shards: give every process of the cluster the same CLUSTERS and SHARD_COUNT.")
    return None


async def take_forwarded(database: Database, row_id: int) -> dict[str, Any] | None:
    """The oversized payload stored under ``row_id`` (deleted as it is read)."""
    async with database.engine.begin() as connection:
        return await connection.scalar(
            delete(ForwardedInteractionRow).where(ForwardedInteractionRow.id == row_id)
            .returning(ForwardedInteractionRow.payload)
        )


async def activity_url(database: Database, slot: int) -> str | None:
    """Where ``slot``'s holder serves the Activity, as it published it since its claim (None: not yet)."""
    async with database.engine.connect() as connection:
        return await connection.scalar(text("SELECT activity_url FROM cluster_slots WHERE slot = :slot"),
                                       {"slot": slot})


async def slot_holders(database: Database) -> dict[int, tuple[int, str | None]]:
    """slot -> (epoch, holder) as stored (the holder may have died since)."""
    async with database.engine.connect() as connection:
        rows = await connection.execute(text("SELECT slot, epoch, holder FROM cluster_slots ORDER BY slot"))
        return {int(slot): (int(epoch), holder) for slot, epoch, holder in rows}

"""Cluster slots on PostgreSQL: one holder per slot, epochs that fence stale
writers, losing a slot when the session dies, and forwarding by NOTIFY."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest

import db as dblayer
from db import Database, Fence, StaleEpoch
from db.cluster import (NOTIFY_LIMIT, ClusterMismatch, LostSlot, SlotLease, activity_url, slot_holders,
                        take_forwarded)
from tests.db.dbtest_support import CHANNEL, GUILD


@pytest.fixture
def pg(backend, db: Database) -> Database:
    if backend.name != "postgresql":
        pytest.skip("cluster slots need PostgreSQL")
    return db


async def _claim(database: Database, slot: int = 0, holder: str = "test") -> SlotLease | None:
    return await SlotLease.try_claim(database, slot=slot, holder=holder, shard_count=2)


async def test_a_slot_has_one_holder_and_each_claim_bumps_the_epoch(pg: Database) -> None:
    first = await _claim(pg, holder="first")
    assert first is not None and first.fence == Fence(0, 1)
    assert await _claim(pg, holder="second") is None  # held: a standby must wait
    other_slot = await _claim(pg, slot=1)
    assert other_slot is not None and other_slot.fence == Fence(1, 1)
    await first.release()
    again = await _claim(pg, holder="third")
    assert again is not None and again.fence == Fence(0, 2)
    assert (await slot_holders(pg))[0] == (2, "third")
    await again.release()
    await other_slot.release()


async def test_a_holder_publishes_its_activity_address_and_a_new_claim_forgets_it(pg: Database) -> None:
    """The address is the holder's own: a takeover must not send clients to the process that died."""
    first = await _claim(pg, holder="first")
    assert first is not None and await activity_url(pg, 0) is None
    await first.publish_activity("http://10.0.0.1:8123")
    assert await activity_url(pg, 0) == "http://10.0.0.1:8123"
    first._connection.terminate()  # the holder dies
    second = None
    for _ in range(50):
        second = await _claim(pg, holder="second")
        if second is not None:
            break
        await asyncio.sleep(0.1)
    assert second is not None and second.epoch == 2
    assert await activity_url(pg, 0) is None  # until the new holder publishes its own
    await second.publish_activity("http://10.0.0.2:8123")
    assert await activity_url(pg, 0) == "http://10.0.0.2:8123" and await activity_url(pg, 1) is None
    await second.release()


async def test_a_claim_with_other_cluster_settings_than_a_live_holder_is_refused(pg: Database) -> None:
    """Processes that disagree on SHARD_COUNT or CLUSTERS would disagree on who
    owns a guild: the newcomer is refused in one line, the slot stays free."""
    holder = await SlotLease.try_claim(pg, slot=1, holder="first", shard_count=4, clusters=2)
    assert holder is not None
    with pytest.raises(ClusterMismatch, match="SHARD_COUNT=6 here, but the process holding slot 1 runs 4 shards"):
        await SlotLease.try_claim(pg, slot=0, holder="odd", shard_count=6, clusters=2)
    with pytest.raises(ClusterMismatch, match="CLUSTERS=1 here, but a running process holds slot 1"):
        await SlotLease.try_claim(pg, slot=0, holder="odd", shard_count=4, clusters=1)
    assert 0 not in await slot_holders(pg)  # nothing was written for the refused claims
    same = await SlotLease.try_claim(pg, slot=0, holder="second", shard_count=4, clusters=2)
    assert same is not None and same.fence == Fence(0, 1)
    await asyncio.gather(holder.release(), same.release())
    # Slots whose holders have gone do not count, whatever they ran.
    alone = await SlotLease.try_claim(pg, slot=0, holder="third", shard_count=8, clusters=1)
    assert alone is not None and alone.fence == Fence(0, 2)
    await alone.release()


async def test_a_write_with_a_stale_epoch_is_refused(pg: Database, backend) -> None:
    old = await _claim(pg)
    assert old is not None
    pg.fence = old.fence
    await dblayer.save_table(pg, CHANNEL, GUILD, {"v": 1})  # the holder writes

    await old.release()  # the old holder lost its session (paused, partitioned)...
    newcomer = backend.open()
    lease = await _claim(newcomer)  # ...and a standby took the slot
    assert lease is not None and lease.epoch == 2
    newcomer.fence = lease.fence

    with pytest.raises(StaleEpoch):
        await dblayer.save_table(pg, CHANNEL, GUILD, {"v": "stale"})
    with pytest.raises(StaleEpoch):
        await dblayer.get_or_create_account(pg, GUILD, 5, starting_chips=100)
    await dblayer.save_table(newcomer, CHANNEL, GUILD, {"v": 2})
    [stored] = await dblayer.load_tables(pg)
    assert stored.state == {"v": 2}
    await lease.release()
    await newcomer.dispose()


async def test_a_claim_waits_for_a_fenced_write_in_flight(pg: Database, backend) -> None:
    """The epoch check share-locks the slot row: a new claim cannot slip in
    between the check and the commit of the old holder's write."""
    old = await _claim(pg)
    assert old is not None
    pg.fence = old.fence
    await old.release()
    newcomer = backend.open()
    async with pg.write():  # the old holder is mid-write when the standby claims
        claim = asyncio.create_task(_claim(newcomer))
        await asyncio.sleep(0.3)
        assert not claim.done()
    lease = await claim
    assert lease is not None and lease.epoch == 2
    await lease.release()
    await newcomer.dispose()


async def test_the_holder_learns_it_lost_its_session(pg: Database) -> None:
    lease = await _claim(pg)
    assert lease is not None
    await lease.heartbeat()
    admin = await asyncpg.connect("postgresql://postgres@127.0.0.1:5432/test")
    try:
        await admin.execute("SELECT pg_terminate_backend($1)", lease.backend_pid)
    finally:
        await admin.close()
    # The heartbeat is what notices (asyncpg's termination callback may come
    # only later, when the connection next reads).
    with pytest.raises(LostSlot):
        await lease.heartbeat()
    # The lock went with the session: the slot is free again.
    again = await _claim(pg)
    assert again is not None and again.epoch == 2
    await again.release()


async def test_a_stalled_event_loop_does_not_lose_a_live_session(pg: Database, monkeypatch) -> None:
    import time

    import db.cluster

    monkeypatch.setattr(db.cluster, "HEARTBEAT_TIMEOUT", 0.2)
    lease = await _claim(pg)
    assert lease is not None
    try:
        heartbeat = asyncio.create_task(lease.heartbeat())
        # The loop stalls past the heartbeat's timeout (a long render, a GC pause) right after the
        # heartbeat has started its clock and before its query is sent: the server is not silent,
        # it has not been asked yet.
        asyncio.get_running_loop().call_soon(time.sleep, 0.6)
        await heartbeat  # no LostSlot: the answer after the stall counts
        await lease.heartbeat()
    finally:
        await lease.release()


async def test_forwarded_interactions_reach_the_slot_holder_small_and_large(pg: Database) -> None:
    lease = await _claim(pg, slot=1)
    assert lease is not None
    received: asyncio.Queue[str] = asyncio.Queue()
    acks: asyncio.Queue[str] = asyncio.Queue()
    await lease.listen(received.put_nowait, acks.put_nowait)

    await lease.forward(pg, 1, {"id": "1", "data": {"custom_id": "tl:h:pass:1:2"}})
    small = json.loads(await asyncio.wait_for(received.get(), 5))
    assert small["data"]["custom_id"] == "tl:h:pass:1:2"

    big = {"id": "2", "blob": "x" * (NOTIFY_LIMIT + 100)}
    await lease.forward(pg, 1, big)
    pointer = json.loads(await asyncio.wait_for(received.get(), 5))
    assert set(pointer) == {"row"}
    assert await take_forwarded(pg, pointer["row"]) == big
    assert await take_forwarded(pg, pointer["row"]) is None  # taken once

    await lease.acknowledge("1")
    assert await asyncio.wait_for(acks.get(), 5) == "1"
    await lease.release()

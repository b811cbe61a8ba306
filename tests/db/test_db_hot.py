"""db.hot, the hot paths' transaction runner: its statements read and write
exactly what SQLAlchemy's own execution would, errors and cancellations
leave nothing behind, the cluster fence it checks as it begins refuses and
locks exactly as Database.write's does, and dead PostgreSQL connections are
replaced (at checkout without pool_pre_ping's round trips, or by running the
transaction again) instead of failing the caller."""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import logging
import warnings

import asyncpg
import pytest
from sqlalchemy import Integer, bindparam, exc, func, insert, literal, select

import db as dblayer
import db.connect
import db.database
import db.hot as db_hot
from db import Database, Fence, SeatPayment, SeatResult, StaleEpoch
from db.cluster import SlotLease
from db.games import _insert_while_running
from db.hot import HotConnection, HotStatement
from db.models import ClusterSlotRow, GameRow, LedgerRow
from db.settlement import _INSERT_LEDGER, _LOCK_GAME
from tests.db.conftest import PG_URL, _asyncpg_dsn
from tests.db.dbtest_support import GUILD, human

RESULTS = {0: SeatResult(0, True), 1: SeatResult(1, False)}


@pytest.fixture
def pg(backend, db: Database) -> Database:
    if backend.name != "postgresql":
        pytest.skip("PostgreSQL only")
    return db


def pay(payer: int, payee: int, units: int) -> SeatPayment:
    return SeatPayment(payer=payer, payee=payee, units=units, reason="x")


def ledger_entry(game_id: int, key: str, **changes) -> dict:
    return {
        "guild_id": GUILD,
        "user_id": 1,
        "amount": 0,
        "balance_after": 0,
        "reason": "admin_grant",
        "game_id": game_id,
        "idempotency_key": key,
        "created_at": dt.datetime.now(dt.UTC),
        "details": None,
    } | changes


# ------------------------------------------------- same as SQLAlchemy's own


async def test_hot_statements_read_what_sqlalchemy_reads(db: Database, make_accounts, make_game) -> None:
    """JSON, aware datetimes and NULLs come back through the statement's own
    type processing, as from Connection.execute."""
    await make_accounts(1, 2)
    settled_game = await make_game([human(1), human(2)], bet=5)
    await dblayer.settle_game(db, settled_game, payments=[pay(1, 0, 1)], results=RESULTS, bet=5)
    running_game = await make_game([human(1), human(2)], bet=5)  # ended_at, settled_at NULL
    games = (settled_game, running_game)

    async def read(connection: HotConnection) -> list:
        return [await connection.first(_LOCK_GAME, {"p_game": game}) for game in games]

    hot_rows = await db.hot_write(read)
    async with db.write_connection() as connection:
        expected = [
            tuple((await connection.execute(_LOCK_GAME.statement, {"p_game": game})).one())
            for game in games
        ]
    assert hot_rows == expected
    settled, running = hot_rows
    assert settled[2] == [human(1), human(2)]  # seats, JSON
    assert settled[5].tzinfo is dt.UTC  # settled_at, an aware datetime
    assert settled[6]["seats"]["0"]["net"] == 5  # settlement, JSON
    assert running[4:7] == (None, None, None)  # ended_at, settled_at, settlement


async def test_hot_statements_write_what_sqlalchemy_writes(
    db: Database, make_accounts, make_game
) -> None:
    """Bind processors (JSON, NULL JSON, an aware datetime in another zone)
    through executemany: the rows equal those Connection.execute stores."""
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    moment = dt.datetime(2030, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=7)))
    entries = [
        ledger_entry(game_id, f"{way}:{user}", user_id=user, created_at=moment,
                     details={"way": way} if user == 1 else None)
        for way in ("hot", "core")
        for user in (1, 2)
    ]
    await db.hot_write(lambda connection: connection.execute_many(_INSERT_LEDGER, entries[:2]))
    async with db.write_connection() as connection:
        await connection.execute(_INSERT_LEDGER.statement, entries[2:])
    async with db.read() as session:
        rows = (
            await session.execute(
                select(LedgerRow.idempotency_key, LedgerRow.created_at, LedgerRow.details)
                .order_by(LedgerRow.idempotency_key)
            )
        ).all()
        same_instant = await session.scalar(
            select(func.count()).where(LedgerRow.created_at == moment)
        )
    rows = [row for row in rows if not row.idempotency_key.startswith("start")]
    assert [tuple(row) for row in rows] == [
        ("core:1", moment, {"way": "core"}),
        ("core:2", moment, None),
        ("hot:1", moment, {"way": "hot"}),
        ("hot:2", moment, None),
    ]
    assert same_instant == 4


async def test_constants_sqlalchemy_bound_are_filled_in(db: Database) -> None:
    """``x + 1`` and literals become parameters SQLAlchemy binds itself."""
    statement = HotStatement(select(literal(40, Integer) + bindparam("n", type_=Integer), literal("x")))
    assert await db.hot_write(lambda connection: connection.rows(statement, {"n": 2})) == [(42, "x")]


async def test_what_hot_statements_cannot_do_is_refused(db: Database) -> None:
    expanding = HotStatement(select(GameRow.id).where(GameRow.id.in_(bindparam("ids", expanding=True))))
    with pytest.raises(TypeError, match="expanding"):
        await db.hot_write(lambda connection: connection.rows(expanding, {"ids": [1]}))
    with pytest.raises(TypeError, match="many=True"):
        await db.hot_write(lambda connection: connection.execute_many(_LOCK_GAME, [{"p_game": 1}]))


# ------------------------------------------------ failures leave no trace


async def test_a_database_error_is_sqlalchemys_and_undoes_the_transaction(
    db: Database, make_accounts, make_game
) -> None:
    await make_accounts(1)
    game_id = await make_game([human(1), human(2)])

    async def twice(connection: HotConnection) -> None:
        await connection.execute_many(_INSERT_LEDGER, [ledger_entry(game_id, "first")])
        await connection.execute_many(_INSERT_LEDGER, [ledger_entry(game_id, "once")] * 2)  # unique key

    with pytest.raises(exc.IntegrityError) as raised:
        await db.hot_write(twice)
    assert "unique" in str(raised.value.orig).lower()
    assert not raised.value.connection_invalidated
    async with db.read() as session:
        # (only the start grant of make_accounts)
        assert await session.scalar(select(func.count()).select_from(LedgerRow)) == 1
    # The connection went back to the pool usable, with no transaction open.
    assert await dblayer.append_actions(db, [(game_id, 0, {"x": 1})]) == [None]
    assert db.engine.sync_engine.pool.checkedout() == 0


async def test_an_error_in_the_body_undoes_the_transaction(db: Database, make_game) -> None:
    game_id = await make_game([human(1), human(2)])

    async def store_then_fail(connection: HotConnection) -> None:
        await _insert_while_running(connection, [(game_id, 0, '{"x": 1}')])
        raise LookupError("changed my mind")

    with pytest.raises(LookupError):
        await db.hot_write(store_then_fail)
    assert (await dblayer.load_game(db, game_id)).actions == ()


async def test_hot_writes_are_timed_like_other_writes(db: Database, make_game) -> None:
    game_id = await make_game([human(1), human(2)])
    seen: list[tuple[str, float]] = []
    db.observe = lambda kind, seconds: seen.append((kind, seconds))

    async def fail(_connection: HotConnection) -> None:
        raise LookupError("no")

    await dblayer.append_actions(db, [(game_id, 0, {"x": 1})])
    with pytest.raises(LookupError):
        await db.hot_write(fail)
    assert [kind for kind, _ in seen] == ["write", "write"]
    assert all(seconds > 0 for _, seconds in seen)


def busy_statement() -> HotStatement:
    """A statement that keeps the database busy for a second or so."""
    counter = select(literal(1, Integer).label("n")).cte("counter", recursive=True)
    counter = counter.union_all(
        select(counter.c.n + 1).where(counter.c.n < bindparam("limit", type_=Integer))
    )
    return HotStatement(select(func.count()).select_from(counter))


async def test_a_cancelled_hot_write_leaves_no_transaction_open(db: Database, make_game) -> None:
    """Cancelled while the database works: rolled back, and the connection
    back in the pool or dropped, never handed out mid-transaction."""
    game_id = await make_game([human(1), human(2)])
    storing = asyncio.Event()
    busy = busy_statement()

    async def store_then_work(connection: HotConnection) -> None:
        await _insert_while_running(connection, [(game_id, 0, '{"x": 1}')])
        storing.set()
        await connection.rows(busy, {"limit": 3_000_000})

    task = asyncio.create_task(db.hot_write(store_then_work))
    await asyncio.wait_for(storing.wait(), 10)
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert db.engine.sync_engine.pool.checkedout() == 0
    assert (await dblayer.load_game(db, game_id)).actions == ()
    assert await dblayer.append_actions(db, [(game_id, 1, {"x": 2})]) == [None]
    assert (await dblayer.load_game(db, game_id)).actions == ({"x": 2},)


async def test_a_checkout_needs_a_greenlet_only_to_wait(
    db: Database, backend, make_game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite: an idle connection is handed out without a greenlet; one that
    must be reopened first makes the checkout give up cleanly and run again
    in a greenlet.  (PostgreSQL checkouts always run in one.)"""
    game_id = await make_game([human(1), human(2)])
    greenlets = 0
    real_spawn = db_hot.greenlet_spawn

    def counted(*args, **kwargs):
        nonlocal greenlets
        greenlets += 1
        return real_spawn(*args, **kwargs)

    monkeypatch.setattr(db_hot, "greenlet_spawn", counted)
    assert await dblayer.append_actions(db, [(game_id, 0, {"x": 1})]) == [None]
    assert greenlets == (0 if backend.name == "sqlite" else 1)

    async with db.engine.connect() as connection:
        await connection.invalidate()  # back in the pool, to be reopened
    assert db.engine.sync_engine.pool.checkedin() == 1
    greenlets = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert await dblayer.append_actions(db, [(game_id, 1, {"x": 2})]) == [None]
        gc.collect()
    assert greenlets == 1
    assert [str(warning.message) for warning in caught] == []
    assert db.engine.sync_engine.pool.checkedout() == 0
    assert (await dblayer.load_game(db, game_id)).actions == ({"x": 1}, {"x": 2})


async def test_a_connection_the_pool_has_no_room_for_is_closed_cleanly(
    db: Database, make_game, caplog: pytest.LogCaptureFixture
) -> None:
    """A hot write on an overflow connection, given back when the pool is full:
    the pool closes it, which is I/O (in a greenlet), not an error in the log
    and a driver connection left open."""
    game_id = await make_game([human(1), human(2)])
    pool = db.engine.sync_engine.pool
    held = [await db.engine.connect() for _ in range(pool.size())]  # the hot write gets an overflow connection

    async def store(connection: HotConnection) -> None:
        for other in held:  # meanwhile the pool's own connections come back: it is full again
            await other.close()
        await _insert_while_running(connection, [(game_id, 0, '{"x": 1}')])

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await db.hot_write(store)
        gc.collect()
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []
    assert [str(warning.message) for warning in caught] == []
    assert (pool.checkedout(), pool.checkedin(), pool.overflow()) == (0, pool.size(), 0)
    assert (await dblayer.load_game(db, game_id)).actions == ({"x": 1},)


# ------------------------------------------------------------- the fence


async def test_a_fenced_hot_write_checks_the_epoch_as_it_begins(db: Database, make_game) -> None:
    """(Checked in BEGIN's own trip to the database: see HotFence.)"""
    game_id = await make_game([human(1), human(2)])
    async with db.write() as session:
        await session.execute(insert(ClusterSlotRow).values(slot=0, epoch=5))
    db.fence = Fence(slot=0, epoch=4)
    with pytest.raises(StaleEpoch) as raised:
        await dblayer.append_actions(db, [(game_id, 0, {"x": 1})])
    assert (raised.value.epoch, raised.value.current) == (4, 5)
    db.fence = Fence(slot=1, epoch=1)  # a slot nobody claimed
    with pytest.raises(StaleEpoch) as raised:
        await dblayer.append_actions(db, [(game_id, 0, {"x": 1})])
    assert raised.value.current is None
    db.fence = Fence(slot=0, epoch=5)
    assert await dblayer.append_actions(db, [(game_id, 0, {"x": 1})]) == [None]
    db.fence = None
    assert (await dblayer.load_game(db, game_id)).actions == ({"x": 1},)
    assert db.engine.sync_engine.pool.checkedout() == 0


async def test_a_claim_waits_for_a_fenced_hot_write_in_flight(pg: Database, backend, make_game) -> None:
    """The folded check share-locks the slot row until COMMIT, as Database.write's does."""
    old = await SlotLease.try_claim(pg, slot=0, holder="old", shard_count=1)
    assert old is not None
    pg.fence = old.fence
    await old.release()  # the old holder lost its session but is still writing
    newcomer = backend.open()
    inside, release = asyncio.Event(), asyncio.Event()

    async def slow(_connection: HotConnection) -> None:
        inside.set()
        await release.wait()

    write = asyncio.create_task(pg.hot_write(slow))
    await asyncio.wait_for(inside.wait(), 10)
    claim = asyncio.create_task(SlotLease.try_claim(newcomer, slot=0, holder="new", shard_count=1))
    await asyncio.sleep(0.3)
    assert not claim.done()
    release.set()
    await write
    lease = await asyncio.wait_for(claim, 10)
    assert lease is not None and lease.epoch == 2
    with pytest.raises(StaleEpoch):
        await pg.hot_write(slow)
    await lease.release()
    await newcomer.dispose()


# -------------------------------------- PostgreSQL: dead pooled connections




async def kill_pooled_sessions(database: Database, count: int = 3) -> list[int]:
    """Fill the pool with ``count`` connections, then terminate their server sessions."""
    connections = [await database.engine.connect() for _ in range(count)]
    pids = [(await connection.get_raw_connection()).driver_connection.get_server_pid() for connection in connections]
    for connection in connections:
        await connection.close()
    assert PG_URL is not None
    admin = await asyncpg.connect(_asyncpg_dsn(PG_URL))
    try:
        for pid in pids:
            assert await admin.fetchval("SELECT pg_terminate_backend($1, 5000)", pid)
    finally:
        await admin.close()
    return pids


async def test_connections_the_server_closed_are_replaced_at_checkout(
    pg: Database, make_accounts, make_game
) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    await kill_pooled_sessions(pg)
    assert await dblayer.append_actions(pg, [(game_id, 0, {"x": 1})]) == [None]
    await kill_pooled_sessions(pg)
    result = await dblayer.settle_game(pg, game_id, payments=[pay(1, 0, 1)], results=RESULTS, bet=10)
    assert result.replayed is False
    await kill_pooled_sessions(pg)
    await dblayer.get_or_create_account(pg, GUILD, 3, starting_chips=10)  # an ORM session too


async def test_a_hot_write_on_a_connection_lost_unnoticed_runs_again(
    pg: Database, make_game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loss shows only when the first statement fails (before COMMIT):
    the pool is invalidated and the whole transaction runs again."""
    game_id = await make_game([human(1), human(2)])
    await kill_pooled_sessions(pg)
    monkeypatch.setattr(db.connect, "_known_closed", lambda _driver: False)
    runs = 0
    real_transaction = db.database.hot.transaction

    def counted(*args, **kwargs):
        nonlocal runs
        runs += 1
        return real_transaction(*args, **kwargs)

    monkeypatch.setattr(db.database.hot, "transaction", counted)
    assert await dblayer.append_actions(pg, [(game_id, 0, {"x": 1})]) == [None]
    assert runs == 2
    assert (await dblayer.load_game(pg, game_id)).actions == ({"x": 1},)


async def test_a_connection_unused_for_a_while_is_pinged_first(
    pg: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What pool_pre_ping did, only for idle connections: an ordinary unit
    of work (no retry) does not see a connection that died silently."""
    monkeypatch.setattr(db.connect, "_known_closed", lambda _driver: False)
    await kill_pooled_sessions(pg)
    monkeypatch.setattr(db.connect, "IDLE_PING_SECONDS", 0.0)
    await dblayer.get_or_create_account(pg, GUILD, 1, starting_chips=10)

    # Without the ping, the same loss costs that unit of work (then the
    # invalidated pool recovers): the ping is what saved it above.
    await kill_pooled_sessions(pg)
    monkeypatch.setattr(db.connect, "IDLE_PING_SECONDS", 3600.0)
    with pytest.raises(exc.DBAPIError) as raised:
        await dblayer.get_or_create_account(pg, GUILD, 2, starting_chips=10)
    assert raised.value.connection_invalidated
    await dblayer.get_or_create_account(pg, GUILD, 2, starting_chips=10)

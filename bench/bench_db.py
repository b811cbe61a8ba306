"""Benchmark of the data layer: settlements per second and leaderboard latency.

    python bench/bench_db.py [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/test]
    python bench/bench_db.py --compare [--pg URL]   # db layer vs the raw driver
    python bench/bench_db.py --ratings [--pg URL]   # settlements with and without moving ratings

``--compare`` measures, in one process and interleaved so that both see the
same machine load: ``db.settle_game`` against the same settlement written
with the raw driver (aiosqlite / asyncpg, no SQLAlchemy), with 1 and 8
concurrent writers; and stored game moves per second through the runtime's
store (:class:`runtime.store.Store`, its group commit over
``db.commit_changes``) against the same group commit over a raw-driver append.  The raw side runs the same
statements on the same schema, with the same SQLite pragmas and writer queue
as :mod:`db`.  Implementations take turns of a few dozen operations (see
:func:`compare_backend`); each figure pools every turn of every run, with the
range of the per-run shares, and this process's CPU per operation.

Settlements: 4-seat games, each settled in one transaction through
``db.settle_game``, with 1 and 16 concurrent writers sharing one Database
(as the bot's tasks do).  Leaderboard: 100,000 accounts in one guild; one
``db.leaderboard`` call (top 10 + the caller's rank) per order, for a caller
in the middle and one at the very bottom (the slowest rank count).

Otherwise every figure is the median of ``--runs`` runs.  Each backend works in a
throw-away place: a temporary SQLite file, or a temporary PostgreSQL schema
dropped at the end.  Output is a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert, text

import db as dblayer
from db import Database, SeatPayment, SeatResult
from db.coltypes import utcnow
from db.leaderboard import better_count_query, top_query
from db.models import AccountRow

GUILD = 1
CHANNEL = 1_000_000  # moves of game n are stored at table CHANNEL + n
BOARD_GUILD = 2
PLAYERS = 64
RESULTS = {seat: SeatResult(place=seat, won=seat < 2) for seat in range(4)}
RANKS = {seat: seat + 1 for seat in range(4)}
PAYMENTS = [SeatPayment(3, 0, 2, "last"), SeatPayment(2, 1, 1, "third")]
ORDERS = ("chips", "wins", "winrate")


# ------------------------------------------------------------------ places


@asynccontextmanager
async def sqlite_database() -> AsyncIterator[Database]:
    with tempfile.TemporaryDirectory(prefix="bench-db-") as folder:
        database = Database.from_url(f"sqlite+aiosqlite:///{folder}/bench.db")
        try:
            await database.upgrade()
            yield database
        finally:
            await database.dispose()


@asynccontextmanager
async def postgres_database(url: str) -> AsyncIterator[Database]:
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    admin = Database.from_url(url)
    async with admin.engine.connect() as connection:
        await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        await connection.commit()
    database = Database.from_url(url, connect_args={"server_settings": {"search_path": schema}})
    try:
        await database.upgrade()
        yield database
    finally:
        await database.dispose()
        async with admin.engine.connect() as connection:
            await connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            await connection.commit()
        await admin.dispose()


# ------------------------------------------------------------- settlements


async def create_players(database: Database) -> None:
    for user_id in range(1, PLAYERS + 1):
        await dblayer.get_or_create_account(database, GUILD, user_id, starting_chips=10**12)


async def create_games(database: Database, count: int, rng: random.Random) -> list[int]:
    games = []
    for _ in range(count):
        players = rng.sample(range(1, PLAYERS + 1), 4)
        games.append(
            await dblayer.create_game(
                database,
                guild_id=GUILD,
                channel_id=rng.randrange(1, 50),
                rules="mien-nam",
                options={},
                bet=100,
                seats=[{"user_id": user, "name": str(user), "ai": None} for user in players],
                record={"hands": []},
            )
        )
    return games


async def settle_all(database: Database, games: list[int], writers: int, *, rated: bool = False) -> float:
    """Settle every game with ``writers`` concurrent tasks (``rated``: moving the
    players' ratings too); settlements/s."""
    queue = iter(games)

    async def writer() -> None:
        for game_id in queue:
            await dblayer.settle_game(
                database, game_id, payments=PAYMENTS, results=RESULTS, bet=100, rake_percent=5,
                ranks=RANKS if rated else None,
            )

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return len(games) / (time.perf_counter() - started)


async def settlement_rates(database: Database, games: int, runs: int) -> dict[int, float]:
    rng = random.Random(7)
    await create_players(database)
    rates: dict[int, list[float]] = {1: [], 16: []}
    for _ in range(runs):
        for writers in rates:
            batch = await create_games(database, games, rng)
            rates[writers].append(await settle_all(database, batch, writers))
    return {writers: statistics.median(values) for writers, values in rates.items()}


# ------------------------------------------------------------- leaderboard


def account_rows(count: int, rng: random.Random) -> list[dict[str, Any]]:
    rows = []
    now = utcnow()
    for user_id in range(1, count + 1):
        games = int(rng.expovariate(1 / 40))
        wins = sum(rng.random() < 0.5 for _ in range(games)) if games < 200 else games // 2
        rows.append(
            {
                "guild_id": BOARD_GUILD,
                "user_id": 10**17 + user_id,
                "balance": int(rng.lognormvariate(8, 1.5)),
                "games_played": games,
                "wins": wins,
                "win_rate": wins / games if games else 0.0,
                "created_at": now,
            }
        )
    return rows


async def fill_board(database: Database, count: int) -> None:
    rows = account_rows(count, random.Random(11))
    for start in range(0, len(rows), 5000):
        async with database.write() as session:
            await session.execute(insert(AccountRow), rows[start : start + 5000])
    await analyze(database)


async def analyze(database: Database) -> None:
    if database.dialect == "sqlite":
        async with database.write() as session:
            await session.execute(text("ANALYZE"))
        return
    # VACUUM cannot run in a transaction; it also fills the visibility map
    # that index-only scans need.
    async with database.engine.connect() as connection:
        autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
        await autocommit.execute(text("VACUUM ANALYZE accounts"))


async def callers(database: Database, by: str) -> dict[str, int]:
    """A caller in the middle of the board and the one at the bottom."""
    async with database.read() as session:
        everyone = (
            await session.execute(top_query(by, BOARD_GUILD, limit=10**6, min_games=10))
        ).all()
    return {"middle": everyone[len(everyone) // 2][0], "bottom": everyone[-1][0]}


async def time_call(call: Callable[[], Any], repeats: int) -> float:
    await call()  # warm caches and prepared statements
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def leaderboard_times(database: Database, runs: int) -> dict[tuple[str, str], float]:
    times: dict[tuple[str, str], list[float]] = {}
    for by in ORDERS:
        for where, caller in (await callers(database, by)).items():
            for _ in range(runs):
                median = await time_call(
                    partial(dblayer.leaderboard, database, BOARD_GUILD, by=by, caller_id=caller),
                    repeats=30,
                )
                times.setdefault((by, where), []).append(median)
    return {key: statistics.median(values) for key, values in times.items()}


async def middle_value(database: Database, by: str) -> Any:
    async with database.read() as session:
        everyone = (
            await session.execute(top_query(by, BOARD_GUILD, limit=10**6, min_games=10))
        ).all()
    return everyone[len(everyone) // 2][1]


async def explain(database: Database) -> None:
    """Print the plans of the top-10 query and of the rank count for a
    mid-board caller (EXPLAIN ANALYZE on PostgreSQL)."""
    print(f"\n<details><summary>{database.dialect} plans</summary>\n\n```")
    for by in ORDERS:
        value = await middle_value(database, by)
        for query in (
            top_query(by, BOARD_GUILD, limit=10, min_games=10),
            better_count_query(by, BOARD_GUILD, min_games=10, value=value),
        ):
            sql = str(query.compile(database.engine, compile_kwargs={"literal_binds": True}))
            prefix = "EXPLAIN QUERY PLAN" if database.dialect == "sqlite" else "EXPLAIN ANALYZE"
            async with database.read() as session:
                plan = [row[-1] for row in await session.execute(text(f"{prefix} {sql}"))]
            print(f"-- {by}: {sql.splitlines()[0][:60]}...")
            print("\n".join(str(line) for line in plan))
    print("```\n</details>")


# ------------------------------------------------- db layer vs raw driver
#
# The raw side: the same settlement (same rows, same statements, same
# arithmetic from db.settlement) written straight to aiosqlite or asyncpg, on
# the same migrated schema, with the same SQLite pragmas and the same
# in-process writer queue as db.Database.  "per-seat" is the statement set
# db.settle_game used before it was made lean (one UPDATE per seat); "lean"
# is the set it uses now (the seats' UPDATEs as one statement with RETURNING).

COMPARE_WRITERS = (1, 8)
COMPARE_TABLES = (1, 16)
COMPARE_TURNS = 8  # turns per run and figure, see compare_backend

_GAME_SQL = "SELECT id, guild_id, seats, status, ended_at, settled_at, settlement FROM games WHERE id = {0}"
_STATS = (  # column, delta key; win_rate is derived from wins
    ("balance", "net"),
    ("firsts", "first"),
    ("wins", "won"),
    ("chips_won", "gain"),
    ("chips_lost", "loss"),
    ("chops_made", "chops_made"),
    ("chops_suffered", "chops_suffered"),
)
_LEDGER_COLUMNS = (
    "guild_id, user_id, amount, balance_after, reason, game_id, idempotency_key, created_at, details"
)


class RawDriver:
    """Settlements and action appends with the bare driver, for comparison."""

    def __init__(self, dialect: str, connections: list[Any]) -> None:
        self.dialect = dialect
        self.connections = connections
        self.pg = dialect == "postgresql"
        # The same FIFO writer queue as Database (SQLite admits one writer).
        self.writers_turn: Any = asyncio.Lock() if not self.pg else None
        self._sql_by_text: dict[str, str] = {}
        self._sql_by_shape: dict[tuple[str, int], str] = {}

    @classmethod
    async def open(cls, database: Database, count: int) -> RawDriver:
        from sqlalchemy.engine import make_url

        url = make_url(database.url)
        connections = []
        if database.dialect == "sqlite":
            import aiosqlite

            from db import connect

            pragmas = getattr(connect, "sqlite_pragmas", lambda: ["PRAGMA foreign_keys = ON"])()
            for _ in range(count):
                timeout = connect.SQLITE_BUSY_TIMEOUT_SECONDS
                connection = await aiosqlite.connect(
                    url.database, timeout=timeout, isolation_level=None
                )
                await connection.execute(f"PRAGMA busy_timeout = {timeout * 1000}")
                await connection.execute("PRAGMA journal_mode = WAL")
                for pragma in pragmas:
                    await connection.execute(pragma)
                connections.append(connection)
        else:
            import asyncpg

            dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
            settings = database._connect_args.get("server_settings", {})
            for _ in range(count):
                connections.append(await asyncpg.connect(dsn, server_settings=settings))
        return cls(database.dialect, connections)

    async def close(self) -> None:
        for connection in self.connections:
            await connection.close()

    # -- helpers that hide the two drivers' differences

    def sql(self, text_: str) -> str:
        """``{0}``, ``{1}``... placeholders to the driver's style (each text
        converted once: a well-written raw user builds its SQL once)."""
        found = self._sql_by_text.get(text_)
        if found is None:
            count = max((int(n) + 1 for n in re.findall(r"\{(\d+)\}", text_)), default=0)
            found = text_.format(*(f"${n + 1}" if self.pg else f"?{n + 1}" for n in range(count)))
            self._sql_by_text[text_] = found
        return found

    @asynccontextmanager
    async def transaction(self, connection: Any) -> AsyncIterator[None]:
        if self.pg:
            async with connection.transaction():
                yield
            return
        async with self.writers_turn:
            await connection.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                await connection.execute("ROLLBACK")
                raise
            await connection.execute("COMMIT")

    async def fetch(self, connection: Any, sql: str, *params: Any) -> list[Any]:
        if self.pg:
            return list(await connection.fetch(sql, *params))
        return list(await connection.execute_fetchall(sql, params))

    async def execute(self, connection: Any, sql: str, *params: Any) -> None:
        if self.pg:
            await connection.execute(sql, *params)
        else:
            await connection.execute(sql, params)

    async def executemany(self, connection: Any, sql: str, rows: list[tuple[Any, ...]]) -> None:
        await connection.executemany(sql, rows)

    def time(self, moment: Any) -> Any:
        return moment if self.pg else moment.replace(tzinfo=None).isoformat(" ")

    def json(self, value: Any) -> Any:
        return json.dumps(value)

    def load_json(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    # -- settlement

    async def settle(self, connection: Any, game_id: int, *, lean: bool) -> None:
        from db.games import human_seats
        from db.settlement import _chips_by_seat, settlement_key

        lock = " FOR NO KEY UPDATE" if self.pg else ""
        async with self.transaction(connection):
            (game,) = await self.fetch(connection, self.sql(_GAME_SQL + lock), game_id)
            if game[5] is not None:
                return  # settled already (the bench never replays)
            humans = human_seats(self.load_json(game[2]))
            users = sorted(humans.values())
            marks = ", ".join("{%d}" % (n + 1) for n in range(len(users)))  # {0}: guild
            rows = await self.fetch(
                connection,
                self.sql(
                    f"SELECT user_id, balance FROM accounts WHERE guild_id = {{0}} "
                    f"AND user_id IN ({marks}) ORDER BY user_id{lock}"
                ),
                game[1],
                *users,
            )
            balances = dict((row[0], row[1]) for row in rows)
            chips = _chips_by_seat(PAYMENTS, humans, balances, 100, 5)
            deltas = {}
            for seat, user in humans.items():
                net = chips[seat].gross - chips[seat].rake
                result = RESULTS[seat]
                deltas[user] = {
                    "net": net,
                    "first": int(result.place == 0),
                    "won": int(result.won),
                    "gain": max(net, 0),
                    "loss": max(-net, 0),
                    "chops_made": result.chops_made,
                    "chops_suffered": result.chops_suffered,
                }
            if lean:
                after = await self._apply_lean(connection, game[1], deltas)
            else:
                after = {}
                for user in users:
                    after[user] = await self._apply_one(connection, game[1], user, deltas[user])
            now = utcnow()
            await self.executemany(
                connection,
                self.sql(f"INSERT INTO ledger ({_LEDGER_COLUMNS}) VALUES ({{0}}, {{1}}, {{2}}, {{3}}, {{4}}, {{5}}, {{6}}, {{7}}, {{8}})"),
                [
                    (
                        game[1],
                        user,
                        deltas[user]["net"],
                        after[user],
                        "settlement",
                        game_id,
                        settlement_key(game_id, seat),
                        self.time(now),
                        self.json({"seat": seat}),
                    )
                    for seat, user in sorted(humans.items())
                ],
            )
            summary = {
                str(seat): {
                    "place": RESULTS[seat].place,
                    "won": RESULTS[seat].won,
                    "chops_made": RESULTS[seat].chops_made,
                    "chops_suffered": RESULTS[seat].chops_suffered,
                    "owed": chips[seat].owed,
                    "gross": chips[seat].gross,
                    "rake": chips[seat].rake,
                    "net": chips[seat].gross - chips[seat].rake,
                }
                for seat in humans
            }
            await self.execute(
                connection,
                self.sql(
                    "UPDATE games SET settled_at = {0}, status = 'finished', "
                    "ended_at = coalesce(ended_at, {0}), settlement = {1} WHERE id = {2}"
                ),
                self.time(now),
                self.json({"bet": 100, "rake_percent": 5, "seats": summary}),
                game_id,
            )

    async def _apply_one(self, connection: Any, guild_id: int, user: int, delta: dict[str, int]) -> int:
        sets = ", ".join(f"{column} = {column} + {{{n}}}" for n, (column, _) in enumerate(_STATS))
        sql = self.sql(
            f"UPDATE accounts SET {sets}, games_played = games_played + 1, "
            "win_rate = CAST(wins + {2} AS FLOAT) / (games_played + 1) "
            "WHERE guild_id = {7} AND user_id = {8} RETURNING balance"
        )
        params = [delta[key] for _, key in _STATS]
        (row,) = await self.fetch(connection, sql, *params, guild_id, user)
        return int(row[0])

    def _lean_sql(self, count: int) -> str:
        """The accounts' UPDATE for ``count`` users, built once per count.

        Parameters: the users, then each column's deltas (user order), the
        wins' deltas again for the win rate, then the guild."""
        found = self._sql_by_shape.get(("lean", count))
        if found is not None:
            return found
        user_marks = ["{%d}" % n for n in range(count)]
        next_mark = count

        def case() -> str:
            nonlocal next_mark
            whens = []
            for user_mark in user_marks:
                whens.append(f"WHEN {user_mark} THEN CAST({{{next_mark}}} AS BIGINT)")
                next_mark += 1
            return f"CASE user_id {' '.join(whens)} END"

        sets = [f"{column} = {column} + {case()}" for column, _ in _STATS]
        won = case()
        sql = self.sql(
            f"UPDATE accounts SET {', '.join(sets)}, games_played = games_played + 1, "
            f"win_rate = CAST(wins + {won} AS FLOAT) / (games_played + 1) "
            f"WHERE guild_id = {{{next_mark}}} AND user_id IN ({', '.join(user_marks)}) "
            "RETURNING user_id, balance"
        )
        self._sql_by_shape[("lean", count)] = sql
        return sql

    async def _apply_lean(
        self, connection: Any, guild_id: int, deltas: dict[int, dict[str, int]]
    ) -> dict[int, int]:
        users = sorted(deltas)
        params: list[Any] = list(users)
        for _, key in _STATS:
            params += [deltas[user][key] for user in users]
        params += [deltas[user]["won"] for user in users]
        params.append(guild_id)
        rows = await self.fetch(connection, self._lean_sql(len(users)), *params)
        return {int(row[0]): int(row[1]) for row in rows}

    # -- action log (the statement of db.append_actions: one INSERT that
    #    checks the game's status in the same statement)

    def _append_sql(self, count: int) -> str:
        """The action log's INSERT for ``count`` moves, built once per count.

        Parameters: the time, the running status, then each move's game,
        seq and action (JSON text)."""
        found = self._sql_by_shape.get(("append", count))
        if found is not None:
            return found
        selects = []
        for item in range(count):
            marks = ["{%d}" % (2 + 3 * item + k) for k in range(3)]
            if self.pg:
                marks = [f"CAST({mark} AS {cast})" for mark, cast in zip(marks, ("BIGINT", "INTEGER", "JSON"))]
            now = "CAST({0} AS TIMESTAMP WITH TIME ZONE)" if self.pg else "{0}"
            selects.append(f"SELECT {marks[0]} AS game_id, {marks[1]} AS seq, {marks[2]} AS action, {now} AS created_at")
        sql = self.sql(
            "INSERT INTO game_actions (game_id, seq, action, created_at) "
            "SELECT n.game_id, n.seq, n.action, n.created_at "
            f"FROM ({' UNION ALL '.join(selects)}) AS n JOIN games ON games.id = n.game_id "
            "WHERE games.status = {1} ON CONFLICT (game_id, seq) DO NOTHING RETURNING game_id, seq"
        )
        self._sql_by_shape[("append", count)] = sql
        return sql

    async def append_actions(self, items: list[tuple[int, int, Any]]) -> list[Any]:
        connection = self.connections[0]
        params: list[Any] = [self.time(utcnow()), "running"]
        for game_id, seq, action in items:
            params += [game_id, seq, self.json(action)]
        async with self.transaction(connection):
            inserted = await self.fetch(connection, self._append_sql(len(items)), *params)
        assert len(inserted) == len(items)
        return [None] * len(items)


class Meter:
    """Wall and process CPU seconds, and operations, summed over turns."""

    @classmethod
    def pooled(cls, meters: list[Meter]) -> Meter:
        total = cls()
        for meter in meters:
            total.wall += meter.wall
            total.cpu += meter.cpu
            total.operations += meter.operations
        return total

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.operations = 0

    @asynccontextmanager
    async def turn(self, operations: int) -> AsyncIterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        self.wall += time.perf_counter() - wall
        self.cpu += time.process_time() - cpu
        self.operations += operations

    @property
    def rate(self) -> float:
        return self.operations / self.wall

    @property
    def cpu_us(self) -> float:
        """This process's CPU (every thread) per operation, µs."""
        return self.cpu / self.operations * 1e6


async def settle_through(settle: Callable[[int, int], Any], games: list[int], writers: int) -> None:
    """Settle every game with ``writers`` tasks (writer n calls settle(n, game))."""
    queue = iter(games)

    async def writer(number: int) -> None:
        for game_id in queue:
            await settle(number, game_id)

    await asyncio.gather(*(writer(number) for number in range(writers)))


async def moves_through(store: Any, game_ids: list[int], seqs: range) -> None:
    """Every table (game) plays the moves ``seqs``, each stored before the next."""
    from runtime.records import AppendAction
    from runtime.store import Store

    assert isinstance(store, Store)

    async def table(game_id: int) -> None:
        for seq in seqs:
            action = {"seat": seq % 4, "play": [seq % 52, (seq + 13) % 52]}
            await store.commit(CHANNEL + game_id, GUILD, [AppendAction(game_id=game_id, seq=seq, action=action)])

    await asyncio.gather(*(table(game_id) for game_id in game_ids))


def turns(total: int, smallest: int) -> list[range]:
    """``range(total)`` cut into COMPARE_TURNS pieces of at least ``smallest``."""
    size = max(smallest, -(-total // COMPARE_TURNS))
    return [range(start, min(start + size, total)) for start in range(0, total, size)]


def rotated(labels: list[str], turn: int) -> list[str]:
    """Who goes first changes every turn (no one always follows the same one)."""
    shift = turn % len(labels)
    return labels[shift:] + labels[:shift]


@asynccontextmanager
async def raw_store(raw: RawDriver) -> AsyncIterator[Any]:
    """runtime.store.Store (the very same group commit) over the raw append."""
    import types

    import runtime.store as store_module

    real_db = store_module.db

    async def commit_changes(_database: Any, changes: list[Any]) -> list[Any]:
        items = [(change.game_id, seq, action) for change in changes for seq, action in change.actions]
        await raw.append_actions(items)
        return [dblayer.ChangeReceipt() for _ in changes]

    names = {name: getattr(real_db, name) for name in real_db.__all__}
    store_module.db = types.SimpleNamespace(**(names | {"commit_changes": commit_changes}))  # type: ignore[assignment]
    try:
        yield store_module.Store(None)  # type: ignore[arg-type]
    finally:
        store_module.db = real_db


def load_average() -> str:
    try:
        return " / ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


async def compare_backend(name: str, args: argparse.Namespace) -> dict[str, dict[int, list[Meter]]]:
    """Meters per implementation, writers or tables, and run.

    Implementations take turns within a run (a few dozen settlements or
    moves per table at a time, who goes first rotating), so that all of them
    see the same moments of a busy machine and of the disk's state (SQLite's
    write-ahead log growing or being reused).
    """
    from runtime.store import Store

    meters: dict[str, dict[int, list[Meter]]] = {}
    rng = random.Random(7)
    async with fresh_database(name, args) as database:
        await create_players(database)
        raw = await RawDriver.open(database, max(COMPARE_WRITERS))
        try:
            settlers: dict[str, Callable[[int, int], Any]] = {
                "db.settle_game": lambda _n, game_id: dblayer.settle_game(
                    database, game_id, payments=PAYMENTS, results=RESULTS, bet=100, rake_percent=5
                ),
                "raw, per-seat statements": lambda n, game_id: raw.settle(
                    raw.connections[n], game_id, lean=False
                ),
                "raw, lean statements": lambda n, game_id: raw.settle(
                    raw.connections[n], game_id, lean=True
                ),
            }

            @asynccontextmanager
            async def db_store() -> AsyncIterator[Any]:
                yield Store(database)

            logs = {"Store + db.commit_changes": db_store, "Store + raw append": partial(raw_store, raw)}
            # Unmeasured warm-up: statements compiled and prepared (one per
            # batch size for the action log), caches and pools filled.
            for writers in COMPARE_WRITERS:
                for settle in settlers.values():
                    await settle_through(settle, await create_games(database, 2 * writers, rng), writers)
            for tables in COMPARE_TABLES:
                for log in logs.values():
                    async with log() as opened:
                        await moves_through(opened, await create_games(database, tables, rng), range(20))
            for run in range(args.runs):
                print(f"  {name} run {run + 1}/{args.runs}, load {load_average()}", file=sys.stderr)
                for writers in COMPARE_WRITERS:
                    games = {label: await create_games(database, args.games, rng) for label in settlers}
                    for label in settlers:
                        meters.setdefault(label, {}).setdefault(writers, []).append(Meter())
                    for turn, part in enumerate(turns(args.games, 5 * writers)):
                        for label in rotated(list(settlers), turn):
                            meter = meters[label][writers][-1]
                            async with meter.turn(len(part)):
                                await settle_through(settlers[label], games[label][part.start : part.stop], writers)
                for tables in COMPARE_TABLES:
                    moves = max(args.moves // tables, 20)
                    games = {label: await create_games(database, tables, rng) for label in logs}
                    for label in logs:
                        meters.setdefault(label, {}).setdefault(tables, []).append(Meter())
                    for turn, part in enumerate(turns(moves, 10)):
                        for label in rotated(list(logs), turn):
                            meter = meters[label][tables][-1]
                            async with logs[label]() as log, meter.turn(tables * len(part)):
                                await moves_through(log, games[label], part)
        finally:
            await raw.close()
    return meters


def force_synchronous(mode: str) -> None:
    """Make every SQLite connection (db layer and raw side) use this
    ``PRAGMA synchronous``, whatever db.connect sets."""
    from db import connect

    default = getattr(connect, "sqlite_pragmas", lambda **_: ["PRAGMA foreign_keys = ON"])

    def pragmas(**kwargs: Any) -> list[str]:
        return [*default(**kwargs), f"PRAGMA synchronous = {mode}"]

    connect.sqlite_pragmas = pragmas  # type: ignore[assignment]


def share_cell(runs: list[Meter], base: list[Meter], what: str) -> str:
    """Pooled rate, its share of ``base``'s, and the range of per-run shares."""
    pooled, pooled_base = Meter.pooled(runs), Meter.pooled(base)
    shares = sorted(run.rate / against.rate for run, against in zip(runs, base))
    spread = f"; runs {shares[0]:.0%}–{shares[-1]:.0%}" if len(shares) > 1 else ""
    return f"{pooled.rate:,.0f}/s ({pooled.rate / pooled_base.rate:.0%} of {what}{spread})"


async def compare(args: argparse.Namespace) -> None:
    if args.synchronous:
        force_synchronous(args.synchronous)
    backends = ["SQLite"] + (["PostgreSQL"] if args.pg else [])
    started_load = load_average()
    results = {name: await compare_backend(name, args) for name in backends}
    import db

    print(
        f"\n### db layer vs raw driver ({db.__file__}; synchronous {args.synchronous or 'as db.connect'}; "
        f"{args.runs} runs of up to {COMPARE_TURNS} turns each; load average "
        f"{started_load} at start, {load_average()} at end)\n"
    )
    print("Settlements/s, and this process's CPU per settlement (every thread; not the PostgreSQL server's):\n")
    print("| backend | implementation | " + " | ".join(f"{w} writer{'s' * (w > 1)}" for w in COMPARE_WRITERS) + " | CPU, 1 writer |")
    print("| --- | --- |" + " ---: |" * (len(COMPARE_WRITERS) + 1))
    for name, meters in results.items():
        lean = meters["raw, lean statements"]
        for label in ("db.settle_game", "raw, per-seat statements", "raw, lean statements"):
            cells = []
            for writers in COMPARE_WRITERS:
                runs = meters[label][writers]
                if label == "db.settle_game":
                    cells.append(share_cell(runs, lean[writers], "raw lean"))
                else:
                    cells.append(f"{Meter.pooled(runs).rate:,.0f}/s")
            cells.append(f"{Meter.pooled(meters[label][COMPARE_WRITERS[0]]).cpu_us:,.0f} µs")
            print(f"| {name} | {label} | " + " | ".join(cells) + " |")
    print("\nStored moves/s (group commit; every table waits for its move before the next), and CPU per move:\n")
    print("| backend | implementation | " + " | ".join(f"{t} table{'s' * (t > 1)}" for t in COMPARE_TABLES) + " | CPU, 1 table |")
    print("| --- | --- |" + " ---: |" * (len(COMPARE_TABLES) + 1))
    for name, meters in results.items():
        raw_meters = meters["Store + raw append"]
        for label in ("Store + db.commit_changes", "Store + raw append"):
            cells = []
            for tables in COMPARE_TABLES:
                runs = meters[label][tables]
                if "raw" in label:
                    cells.append(f"{Meter.pooled(runs).rate:,.0f}/s")
                else:
                    cells.append(share_cell(runs, raw_meters[tables], "raw"))
            cells.append(f"{Meter.pooled(meters[label][COMPARE_TABLES[0]]).cpu_us:,.0f} µs")
            print(f"| {name} | {label} | " + " | ".join(cells) + " |")


# ------------------------------------------------------------------- main


def fresh_database(name: str, args: argparse.Namespace) -> Any:
    return sqlite_database() if name == "SQLite" else postgres_database(args.pg)


async def bench_backend(
    name: str, args: argparse.Namespace
) -> tuple[dict[int, float], dict[tuple[str, str], float]]:
    async with fresh_database(name, args) as database:
        rates = await settlement_rates(database, args.games, args.runs)
    async with fresh_database(name, args) as database:
        await fill_board(database, args.accounts)
        times = await leaderboard_times(database, args.runs)
        if args.explain:
            await explain(database)
    return rates, times


async def rating_cost(name: str, args: argparse.Namespace) -> dict[tuple[int, bool], list[float]]:
    """Settlements/s without and with ratings, batches alternating so both see the same load."""
    rng = random.Random(11)
    rates: dict[tuple[int, bool], list[float]] = {(w, r): [] for w in (1, 16) for r in (False, True)}
    async with (sqlite_database() if name == "SQLite" else postgres_database(args.pg)) as database:
        await create_players(database)
        for _ in range(args.runs):
            for key in rates:
                batch = await create_games(database, args.games, rng)
                rates[key].append(await settle_all(database, batch, key[0], rated=key[1]))
    return rates


async def main(args: argparse.Namespace) -> None:
    if args.compare:
        await compare(args)
        return
    if args.ratings:
        print(f"\n### Settlements per second without / with ratings (4 people; {args.runs} alternating runs)\n")
        print("| backend | writers | without ratings | with ratings | ratio (medians) |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for name in ["SQLite"] + (["PostgreSQL"] if args.pg else []):
            rates = await rating_cost(name, args)
            for writers in (1, 16):
                plain, rated = rates[(writers, False)], rates[(writers, True)]
                print(f"| {name} | {writers} | {statistics.median(plain):,.0f} ({min(plain):,.0f}–{max(plain):,.0f}) "
                      f"| {statistics.median(rated):,.0f} ({min(rated):,.0f}–{max(rated):,.0f}) "
                      f"| {statistics.median(rated) / statistics.median(plain):.2f} |")
        return
    backends = ["SQLite"] + (["PostgreSQL"] if args.pg else [])
    results = {}
    for name in backends:
        results[name] = await bench_backend(name, args)

    print(f"\n### Settlements per second (4 seats, one transaction each; median of {args.runs})\n")
    print("| backend | 1 writer | 16 writers |")
    print("| --- | ---: | ---: |")
    for name, (rates, _) in results.items():
        print(f"| {name} | {rates[1]:,.0f} | {rates[16]:,.0f} |")

    print(
        f"\n### Leaderboard, {args.accounts:,} accounts in one guild: ms per call "
        "(top 10 + caller's rank; median)\n"
    )
    print("| backend | order | caller mid-board | caller last |")
    print("| --- | --- | ---: | ---: |")
    for name, (_, times) in results.items():
        for by in ORDERS:
            print(f"| {name} | {by} | {times[(by, 'middle')]:.2f} | {times[(by, 'bottom')]:.2f} |")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", metavar="URL", help="also benchmark this PostgreSQL database")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--games", type=int, default=300, help="settlements per run")
    parser.add_argument("--accounts", type=int, default=100_000)
    parser.add_argument("--explain", action="store_true", help="print the query plans")
    parser.add_argument(
        "--compare", action="store_true", help="db layer vs the raw driver (settlements, moves)"
    )
    parser.add_argument("--moves", type=int, default=1600, help="moves per action-log run")
    parser.add_argument("--ratings", action="store_true", help="settlements with and without moving ratings")
    parser.add_argument(
        "--synchronous", choices=["OFF", "NORMAL", "FULL"], help="force this SQLite PRAGMA synchronous"
    )
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))

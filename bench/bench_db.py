"""Benchmark of the data layer: settlements per second and leaderboard latency.

    python bench/bench_db.py [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/test]

Settlements: 4-seat games, each settled in one transaction through
``db.settle_game``, with 1 and 16 concurrent writers sharing one Database
(as the bot's tasks do).  Leaderboard: 100,000 accounts in one guild; one
``db.leaderboard`` call (top 10 + the caller's rank) per order, for a caller
in the middle and one at the very bottom (the slowest rank count).

Every figure is the median of ``--runs`` runs.  Each backend works in a
throw-away place: a temporary SQLite file, or a temporary PostgreSQL schema
dropped at the end.  Output is a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import random
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
BOARD_GUILD = 2
PLAYERS = 64
RESULTS = {seat: SeatResult(place=seat, won=seat < 2) for seat in range(4)}
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


async def settle_all(database: Database, games: list[int], writers: int) -> float:
    """Settle every game with ``writers`` concurrent tasks; settlements/s."""
    queue = iter(games)

    async def writer() -> None:
        for game_id in queue:
            await dblayer.settle_game(
                database, game_id, payments=PAYMENTS, results=RESULTS, bet=100, rake_percent=5
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


async def main(args: argparse.Namespace) -> None:
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
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))

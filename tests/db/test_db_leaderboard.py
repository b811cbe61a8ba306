"""Leaderboards (chips, wins, win rate; shared ranks on ties; the caller's own
rank) and player statistics, plus a check that every board query is an
index walk, not a scan and sort."""

from __future__ import annotations

import pytest
from sqlalchemy import insert, text

import db as dblayer
from db import Database, LeaderRow, SeatResult
from db.coltypes import utcnow
from db.leaderboard import better_count_query, top_query
from db.models import AccountRow
from tests.db.dbtest_support import GUILD, OTHER_GUILD, Backend, human


async def add_accounts(
    db: Database, rows: list[tuple[int, int, int, int]], guild_id: int = GUILD
) -> None:
    """(user_id, balance, wins, games_played) rows, with win_rate kept as settle_game does."""
    async with db.write() as session:
        await session.execute(
            insert(AccountRow),
            [
                {
                    "guild_id": guild_id,
                    "user_id": user_id,
                    "balance": balance,
                    "wins": wins,
                    "games_played": games,
                    "win_rate": wins / games if games else 0.0,
                    "created_at": utcnow(),
                }
                for user_id, balance, wins, games in rows
            ],
        )


async def test_chips_board_shares_ranks_on_ties(db: Database) -> None:
    await add_accounts(
        db, [(1, 500, 0, 0), (2, 900, 0, 0), (3, 900, 0, 0), (4, 100, 0, 0), (5, 500, 0, 0)]
    )
    await add_accounts(db, [(6, 10**6, 0, 0)], guild_id=OTHER_GUILD)
    board = await dblayer.leaderboard(db, GUILD, by="chips", caller_id=4)
    assert [(row.rank, row.user_id, row.value) for row in board.rows] == [
        (1, 2, 900),
        (1, 3, 900),
        (3, 1, 500),
        (3, 5, 500),
        (5, 4, 100),
    ]
    assert board.caller == LeaderRow(rank=5, user_id=4, value=100, games_played=0)


async def test_caller_outside_the_top_gets_their_rank(db: Database) -> None:
    await add_accounts(db, [(user, 1000 - user * 10, 0, 0) for user in range(1, 31)])
    await add_accounts(db, [(99, 750, 0, 0)])  # ties with user 25
    board = await dblayer.leaderboard(db, GUILD, by="chips", caller_id=99, limit=3)
    assert [row.user_id for row in board.rows] == [1, 2, 3]
    assert board.caller == LeaderRow(rank=25, user_id=99, value=750, games_played=0)
    stranger = await dblayer.leaderboard(db, GUILD, by="chips", caller_id=12345, limit=3)
    assert stranger.caller is None
    anonymous = await dblayer.leaderboard(db, GUILD, by="chips", caller_id=None, limit=3)
    assert anonymous.caller is None


async def test_wins_board(db: Database) -> None:
    await add_accounts(db, [(1, 0, 5, 9), (2, 0, 7, 30), (3, 0, 5, 5), (4, 0, 0, 0)])
    board = await dblayer.leaderboard(db, GUILD, by="wins", caller_id=3, limit=2)
    assert [(row.rank, row.user_id, row.value) for row in board.rows] == [(1, 2, 7), (2, 1, 5)]
    assert board.caller == LeaderRow(rank=2, user_id=3, value=5, games_played=5)


@pytest.mark.parametrize("min_games", [3, 10, 20])
async def test_winrate_board_needs_min_games(db: Database, min_games: int) -> None:
    await add_accounts(
        db,
        [
            (1, 0, 1, 1),  # 100 % of one game: never on the board here
            (2, 0, 15, 20),  # 0.75
            (3, 0, 6, 8),  # 0.75 with 8 games
            (4, 0, 10, 40),  # 0.25
            (5, 0, 30, 40),  # 0.75, ties with 2
            (6, 0, 2, 3),  # 0.666
        ],
    )
    board = await dblayer.leaderboard(db, GUILD, by="winrate", caller_id=4, min_games=min_games)
    expected = [(1, 2, 0.75), (1, 3, 0.75), (1, 5, 0.75), (4, 6, 2 / 3), (5, 4, 0.25)]
    expected = [row for row in expected if _games_of(row[1]) >= min_games]
    ranks = _competition([value for _, _, value in expected])
    assert [(row.rank, row.user_id, row.value) for row in board.rows] == [
        (rank, user, value) for rank, (_, user, value) in zip(ranks, expected, strict=True)
    ]
    late = await dblayer.leaderboard(db, GUILD, by="winrate", caller_id=1, min_games=min_games)
    assert late.caller is None


def _games_of(user_id: int) -> int:
    return {2: 20, 3: 8, 4: 40, 5: 40, 6: 3}[user_id]


def _competition(values: list[float]) -> list[int]:
    return [1 + sum(other > value for other in values) for value in values]


async def test_winrate_follows_settlements(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    for game_number in range(12):
        game_id = await make_game([human(1), human(2)], bet=1)
        first = game_number % 3 != 0  # user 1 wins two games in three
        results = {
            0: SeatResult(0 if first else 1, first),
            1: SeatResult(1 if first else 0, not first),
        }
        await dblayer.settle_game(db, game_id, payments=[], results=results, bet=1)
    board = await dblayer.leaderboard(db, GUILD, by="winrate", caller_id=2)
    assert [(row.user_id, row.value, row.games_played) for row in board.rows] == [
        (1, 8 / 12, 12),
        (2, 4 / 12, 12),
    ]
    stats = await dblayer.player_stats(db, GUILD, 1)
    assert (stats.games_played, stats.wins, stats.firsts) == (12, 8, 8)
    assert stats.win_rate == board.rows[0].value


async def test_player_stats(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3)
    game_id = await make_game([human(1), human(2), human(3)], bet=10)
    await dblayer.settle_game(
        db,
        game_id,
        payments=[dblayer.SeatPayment(2, 0, 3, "last"), dblayer.SeatPayment(1, 0, 1, "second")],
        results={
            0: SeatResult(0, True, chops_made=2),
            1: SeatResult(1, False),
            2: SeatResult(2, False, chops_suffered=1),
        },
        bet=10,
    )
    stats = await dblayer.player_stats(db, GUILD, 3)
    assert stats is not None
    assert (stats.balance, stats.games_played, stats.wins, stats.win_rate) == (970, 1, 0, 0.0)
    assert (stats.chips_won, stats.chips_lost, stats.chops_suffered) == (0, 30, 1)
    assert stats.chips_rank == 3
    top = await dblayer.player_stats(db, GUILD, 1)
    assert (top.chips_rank, top.firsts, top.chops_made, top.win_rate) == (1, 1, 2, 1.0)
    assert await dblayer.player_stats(db, GUILD, 404) is None


async def test_bad_arguments(db: Database) -> None:
    with pytest.raises(ValueError):
        await dblayer.leaderboard(db, GUILD, by="luck", caller_id=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        await dblayer.leaderboard(db, GUILD, by="chips", caller_id=None, limit=0)
    with pytest.raises(ValueError):
        await dblayer.leaderboard(db, GUILD, by="winrate", caller_id=None, min_games=-1)


# (order, its index, a value near the top, as for a well-placed caller)
BOARD_QUERIES = [
    ("chips", "ix_accounts_chips", 990),
    ("wins", "ix_accounts_wins", 11),
    ("winrate", "ix_accounts_winrate", 0.9),
]


@pytest.mark.parametrize(("by", "index", "value"), BOARD_QUERIES)
async def test_board_queries_walk_their_index(
    db: Database, backend: Backend, by, index, value
) -> None:
    await add_accounts(
        db, [(user, user * 7 % 1000, user % 13, 10 + user % 17) for user in range(1, 400)]
    )
    queries = [
        top_query(by, GUILD, limit=10, min_games=10),
        better_count_query(by, GUILD, min_games=10, value=value),
    ]
    for query in queries:
        plan = await _plan(db, backend, query)
        assert index in plan, plan
        assert "TEMP B-TREE" not in plan.upper() and "Sort" not in plan, plan
        assert "SCAN accounts" not in plan and "Seq Scan" not in plan, plan


async def _plan(db: Database, backend: Backend, query) -> str:
    sql = str(query.compile(db.engine, compile_kwargs={"literal_binds": True}))
    async with db.read() as session:
        if backend.name == "sqlite":
            rows = await session.execute(text(f"EXPLAIN QUERY PLAN {sql}"))
            return "\n".join(row[-1] for row in rows)
        # A 400-row table is cheap to scan; ask whether the index *can* serve.
        await session.execute(text("ANALYZE accounts"))
        await session.execute(text("SET LOCAL enable_seqscan = off"))
        await session.execute(text("SET LOCAL enable_sort = off"))
        rows = await session.execute(text(f"EXPLAIN {sql}"))
        return "\n".join(row[0] for row in rows)

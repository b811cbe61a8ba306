"""Skill ratings: moved once by a rated game's settlement, with AI seats as fixed
references; boards and histories read them back; the backfill rates old games alike."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import delete, func, select

import db as dblayer
from db import Database, SeatPayment, SeatResult
from db.backfill_ratings import backfill
from db.models import RatingHistoryRow, RatingRow
from tests.db.dbtest_support import GUILD, human, robot
from tienlen.ratings import AI_REFERENCES, Rating


def results(order: list[int]) -> dict[int, SeatResult]:
    return {seat: SeatResult(place=place, won=place == 0) for place, seat in enumerate(order)}


async def settle(db: Database, game_id: int, order: list[int], *, rate: bool = True):
    payments = [SeatPayment(payer=order[-1], payee=order[0], units=1, reason="place")]
    ranks = {seat: place + 1 for place, seat in enumerate(order)} if rate else None
    outcome = {"places": order}
    async with db.write() as session:
        from db.models import GameRow

        row = await session.get(GameRow, game_id)
        row.outcome = outcome
    return await dblayer.settle_game(db, game_id, payments=payments, results=results(order), bet=10, ranks=ranks)


async def test_a_game_rates_its_humans_as_openskill_does(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3)
    game_id = await make_game([human(1), human(2), human(3)])
    settled = await settle(db, game_id, [2, 0, 1])
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(3)], ranks=[2, 3, 1])
    for seat, team in enumerate(expected):
        change = settled.ratings[seat]
        assert change.mu_after == pytest.approx(team[0].mu) and change.sigma_after == pytest.approx(team[0].sigma)
    first = await dblayer.player_rating(db, GUILD, 3)
    assert first.rank == 1 and first.games == 1 and first.peak == Rating(first.mu, first.sigma).shown


async def test_ai_seats_are_fixed_references(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), robot("hard"), human(2)])
    settled = await settle(db, game_id, [1, 0, 2])  # the AI first
    model = PlackettLuce()
    hard = AI_REFERENCES["hard"]
    expected = model.rate([[model.rating()], [model.rating(mu=hard.mu, sigma=hard.sigma)], [model.rating()]],
                          ranks=[2, 1, 3])
    assert set(settled.ratings) == {0, 2}
    assert settled.ratings[0].mu_after == pytest.approx(expected[0][0].mu)
    async with db.read() as session:
        assert await session.scalar(select(func.count()).select_from(RatingRow)) == 2  # humans only


async def test_a_replayed_settlement_changes_no_rating_twice(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    first = await settle(db, game_id, [0, 1])
    again = await settle(db, game_id, [0, 1])
    assert again.replayed and again.ratings == first.ratings
    rating = await dblayer.player_rating(db, GUILD, 1)
    assert rating.games == 1
    async with db.read() as session:
        assert await session.scalar(select(func.count()).select_from(RatingHistoryRow)) == 2


async def test_unrated_settlements_and_lone_humans_move_nothing(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    assert (await settle(db, game_id, [0, 1], rate=False)).ratings == {}
    assert await dblayer.player_rating(db, GUILD, 1) is None


async def test_boards_list_provisional_players_apart(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3)
    for _ in range(10):
        await settle(db, await make_game([human(1), human(2)]), [0, 1])
    await settle(db, await make_game([human(3), human(1)]), [0, 1])
    board = await dblayer.rating_board(db, GUILD, caller_id=3)
    assert [row.user_id for row in board.rows] == [1, 2]  # ten games or more
    assert [row.user_id for row in board.provisional] == [3]
    assert board.caller.user_id == 3 and board.rows[0].games_played == 11
    history = await dblayer.rated_games(db, GUILD, 1, limit=50)
    assert len(history) == 11 and history[0].game_id < history[-1].game_id
    assert all(game.balance_after is not None for game in history)


async def test_a_provisional_player_has_a_rank_among_the_provisional_ones(
    db: Database, make_accounts, make_game
) -> None:
    """/tienlen stats shows rating, rank and peak for everybody: a player with
    fewer than ten rated games ranks among the provisional players (their
    place on the board's provisional list), marked provisional."""
    await make_accounts(1, 2, 3, 4, 5)
    for _ in range(10):
        await settle(db, await make_game([human(1), human(2)]), [0, 1])  # 1 and 2: established
    await settle(db, await make_game([human(3), human(4)]), [0, 1])
    await settle(db, await make_game([human(5), human(4)]), [0, 1])
    board = await dblayer.rating_board(db, GUILD, caller_id=None)
    provisional = {row.user_id: row.rank for row in board.provisional}
    assert set(provisional) == {3, 4, 5}
    for user in (3, 4, 5):
        rating = await dblayer.player_rating(db, GUILD, user)
        assert rating.provisional and rating.games < 10
        assert rating.rank == provisional[user]  # not behind the established players
        assert rating.peak >= Rating(rating.mu, rating.sigma).shown
    established = {row.user_id: row.rank for row in board.rows}
    for user in (1, 2):
        rating = await dblayer.player_rating(db, GUILD, user)
        assert not rating.provisional and rating.rank == established[user]
    caller = (await dblayer.rating_board(db, GUILD, caller_id=4)).caller
    assert caller.rank == (await dblayer.player_rating(db, GUILD, 4)).rank


async def test_the_backfill_rates_old_games_as_live_play_did(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3)
    orders = [[0, 1, 2], [2, 1, 0], [1, 2, 0], [0, 2, 1]]
    for order in orders:
        await settle(db, await make_game([human(1), human(2), human(3)]), order)
    async with db.read() as session:
        live = sorted((await session.execute(select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma,
                                                    RatingRow.games, RatingRow.peak))).all())
    async with db.write() as session:
        await session.execute(delete(RatingHistoryRow))
        await session.execute(delete(RatingRow))
    assert await backfill(db) == len(orders)
    assert await backfill(db) == 0  # nothing twice
    async with db.read() as session:
        again = sorted((await session.execute(select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma,
                                                     RatingRow.games, RatingRow.peak))).all())
    assert [row[0] for row in again] == [row[0] for row in live]
    for mine, theirs in zip(again, live):
        assert mine[1:3] == pytest.approx(theirs[1:3]) and mine[3:] == theirs[3:]


def test_the_backfill_runs_as_a_command(tmp_path) -> None:
    import subprocess
    import sys
    from pathlib import Path

    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    done = subprocess.run([sys.executable, "-m", "db.backfill_ratings", url], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "rated 0 games"

"""The lean hot paths: settlements as one account UPDATE per game, the
action log as one INSERT per batch, both through Database.write_connection
(so the cluster fence still applies), and the SQLite adapter that runs each
statement in one aiosqlite thread hop."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, insert, select, text

import db as dblayer
from db import (
    ActionConflict,
    Database,
    Fence,
    GameClosed,
    GameNotFound,
    SeatPayment,
    SeatResult,
    StaleEpoch,
)
from db.models import AccountRow, ClusterSlotRow, GameActionRow, LedgerRow
from runtime.records import AppendAction
from runtime.store import Refused, Store
from tests.db.dbtest_support import CHANNEL, GUILD, START, Backend, human, robot


def pay(payer: int, payee: int, units: int) -> SeatPayment:
    return SeatPayment(payer=payer, payee=payee, units=units, reason="x")


async def account(db: Database, user_id: int) -> dblayer.Account:
    found = await dblayer.get_account(db, GUILD, user_id)
    assert found is not None
    return found


# ------------------------------------------------------------- settlements


async def test_one_update_moves_every_seat_with_a_shortfall_and_rake(
    db: Database, make_accounts, make_game
) -> None:
    await make_accounts(11, 12, 13)
    await make_accounts(14, chips=70)
    game_id = await make_game([human(11), human(12), human(13), human(14)], bet=50)
    results = {
        0: SeatResult(place=0, won=True, chops_made=2),
        1: SeatResult(place=1, won=True),
        2: SeatResult(place=2, won=False, chops_suffered=1),
        3: SeatResult(place=3, won=False, chops_suffered=3),
    }
    # Seat 3 owes 150 + 50 with 70 chips; seat 2 owes 50 to seat 1.
    payments = [pay(3, 0, 3), pay(3, 1, 1), pay(2, 1, 1)]
    result = await dblayer.settle_game(
        db, game_id, payments=payments, results=results, bet=50, rake_percent=10
    )
    # Collected 70 + 50 = 120 of 250 owed: shares of 150 and 100 -> 72 and 48.
    figures = {seat: (line.owed, line.gross, line.rake, line.net) for seat, line in result.lines.items()}
    assert figures == {
        0: (150, 72, 7, 65),
        1: (100, 48, 4, 44),
        2: (-50, -50, 0, -50),
        3: (-200, -70, 0, -70),
    }
    assert [line.balance_after for line in result.lines.values()] == [1065, 1044, 950, 0]
    winner, second, third, last = [await account(db, user) for user in (11, 12, 13, 14)]
    assert (winner.balance, winner.firsts, winner.wins, winner.chops_made) == (1065, 1, 1, 2)
    assert (winner.chips_won, winner.chips_lost, winner.games_played) == (65, 0, 1)
    assert (second.firsts, second.wins, second.chips_won) == (0, 1, 44)
    assert (third.wins, third.chips_lost, third.chops_suffered) == (0, 50, 1)
    assert (last.balance, last.chips_lost, last.chops_suffered) == (0, 70, 3)
    async with db.read() as session:
        rates = dict(
            (await session.execute(select(AccountRow.user_id, AccountRow.win_rate))).all()
        )
        lines = list(
            await session.scalars(
                select(LedgerRow).where(LedgerRow.game_id == game_id).order_by(LedgerRow.id)
            )
        )
    assert rates == {11: 1.0, 12: 1.0, 13: 0.0, 14: 0.0}
    assert [(entry.user_id, entry.amount, entry.balance_after) for entry in lines] == [
        (11, 65, 1065),
        (12, 44, 1044),
        (13, -50, 950),
        (14, -70, 0),
    ]
    assert [entry.details for entry in lines] == [{"seat": seat} for seat in range(4)]

    again = await dblayer.settle_game(
        db, game_id, payments=[pay(3, 0, 99)], results=results, bet=50, rake_percent=10
    )
    assert again.replayed is True and again.lines == result.lines
    assert (await account(db, 11)).balance == 1065


@pytest.mark.parametrize("humans", [1, 2, 3, 5, 6])
async def test_any_number_of_human_seats(
    db: Database, make_accounts, make_game, humans: int
) -> None:
    """One statement per seat count: each count is its own built statement."""
    users = list(range(21, 21 + humans))
    await make_accounts(*users)
    seats = [human(user) for user in users] + [robot()]
    game_id = await make_game(seats, bet=10)
    payments = [pay(seat, 0, 1) for seat in range(1, len(seats))]
    results = {seat: SeatResult(place=seat, won=seat == 0) for seat in range(len(seats))}
    result = await dblayer.settle_game(db, game_id, payments=payments, results=results, bet=10)
    assert [line.net for line in result.lines.values()] == [10 * (humans - 1)] + [-10] * (humans - 1)
    for user, line in zip(users, result.lines.values(), strict=True):
        assert (await account(db, user)).balance == line.balance_after
        assert (await account(db, user)).games_played == 1


async def test_win_rate_follows_wins_over_games(db: Database, make_accounts, make_game) -> None:
    await make_accounts(31, 32)
    results_by_game = [(True, False), (False, True), (True, False)]
    for first_won, second_won in results_by_game:
        game_id = await make_game([human(31), human(32)], bet=1)
        await dblayer.settle_game(
            db,
            game_id,
            payments=[pay(1, 0, 1) if first_won else pay(0, 1, 1)],
            results={0: SeatResult(0 if first_won else 1, first_won), 1: SeatResult(0 if second_won else 1, second_won)},
            bet=1,
        )
    async with db.read() as session:
        rates = dict(
            (await session.execute(select(AccountRow.user_id, AccountRow.win_rate))).all()
        )
    assert rates[31] == pytest.approx(2 / 3) and rates[32] == pytest.approx(1 / 3)


async def test_overlapping_settlements_at_once_on_one_handle(
    db: Database, make_accounts, make_game
) -> None:
    """Eight writers on one Database, every game sharing players (the same
    rows locked in user-id order on PostgreSQL): no deadlock, no lost update."""
    users = list(range(41, 47))
    await make_accounts(*users, chips=START)
    games = []
    for n in range(24):
        players = [users[(n + k) % len(users)] for k in (0, 2, 3, 5)]
        games.append(await make_game([human(user) for user in players], bet=7))
    payments = [pay(3, 0, 2), pay(2, 1, 1)]
    results = {seat: SeatResult(place=seat, won=seat < 2) for seat in range(4)}
    settled = await asyncio.gather(
        *(
            dblayer.settle_game(db, game_id, payments=payments, results=results, bet=7)
            for game_id in games + games[:8]  # a third of them twice
        )
    )
    assert sum(result.replayed for result in settled) == 8
    async with db.read() as session:
        balances = dict((await session.execute(select(AccountRow.user_id, AccountRow.balance))).all())
        totals = dict(
            (
                await session.execute(
                    select(LedgerRow.user_id, func.sum(LedgerRow.amount)).group_by(LedgerRow.user_id)
                )
            ).all()
        )
        played = await session.scalar(select(func.sum(AccountRow.games_played)))
    assert balances == {user: int(total) for user, total in totals.items()}
    assert sum(balances.values()) == START * len(users)
    assert played == 4 * len(games)


# --------------------------------------------------------------- the fence


async def stale_fence(db: Database) -> None:
    """Give the handle a fence whose epoch is no longer the slot's."""
    async with db.write() as session:
        await session.execute(insert(ClusterSlotRow).values(slot=0, epoch=5))
    db.fence = Fence(slot=0, epoch=4)


async def test_settlement_and_action_log_check_the_fence(
    db: Database, make_accounts, make_game
) -> None:
    await make_accounts(51, 52)
    game_id = await make_game([human(51), human(52)], bet=10)
    await stale_fence(db)
    results = {0: SeatResult(0, True), 1: SeatResult(1, False)}
    with pytest.raises(StaleEpoch):
        await dblayer.settle_game(db, game_id, payments=[pay(1, 0, 1)], results=results, bet=10)
    with pytest.raises(StaleEpoch):
        await dblayer.append_actions(db, [(game_id, 0, {"x": 1})])
    with pytest.raises(StaleEpoch):
        await Store(db).commit(CHANNEL, GUILD, [AppendAction(game_id=game_id, seq=0, action={"x": 1})])
    db.fence = Fence(slot=0, epoch=5)
    await dblayer.settle_game(db, game_id, payments=[pay(1, 0, 1)], results=results, bet=10)
    db.fence = None
    assert (await account(db, 51)).balance == START + 10
    assert (await dblayer.load_game(db, game_id)).actions == ()


# -------------------------------------------------------------- action log


async def test_one_batch_with_every_outcome(db: Database, make_game) -> None:
    running = await make_game([human(1), human(2)])
    other = await make_game([human(3), human(4)])
    closed = await make_game([human(5), human(6)])
    await dblayer.append_action(db, running, 0, {"play": [0]})
    await dblayer.append_action(db, closed, 0, {"play": [9]})
    await dblayer.abort_game(db, closed, "left")
    outcomes = await dblayer.append_actions(
        db,
        [
            (running, 1, {"play": [1]}),  # new
            (running, 0, {"play": [0]}),  # retry of a stored move
            (other, 0, {"pass": True}),  # new, another game
            (running, 0, {"play": [7]}),  # conflicts with the stored move
            (424242, 0, {"x": 1}),  # no such game
            (closed, 1, {"play": [1]}),  # game no longer running
            (closed, 0, {"play": [9]}),  # late retry on a closed game: fine
            (closed, 0, {"play": [8]}),  # ... but not a different one
            (other, 1, (1, 2)),  # a tuple is stored as a list
            (other, 2, {"a": 1}),
            (other, 2, {"a": 1}),  # the same move twice in one batch
            (other, 3, {"b": 1}),
            (other, 3, {"b": 2}),  # two different moves at one seq in one batch
        ],
    )
    kinds = [type(outcome).__name__ if outcome else None for outcome in outcomes]
    assert kinds == [
        None,
        None,
        None,
        ActionConflict.__name__,
        GameNotFound.__name__,
        GameClosed.__name__,
        None,
        ActionConflict.__name__,
        None,
        None,
        None,
        None,
        ActionConflict.__name__,
    ]
    assert (await dblayer.load_game(db, running)).actions == ({"play": [0]}, {"play": [1]})
    assert (await dblayer.load_game(db, other)).actions == (
        {"pass": True},
        [1, 2],
        {"a": 1},
        {"b": 1},
    )
    assert (await dblayer.load_game(db, closed)).actions == ({"play": [9]},)


async def test_a_batch_larger_than_one_statement(db: Database, make_game) -> None:
    games = [await make_game([human(2 * n + 1), human(2 * n + 2)]) for n in range(3)]
    items = [(games[n % 3], n // 3, {"n": n}) for n in range(1234)]
    assert await dblayer.append_actions(db, items) == [None] * len(items)
    async with db.read() as session:
        assert await session.scalar(select(func.count()).select_from(GameActionRow)) == 1234
    stored = await dblayer.load_game(db, games[1])
    assert [action["n"] for action in stored.actions] == list(range(1, 1234, 3))
    assert await dblayer.append_actions(db, []) == []


async def test_the_stores_group_commit_keeps_each_tables_order(
    db: Database, make_game
) -> None:
    games = [await make_game([human(2 * n + 1), human(2 * n + 2)]) for n in range(6)]
    store = Store(db)

    def move(game_id: int, seq: int, action: dict) -> list[AppendAction]:
        return [AppendAction(game_id=game_id, seq=seq, action=action)]

    async def table(game_id: int) -> None:
        for seq in range(15):
            await store.commit(CHANNEL + game_id, GUILD, move(game_id, seq, {"game": game_id, "seq": seq}))

    await asyncio.gather(*(table(game_id) for game_id in games))
    assert store.steps == 6 * 15
    assert store.commits < store.steps  # moves shared commits
    for game_id in games:
        actions = (await dblayer.load_game(db, game_id)).actions
        assert actions == tuple({"game": game_id, "seq": seq} for seq in range(15))
    await dblayer.abort_game(db, games[0], "left")
    with pytest.raises(Refused) as closed:
        await store.commit(CHANNEL, GUILD, move(games[0], 15, {"late": True}))
    assert isinstance(closed.value.error, GameClosed)
    with pytest.raises(Refused) as conflict:
        await store.commit(CHANNEL, GUILD, move(games[1], 0, {"other": True}))
    assert isinstance(conflict.value.error, ActionConflict)


# ------------------------------------------------ SQLite: one hop a statement


async def test_sqlite_adapter_reports_like_a_dbapi_cursor(db: Database, backend: Backend) -> None:
    if backend.name != "sqlite":
        pytest.skip("the aiosqlite adapter")
    async with db.write_connection() as connection:
        await connection.execute(text("CREATE TABLE scratch (id INTEGER PRIMARY KEY, n INTEGER)"))
        many = await connection.execute(
            text("INSERT INTO scratch (n) VALUES (:n)"), [{"n": n} for n in range(5)]
        )
        assert many.rowcount == 5
        one = await connection.execute(text("INSERT INTO scratch (n) VALUES (42)"))
        assert one.lastrowid == 6
        updated = await connection.execute(text("UPDATE scratch SET n = n + 1 WHERE n < 3"))
        assert updated.rowcount == 3
        rows = await connection.execute(text("SELECT id, n FROM scratch ORDER BY id"))
        assert list(rows.keys()) == ["id", "n"]
        assert [tuple(row) for row in rows] == [(1, 1), (2, 2), (3, 3), (4, 3), (5, 4), (6, 42)]
        fetched = await connection.execute(text("SELECT n FROM scratch ORDER BY id"))
        assert fetched.fetchmany() == [(1,)]  # the DBAPI default arraysize
        assert fetched.fetchmany(2) == [(2,), (3,)]
        streamed = await connection.stream(text("SELECT n FROM scratch ORDER BY id"))
        assert [row.n async for row in streamed] == [1, 2, 3, 3, 4, 42]
    with pytest.raises(Exception, match="no such table"):
        async with db.write_connection() as connection:
            await connection.execute(text("INSERT INTO scratch (n) VALUES (7)"))
            await connection.execute(text("SELECT * FROM missing"))
    async with db.read() as session:
        assert await session.scalar(text("SELECT count(*) FROM scratch")) == 6  # rolled back

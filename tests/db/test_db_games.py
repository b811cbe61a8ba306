"""Stored games (create, action log, finish/abort, restore, history) and
saved tables."""

from __future__ import annotations

import pytest

import db as dblayer
from db import (
    ActionConflict,
    Database,
    GameClosed,
    GameNotFound,
    GameStatus,
    InvalidGame,
    SeatResult,
)
from tests.db.dbtest_support import CHANNEL, GUILD, human, robot

OTHER_CHANNEL = 444


async def test_created_game_loads_back(db: Database, make_game) -> None:
    seats = [human(1, "An"), robot("hard"), human(2, "Bình")]
    game_id = await make_game(seats, bet=50)
    game = await dblayer.load_game(db, game_id)
    assert (game.id, game.guild_id, game.channel_id) == (game_id, GUILD, CHANNEL)
    assert (game.rules, game.bet, game.status) == ("mien-nam", 50, GameStatus.RUNNING)
    assert game.seats == seats
    assert game.options == {"turn_seconds": 30}
    assert game.record["rules"] == "mien-nam"
    assert game.actions == ()
    assert game.ended_at is None and game.settled_at is None and game.outcome is None
    assert "hands" not in repr(game)


async def test_actions_are_stored_in_order_and_retries_are_harmless(
    db: Database, make_game
) -> None:
    game_id = await make_game([human(1), human(2)])
    actions = [{"seat": 0, "play": [0]}, {"seat": 1, "pass": True}, {"seat": 0, "play": [4, 5]}]
    for seq in (0, 2, 1):
        await dblayer.append_action(db, game_id, seq, actions[seq])
    await dblayer.append_action(db, game_id, 1, {"pass": True, "seat": 1})
    game = await dblayer.load_game(db, game_id)
    assert list(game.actions) == actions


async def test_different_action_at_a_stored_seq_is_refused(db: Database, make_game) -> None:
    game_id = await make_game([human(1), human(2)])
    await dblayer.append_action(db, game_id, 0, {"seat": 0, "play": [0]})
    with pytest.raises(ActionConflict):
        await dblayer.append_action(db, game_id, 0, {"seat": 0, "play": [1]})
    assert (await dblayer.load_game(db, game_id)).actions == ({"seat": 0, "play": [0]},)


async def test_actions_need_a_running_game(db: Database, make_game) -> None:
    with pytest.raises(GameNotFound):
        await dblayer.append_action(db, 424242, 0, {"x": 1})
    game_id = await make_game([human(1), human(2)])
    await dblayer.append_action(db, game_id, 0, {"x": 1})
    await dblayer.abort_game(db, game_id, "host left")
    await dblayer.append_action(db, game_id, 0, {"x": 1})  # a late retry is fine
    with pytest.raises(GameClosed):
        await dblayer.append_action(db, game_id, 1, {"x": 2})
    assert len((await dblayer.load_game(db, game_id)).actions) == 1


async def test_action_must_be_json(db: Database, make_game) -> None:
    game_id = await make_game([human(1), human(2)])
    with pytest.raises(InvalidGame):
        await dblayer.append_action(db, game_id, 0, {"cards": {1, 2}})


async def test_unfinished_games_come_back_with_their_actions(db: Database, make_game) -> None:
    finished = await make_game([human(1), human(2)])
    aborted = await make_game([human(3), human(4)])
    running = [await make_game([human(5), robot()]), await make_game([human(6), human(7)])]
    for seq in range(3):
        await dblayer.append_action(db, running[0], seq, {"n": seq})
    await dblayer.append_action(db, running[1], 0, {"n": 0})
    await dblayer.append_action(db, finished, 0, {"n": 0})
    await dblayer.finish_game(db, finished, {"places": [0, 1]})
    await dblayer.abort_game(db, aborted, "bot shutdown")
    restored = await dblayer.unfinished_games(db)
    assert [game.id for game in restored] == running
    assert [list(game.actions) for game in restored] == [
        [{"n": 0}, {"n": 1}, {"n": 2}],
        [{"n": 0}],
    ]


async def test_finish_and_abort(db: Database, make_game) -> None:
    game_id = await make_game([human(1), human(2)])
    await dblayer.finish_game(db, game_id, {"places": [1, 0]})
    await dblayer.finish_game(db, game_id, {"places": [0, 1]})  # retry: no change
    game = await dblayer.load_game(db, game_id)
    assert game.status is GameStatus.FINISHED
    assert game.outcome == {"places": [1, 0]}
    assert game.ended_at is not None
    with pytest.raises(GameClosed):
        await dblayer.abort_game(db, game_id, "too late")
    other = await make_game([human(1), human(2)])
    await dblayer.abort_game(db, other, "timeout")
    await dblayer.abort_game(db, other, "timeout")
    assert (await dblayer.load_game(db, other)).outcome == {"aborted": "timeout"}
    with pytest.raises(GameClosed):
        await dblayer.finish_game(db, other, {})
    with pytest.raises(GameNotFound):
        await dblayer.finish_game(db, 424242, {})
    with pytest.raises(GameNotFound):
        await dblayer.load_game(db, 424242)


async def test_outcome_is_kept_when_settled_before_finishing(
    db: Database, make_accounts, make_game
) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    results = {0: SeatResult(0, True), 1: SeatResult(1, False)}
    await dblayer.settle_game(db, game_id, payments=[], results=results, bet=10)
    await dblayer.finish_game(db, game_id, {"places": [0, 1]})
    assert (await dblayer.load_game(db, game_id)).outcome == {"places": [0, 1]}


async def test_recent_games_for_history(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3)
    old = await make_game([human(1), human(2)], bet=10)
    await dblayer.settle_game(
        db,
        old,
        payments=[dblayer.SeatPayment(payer=1, payee=0, units=2, reason="last")],
        results={0: SeatResult(0, True), 1: SeatResult(1, False)},
        bet=10,
    )
    aborted = await make_game([human(1), human(3)])
    await dblayer.abort_game(db, aborted, "left")
    await make_game([human(2), human(3)])  # still running: not history
    elsewhere = await make_game([human(1), human(2)], channel_id=OTHER_CHANNEL)
    await dblayer.finish_game(db, elsewhere, {})
    newest = await make_game([human(3), robot("easy"), human(1)], bet=5)
    await dblayer.settle_game(
        db,
        newest,
        payments=[
            dblayer.SeatPayment(payer=2, payee=0, units=1, reason="last"),
            dblayer.SeatPayment(payer=1, payee=0, units=3, reason="ai pays nothing"),
        ],
        results={0: SeatResult(0, True), 1: SeatResult(1, False), 2: SeatResult(2, False)},
        bet=5,
    )
    history = await dblayer.recent_games(db, GUILD, CHANNEL)
    assert [game.game_id for game in history] == [newest, aborted, old]
    latest = history[0]
    assert latest.status is GameStatus.FINISHED
    assert [(s.user_id, s.place, s.chips, s.ai) for s in latest.seats] == [
        (3, 0, 5, None),
        (None, 1, None, "easy"),
        (1, 2, -5, None),
    ]
    assert [(s.place, s.chips) for s in history[1].seats] == [(None, None), (None, None)]
    assert [(s.place, s.chips) for s in history[2].seats] == [(0, 20), (1, -20)]
    assert len(await dblayer.recent_games(db, GUILD, CHANNEL, limit=1)) == 1


async def test_bad_seats_are_refused(db: Database, make_game) -> None:
    for seats in ([], [{"name": "no id"}], [human(1), human(1)], "1,2"):
        with pytest.raises(InvalidGame):
            await make_game(seats)


async def test_tables_are_saved_replaced_and_deleted(db: Database) -> None:
    assert await dblayer.load_tables(db) == []
    await dblayer.save_table(db, 20, GUILD, {"host": 1, "seats": [1, None]})
    await dblayer.save_table(db, 10, GUILD, {"host": 2})
    await dblayer.save_table(db, 20, GUILD, {"host": 3, "series": {"games": 2}})
    tables = await dblayer.load_tables(db)
    assert [(t.channel_id, t.guild_id, t.state) for t in tables] == [
        (10, GUILD, {"host": 2}),
        (20, GUILD, {"host": 3, "series": {"games": 2}}),
    ]
    assert all(t.updated_at.tzinfo is not None for t in tables)
    assert await dblayer.delete_table(db, 20) is True
    assert await dblayer.delete_table(db, 20) is False
    assert [t.channel_id for t in await dblayer.load_tables(db)] == [10]

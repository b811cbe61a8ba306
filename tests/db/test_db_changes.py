"""One table change in one transaction (db.commit_changes): every part of a
change is stored, or none; changes of one batch fail alone; a commit whose
outcome cannot be known says so."""

from __future__ import annotations

import pytest
from sqlalchemy import exc

import db as dblayer
from db import (
    ActionConflict,
    ChangeReceipt,
    CommitOutcomeUnknown,
    Database,
    GameClosed,
    GameSettlement,
    GameStatus,
    NewGame,
    SeatPayment,
    SeatResult,
    TableChange,
    TablePlaying,
    UnknownAccount,
)
from tests.db.dbtest_support import CHANNEL, GUILD, START, connection_lost_at_commit, human, robot

OTHER_CHANNEL = 444


def new_game(seats) -> NewGame:
    return NewGame(rules="mien-nam", options={}, bet=10, seats=seats, record={"hands": ["3S", "4S"]})


def finish(places=(0, 1)) -> GameSettlement:
    return GameSettlement(
        payments=[SeatPayment(payer=places[1], payee=places[0], units=2, reason="place")],
        results={seat: SeatResult(place=places.index(seat), won=seat == places[0]) for seat in places},
        bet=10, rake_percent=0, outcome={"places": list(places)})


async def tables(db: Database) -> dict[int, tuple[dict, int | None]]:
    return {row.channel_id: (row.state, row.game_id) for row in await dblayer.load_tables(db)}


async def test_a_deal_creates_the_game_and_points_the_table_at_it(db: Database) -> None:
    [receipt] = await dblayer.commit_changes(db, [TableChange(
        channel_id=CHANNEL, guild_id=GUILD, new_game=new_game([human(1), robot()]),
        state={"phase": "playing"}, playing=True)])
    assert isinstance(receipt, ChangeReceipt) and receipt.game_id is not None
    assert await tables(db) == {CHANNEL: ({"phase": "playing"}, receipt.game_id)}
    stored = await dblayer.load_game(db, receipt.game_id)
    assert stored.status is GameStatus.RUNNING and stored.channel_id == CHANNEL


async def test_a_second_deal_at_a_table_that_plays_a_running_game_is_refused(db: Database) -> None:
    deal = TableChange(channel_id=CHANNEL, guild_id=GUILD, new_game=new_game([human(1), robot()]),
                       state={"phase": "playing"}, playing=True)
    [first] = await dblayer.commit_changes(db, [deal])
    [again] = await dblayer.commit_changes(db, [deal])
    assert isinstance(again, TablePlaying) and again.game_id == first.game_id
    assert [game.id for game in await dblayer.unfinished_games(db)] == [first.game_id]
    await dblayer.abort_game(db, first.game_id, "test")  # a game no longer running: a new deal is fine
    [third] = await dblayer.commit_changes(db, [deal])
    assert isinstance(third, ChangeReceipt) and third.game_id != first.game_id


async def test_a_refused_action_stores_nothing_of_its_change_and_the_batch_goes_on(db: Database, make_game) -> None:
    first, second = await make_game([human(1), human(2)]), await make_game([human(3), human(4)], channel_id=OTHER_CHANNEL)
    await dblayer.append_action(db, first, 0, ["pass", 0])
    results = await dblayer.commit_changes(db, [
        TableChange(channel_id=CHANNEL, guild_id=GUILD, game_id=first, actions=[(0, ["pass", 1])],
                    state={"moved": True}, playing=True),
        TableChange(channel_id=OTHER_CHANNEL, guild_id=GUILD, game_id=second, actions=[(0, ["pass", 0])],
                    state={"moved": True}, playing=True),
    ])
    assert isinstance(results[0], ActionConflict) and results[1] == ChangeReceipt()
    assert await tables(db) == {OTHER_CHANNEL: ({"moved": True}, second)}
    assert (await dblayer.load_game(db, second)).actions == (["pass", 0],)


async def test_the_last_move_settles_finishes_and_frees_the_table_at_once(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    change = TableChange(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id, actions=[(0, ["play", 0, "3S"])],
                         settle=finish(), state={"phase": "between"})
    [receipt] = await dblayer.commit_changes(db, [change])
    assert receipt.settlement is not None and receipt.settlement.lines[0].net == 20
    stored = await dblayer.load_game(db, game_id)
    assert stored.status is GameStatus.FINISHED and stored.outcome == {"places": [0, 1]}
    assert stored.actions == (["play", 0, "3S"],)
    assert await tables(db) == {CHANNEL: ({"phase": "between"}, None)}
    # Stored again (a retry after a lost answer): the settlement is replayed, nothing paid twice.
    retry = TableChange(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id, settle=finish(),
                        state={"phase": "between"})
    [again] = await dblayer.commit_changes(db, [retry])
    assert again.settlement.replayed and again.settlement.lines[0].net == 20
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START + 20


async def test_a_change_that_fails_inside_the_transaction_fails_alone(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    settled = await make_game([human(1), human(2)])
    unknown = await make_game([human(8), human(9)], channel_id=OTHER_CHANNEL)  # no accounts: cannot settle
    results = await dblayer.commit_changes(db, [
        TableChange(channel_id=CHANNEL, guild_id=GUILD, game_id=settled, settle=finish(), state={"ok": 1}),
        TableChange(channel_id=OTHER_CHANNEL, guild_id=GUILD, game_id=unknown, settle=finish(), state={"ok": 2}),
    ])
    assert isinstance(results[0], ChangeReceipt) and isinstance(results[1], UnknownAccount)
    assert await tables(db) == {CHANNEL: ({"ok": 1}, None)}
    assert (await dblayer.load_game(db, unknown)).status is GameStatus.RUNNING


async def test_ending_a_table_aborts_its_game_and_forgets_it(db: Database, make_game) -> None:
    game_id = await make_game([human(1), human(2)])
    await dblayer.commit_changes(db, [TableChange(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id,
                                                  state={"phase": "playing"}, playing=True)])
    assert await tables(db) == {CHANNEL: ({"phase": "playing"}, game_id)}
    [receipt] = await dblayer.commit_changes(db, [TableChange(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id,
                                                              abort="ended", delete=True)])
    assert receipt == ChangeReceipt() and await tables(db) == {}
    stored = await dblayer.load_game(db, game_id)
    assert stored.status is GameStatus.ABORTED and stored.outcome == {"aborted": "ended"}
    [finished] = await dblayer.commit_changes(db, [TableChange(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id,
                                                               settle=finish())])
    assert isinstance(finished, GameClosed)


async def test_an_instant_win_is_dealt_and_settled_in_one_change(db: Database, make_accounts) -> None:
    await make_accounts(1, 2)
    [receipt] = await dblayer.commit_changes(db, [TableChange(
        channel_id=CHANNEL, guild_id=GUILD, new_game=new_game([human(1), human(2)]), settle=finish((1, 0)),
        state={"phase": "between"})])
    assert receipt.game_id is not None and receipt.settlement.lines[1].net == 20
    assert (await dblayer.load_game(db, receipt.game_id)).status is GameStatus.FINISHED


@pytest.mark.parametrize("landed", [True, False], ids=["committed", "rolled-back"])
async def test_a_connection_lost_during_commit_leaves_the_outcome_unknown(db: Database, landed: bool) -> None:
    """Whichever way the COMMIT went, the caller is told it cannot know (not
    that nothing was stored); the connection is replaced for the next write."""
    change = TableChange(channel_id=CHANNEL, guild_id=GUILD, state={"phase": "lobby"})
    with connection_lost_at_commit(landed=landed), pytest.raises(CommitOutcomeUnknown) as raised:
        await dblayer.commit_changes(db, [change])
    assert isinstance(raised.value.error, exc.DBAPIError) and raised.value.error.connection_invalidated
    assert not isinstance(raised.value, dblayer.DbError)  # not a refusal: a batch must not be run again
    assert await tables(db) == ({CHANNEL: ({"phase": "lobby"}, None)} if landed else {})
    await dblayer.commit_changes(db, [TableChange(channel_id=CHANNEL, guild_id=GUILD, state={"phase": "again"})])
    assert await tables(db) == {CHANNEL: ({"phase": "again"}, None)}


async def test_a_batch_stored_one_by_one_that_fails_midway_is_of_unknown_outcome(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change that raises makes the batch go one change at a time; should
    the database fail after some are committed, "nothing stored" is false."""
    real, calls = db.hot_write, []

    async def failing_at_the_last(body, *args):
        calls.append(args)
        if len(calls) == 4:  # the batch, then A, B and C alone
            raise exc.OperationalError("COMMIT", None, Exception("injected: the database went away"))
        return await real(body, *args)

    monkeypatch.setattr(db, "hot_write", failing_at_the_last)
    with pytest.raises(CommitOutcomeUnknown):
        await dblayer.commit_changes(db, [
            TableChange(channel_id=CHANNEL, guild_id=GUILD, state={"a": 1}),
            TableChange(channel_id=OTHER_CHANNEL, guild_id=GUILD, game_id=10**9, abort="no such game"),
            TableChange(channel_id=OTHER_CHANNEL + 1, guild_id=GUILD, state={"c": 1}),
        ])
    assert await tables(db) == {CHANNEL: ({"a": 1}, None)}

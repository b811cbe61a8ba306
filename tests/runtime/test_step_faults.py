"""Every table change under database faults: a failed write changes nothing,
in memory as in the database, and what must happen happens once it is back.

For each command, a write of the kind it needs fails: the command is
refused ("nothing changed"), and the tables in memory equal what a fresh
process restores from the database; after recovery the command works and
they agree again.  Time-outs, AI moves, settlements and idle closes are the
scheduler's: they are tried again until they land.
"""

from __future__ import annotations

import asyncio
import random

import pytest

import db
from runtime import outbox, scheduler
from runtime.store import Refused, Unavailable
from tests.e2e.test_e2e_chop import find_deal_seed
from tests.runtime.support import CHANNEL, GUILD, Harness, assert_one_owner
from tienlen import Bomb, Game
from tienlen.table import Phase


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    monkeypatch.setattr(scheduler, "RETRY_FIRST", 0.02)
    monkeypatch.setattr(scheduler, "RETRY_MAX", 0.1)
    monkeypatch.setattr(outbox, "RETRY_FIRST", 0.02)
    monkeypatch.setattr(outbox, "RETRY_MAX", 0.1)


async def refused_then_done(harness: Harness, kinds: set[str], command, check) -> None:
    """``command()`` fails while writes of ``kinds`` fail, then works."""
    before = harness.memory()
    harness.database.failing = kinds
    with pytest.raises(Unavailable):
        await command()
    assert harness.database.refused > 0
    assert harness.memory() == before  # nothing changed, in memory...
    harness.database.failing = set()
    await harness.assert_memory_is_the_database()  # ...nor in the database
    assert_one_owner(harness.service)
    await command()
    await harness.assert_memory_is_the_database()
    assert_one_owner(harness.service)
    check()


async def test_creating_a_table(make_harness) -> None:
    harness = await make_harness()
    service = harness.service

    async def create():
        await service.create_table(channel_id=CHANNEL, guild_id=GUILD, user_id=100, name="An")

    await refused_then_done(harness, {"table"}, create, lambda: harness.state())


@pytest.mark.parametrize("command", ["join", "leave", "add_ai", "remove_ai", "configure", "host", "message",
                                     "locale", "end"])
async def test_lobby_commands(make_harness, command) -> None:
    harness = await make_harness()
    service = harness.service
    users = await harness.open_table(humans=2, ai=1)
    table = lambda: harness.state().table  # noqa: E731
    commands = {
        "join": (lambda: service.join(CHANNEL, 300, "Chi"), lambda: table().seat_of(300) is not None),
        "leave": (lambda: service.leave(CHANNEL, users[1]), lambda: table().seat_of(users[1]) is None),
        "add_ai": (lambda: service.add_ai(CHANNEL, users[0], "hard"), lambda: len(table().seats) == 4),
        "remove_ai": (lambda: service.remove_ai(CHANNEL, users[0]), lambda: len(table().seats) == 2),
        "configure": (lambda: service.configure(CHANNEL, users[0], bet=25), lambda: table().bet == 25),
        "host": (lambda: service.transfer_host(CHANNEL, users[0], users[1]), lambda: table().host_id == users[1]),
        "message": (lambda: _set_message(service), lambda: harness.state().message_id == 555),
        "locale": (lambda: _note_locale(service, users[1]), lambda: harness.state().locales[users[1]] == "vi"),
        "end": (lambda: service.end(CHANNEL, users[0]), lambda: service.state(CHANNEL) is None),
    }
    run, check = commands[command]
    await refused_then_done(harness, {"delete" if command == "end" else "table"}, run, lambda: _holds(check))


async def _set_message(service) -> None:
    await service.execute(CHANNEL, __import__("runtime.steps", fromlist=["SetMessage"]).SetMessage(message_id=555))


async def _note_locale(service, user: int) -> None:
    from runtime.steps import NoteLocale

    await service.execute(CHANNEL, NoteLocale(user_id=user, locale="vi"))


def _holds(check) -> None:
    assert check()


async def test_a_deal_that_cannot_be_stored_leaves_no_game_behind(make_harness) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=3)

    async def start():
        await harness.service.start_game(CHANNEL, users[0])

    def check():
        assert harness.state().table.phase is Phase.PLAYING

    await refused_then_done(harness, {"game"}, start, check)
    running = await db.unfinished_games(harness.database)
    assert [game.id for game in running] == [harness.state().table.game_id]  # no orphan from the failed deal


@pytest.mark.parametrize("move", ["play", "pass", "leave"])
async def test_moves(make_harness, move) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=3)
    service = harness.service
    await service.start_game(CHANNEL, users[0])
    await harness.play_lowest()  # the opening: now someone may pass
    actions = len(harness.state().table.game.actions)
    _, user = harness.on_turn()
    play = harness.lowest_play()
    commands = {
        "play": lambda: service.play(CHANNEL, user, play),
        "pass": lambda: service.pass_turn(CHANNEL, user),
        "leave": lambda: service.leave(CHANNEL, user),
    }
    await refused_then_done(harness, {"action"}, commands[move],
                            lambda: _holds(lambda: len(harness.state().table.game.actions) == actions + 1))


@pytest.mark.parametrize("driver", ["player", "timer"])
async def test_a_move_stored_although_its_answer_was_lost(make_harness, driver) -> None:
    """The commit of a move lands but its answer is lost: memory is one move behind.
    The next step, a player's other move or the turn's time-out, is refused by the
    stored data, and the table is read back and shown as stored."""
    harness = await make_harness()
    users = await harness.open_table(humans=3)
    service = harness.service
    if driver == "timer":
        await service.configure(CHANNEL, users[0], turn_seconds=1)
    await service.start_game(CHANNEL, users[0])
    await harness.play_lowest()  # the opening: now someone may pass
    actions = len(harness.state().table.game.actions)
    _, user = harness.on_turn()
    harness.database.lying = {"action"}
    with pytest.raises(Unavailable):
        await service.play(CHANNEL, user, harness.lowest_play())
    harness.database.lying = set()
    assert len(harness.state().table.game.actions) == actions  # memory is behind the database
    shown = len(harness.notifier.snapshots)
    if driver == "player":
        with pytest.raises(Refused):
            await service.pass_turn(CHANNEL, user)  # another action at the same place
    else:  # the turn's time-out, one second later
        await wait_until(lambda: len(harness.state().table.game.actions) > actions)
    await harness.assert_memory_is_the_database()
    assert len(harness.state().table.game.actions) >= actions + 1
    assert_one_owner(harness.service)
    await harness.service.flush()
    assert len(harness.notifier.snapshots) > shown  # the table as stored was shown


async def test_a_deal_stored_although_its_answer_was_lost(make_harness) -> None:
    """Dealing again would leave the stored game running behind the table: the
    deal is refused, and the table is read back playing the game that was stored."""
    harness = await make_harness()
    users = await harness.open_table(humans=2)
    harness.database.lying = {"game"}
    with pytest.raises(Unavailable):
        await harness.service.start_game(CHANNEL, users[0])
    harness.database.lying = set()
    assert harness.state().table.phase is Phase.LOBBY  # memory missed the deal
    with pytest.raises(Refused):
        await harness.service.start_game(CHANNEL, users[0])
    await harness.assert_memory_is_the_database()
    assert harness.state().table.phase is Phase.PLAYING
    running = await db.unfinished_games(harness.database)
    assert [game.id for game in running] == [harness.state().table.game_id]
    assert_one_owner(harness.service)


async def test_an_out_of_turn_chop(make_harness) -> None:
    harness = await make_harness(deal_seed=find_deal_seed())
    users = await harness.open_table(humans=4)
    await harness.service.start_game(CHANNEL, users[0])
    game = harness.state().table.game
    lead = game.turn
    await harness.service.play(CHANNEL, harness.on_turn()[1], min(
        (combo for combo in game.legal_plays(lead) if combo.size == 1), key=lambda combo: combo.top))
    follower = harness.on_turn()[1]
    two = next(combo for combo in harness.state().table.game.legal_plays((lead + 1) % 4) if combo.top >= 48)
    await harness.service.play(CHANNEL, follower, two)
    chopper_seat = (lead + 3) % 4
    chopper = harness.state().table.game_seats[chopper_seat].user_id
    bomb = next(combo for combo in harness.state().table.game.legal_plays(chopper_seat)
                if combo.bomb is Bomb.FOUR_PAIRS)
    await refused_then_done(harness, {"action"}, lambda: harness.service.play(CHANNEL, chopper, bomb),
                            lambda: _holds(lambda: harness.state().table.game.top_owner == chopper_seat))


async def wait_until(condition, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_a_time_out_the_database_refused_lands_once_it_is_back(make_harness) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=2)
    await harness.service.configure(CHANNEL, users[0], turn_seconds=1)
    harness.database.failing = {"action"}
    await harness.service.start_game(CHANNEL, users[0])
    await wait_until(lambda: harness.database.refused >= 2)  # the time-out was tried, and tried again
    assert harness.state().table.game.actions == ()
    await harness.assert_memory_is_the_database()
    assert_one_owner(harness.service)
    harness.database.failing = set()
    await wait_until(lambda: len(harness.state().table.game.actions) == 1)
    assert harness.state().table.game.actions[0].kind == "timeout"
    assert harness.state().table.game_seats[harness.state().table.game.actions[0].seat].timeouts == 1
    await harness.assert_memory_is_the_database()
    assert_one_owner(harness.service)


async def test_an_ai_move_the_database_refused_lands_once_it_is_back(make_harness) -> None:
    harness = await make_harness(deal_seed=3)
    users = await harness.open_table(humans=1, ai=1)
    await harness.service.configure(CHANNEL, users[0], turn_seconds=120)
    if harness.state().table.phase is not Phase.PLAYING:
        harness.database.failing = {"action"}
        await harness.service.start_game(CHANNEL, users[0])
    seat, user = harness.on_turn()
    if user is not None:  # the human leads: once they play, the AI is on turn
        await harness.play_lowest()
        harness.database.failing = {"action"}
    actions = len(harness.state().table.game.actions)
    await wait_until(lambda: harness.database.refused >= 2)
    assert len(harness.state().table.game.actions) == actions
    await harness.assert_memory_is_the_database()
    assert_one_owner(harness.service)
    harness.database.failing = set()
    await wait_until(lambda: len(harness.state().table.game.actions) > actions)
    await harness.assert_memory_is_the_database()
    assert_one_owner(harness.service)


async def test_the_last_move_and_its_settlement_are_one_write(make_harness) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=2)
    await harness.service.start_game(CHANNEL, users[0])
    user, play = await harness.up_to_the_last_play()
    before = await harness.chips()
    await refused_then_done(harness, {"settlement"}, lambda: harness.service.play(CHANNEL, user, play),
                            lambda: None)
    await wait_until(lambda: harness.state().table.phase is Phase.BETWEEN)
    after = await harness.chips()
    assert after != before and sum(after.values()) == sum(before.values())
    await harness.assert_memory_is_the_database()


async def test_moving_on_after_a_paid_game_is_retried(make_harness) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=2)
    await harness.service.start_game(CHANNEL, users[0])
    harness.database.failing = {"table"}  # moves store fine; moving on to the next game does not
    await harness.play_to_the_end()
    await wait_until(lambda: harness.database.refused >= 2)
    state = harness.state()
    assert state.table.phase is Phase.PLAYING and state.game.finished and state.payout is not None
    await harness.assert_memory_is_the_database()
    assert_one_owner(harness.service)
    harness.database.failing = set()
    await wait_until(lambda: harness.state().table.phase is Phase.BETWEEN)
    await harness.assert_memory_is_the_database()
    await wait_until(lambda: len(harness.notifier.summaries) == 1)


async def test_an_idle_close_is_retried(make_harness) -> None:
    harness = await make_harness(idle_minutes=0.005)  # 0.3 s
    await harness.open_table(humans=1)
    harness.database.failing = {"delete"}
    await wait_until(lambda: harness.database.refused >= 2)
    assert harness.service.state(CHANNEL) is not None
    await harness.assert_memory_is_the_database()
    harness.database.failing = set()
    await wait_until(lambda: harness.service.state(CHANNEL) is None)
    await harness.assert_memory_is_the_database()


async def test_a_game_with_failing_timer_and_ai_writes_ends_like_its_replay(make_harness) -> None:
    """A silent player and an AI; the database fails again and again: the
    game still ends, is paid once, and equals the replay of its stored actions."""
    harness = await make_harness(deal_seed=5)
    users = await harness.open_table(humans=1, ai=1)
    await harness.service.configure(CHANNEL, users[0], turn_seconds=1)
    await harness.service.start_game(CHANNEL, users[0])
    game_id = harness.state().table.game_id
    flaky = random.Random(1)
    while harness.state().table.phase is Phase.PLAYING:
        harness.database.failing = {"action"} if flaky.random() < 0.5 else set()
        await asyncio.sleep(0.05)
        assert_one_owner(harness.service)
    harness.database.failing = set()
    await harness.assert_memory_is_the_database()
    stored = await db.load_game(harness.database, game_id)
    record = dict(stored.record)
    record["actions"] = list(stored.actions)
    replay = Game.from_json(record)
    assert replay.finished and stored.outcome["places"] == replay.places
    assert stored.outcome["settlement"] == {str(seat): units for seat, units in replay.settlement().items()}
    assert harness.database.refused > 0
    chips = await harness.chips()
    assert chips[users[0]] == 1000  # AI seats hold no chips: nothing moved, and nothing twice


async def test_the_summary_arrives_after_a_503(make_harness) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=2)
    harness.notifier.summary_failures = 1
    await harness.service.start_game(CHANNEL, users[0])
    await harness.play_to_the_end()
    await wait_until(lambda: len(harness.notifier.summaries) == 1)
    await wait_until(lambda: not harness.service.outbox.summary_pending(harness.notifier.summaries[0].game_id))
    assert await db.unposted_summaries(harness.database) == []


async def test_a_summary_never_posted_before_a_restart_is_posted_after_it(tmp_path) -> None:
    first = await Harness(tmp_path).start()
    users = await first.open_table(humans=2)
    first.notifier.summary_failures = 10**9  # Discord never takes it
    await first.service.start_game(CHANNEL, users[0])
    game_id = first.state().table.game_id
    await first.play_to_the_end()
    await wait_until(lambda: first.state().table.phase is Phase.BETWEEN)
    await first.close()

    second = await Harness(tmp_path).start()
    try:
        await wait_until(lambda: len(second.notifier.summaries) == 1)
        summary = second.notifier.summaries[0]
        assert summary.game_id == game_id and set(summary.places) == {"p0", "p1"}
        await wait_until(lambda: not second.service.outbox.summary_pending(game_id))
    finally:
        await second.close()
    third = await Harness(tmp_path).start()
    try:
        await asyncio.sleep(0.1)
        assert third.notifier.summaries == []  # posted once
    finally:
        await third.close()


def _lose_commits(harness: Harness, kinds: set[str], *, landed: bool) -> None:
    harness.database.lost, harness.database.lost_landed = kinds, landed


@pytest.mark.parametrize("landed", [True, False], ids=["committed", "rolled-back"])
async def test_a_move_whose_commit_lost_its_connection(make_any_harness, landed) -> None:
    """The table is read back at once: the move stands when it was stored
    (answered as made, and shown), else it fails as in an outage."""
    harness = await make_any_harness()
    users = await harness.open_table(humans=3)
    service = harness.service
    await service.start_game(CHANNEL, users[0])
    await harness.play_lowest()
    actions = len(harness.state().table.game.actions)
    _, user = harness.on_turn()
    await service.flush()
    shown = len(harness.notifier.snapshots)
    _lose_commits(harness, {"action"}, landed=landed)
    if landed:
        hand = await service.play(CHANNEL, user, harness.lowest_play())
        assert hand.version == actions + 1
    else:
        with pytest.raises(Unavailable):
            await service.play(CHANNEL, user, harness.lowest_play())
    assert harness.database.refused == 1
    _lose_commits(harness, set(), landed=True)
    assert len(harness.state().table.game.actions) == actions + (1 if landed else 0)
    await harness.assert_memory_is_the_database()
    assert_one_owner(service)
    await service.flush()
    assert (len(harness.notifier.snapshots) > shown) == landed
    await harness.play_lowest()  # the next move starts from what was stored
    await harness.assert_memory_is_the_database()


@pytest.mark.parametrize("landed", [True, False], ids=["committed", "rolled-back"])
async def test_a_deal_whose_commit_lost_its_connection(make_any_harness, landed) -> None:
    """What only the store knew (the new game's id) comes from reading it back."""
    harness = await make_any_harness()
    users = await harness.open_table(humans=2)
    _lose_commits(harness, {"game"}, landed=landed)
    if landed:
        await harness.service.start_game(CHANNEL, users[0])
    else:
        with pytest.raises(Unavailable):
            await harness.service.start_game(CHANNEL, users[0])
    _lose_commits(harness, set(), landed=True)
    running = [game.id for game in await db.unfinished_games(harness.database)]
    assert running == ([harness.state().table.game_id] if landed else [])
    assert harness.state().table.phase is (Phase.PLAYING if landed else Phase.LOBBY)
    await harness.assert_memory_is_the_database()
    assert_one_owner(harness.service)


async def test_the_last_move_whose_commit_lost_its_connection_is_paid_once(make_any_harness) -> None:
    harness = await make_any_harness()
    users = await harness.open_table(humans=2)
    await harness.service.start_game(CHANNEL, users[0])
    user, play = await harness.up_to_the_last_play()
    before = await harness.chips()
    _lose_commits(harness, {"settlement"}, landed=True)
    await harness.service.play(CHANNEL, user, play)
    _lose_commits(harness, set(), landed=True)
    await wait_until(lambda: harness.state().table.phase is Phase.BETWEEN)
    await harness.assert_memory_is_the_database()
    after = await harness.chips()
    assert after != before and sum(after.values()) == sum(before.values())
    await wait_until(lambda: len(harness.notifier.summaries) == 1)

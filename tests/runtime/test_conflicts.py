"""Commands that meet at the same moment: the second one is told precisely
what the first did (not "the bot cannot save"), and still does what it can.

The table's lock runs them one after the other; these tests send them
together, as two players pressing at once do, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import db
from runtime.service import GameJustEnded
from tests.runtime.support import CHANNEL
from tests.runtime.test_step_faults import wait_until
from tienlen.table import TableError


async def test_end_at_the_moment_the_last_play_ends_the_game(make_any_harness) -> None:
    """The game stands as played (paid, summed up); end still closes the table."""
    harness = await make_any_harness()
    service = harness.service
    users = await harness.open_table(humans=2)
    await service.start_game(CHANNEL, users[0])
    game_id = harness.state().table.game_id
    user, play = await harness.up_to_the_last_play()
    before = await harness.chips()
    played, ended = await asyncio.gather(service.play(CHANNEL, user, play), service.end(CHANNEL, users[0]),
                                         return_exceptions=True)
    assert not isinstance(played, BaseException), played
    assert isinstance(ended, GameJustEnded) and isinstance(ended, TableError), repr(ended)
    assert ended.code == "game_just_ended"
    assert service.state(CHANNEL) is None  # closed
    await harness.assert_memory_is_the_database()
    assert not service.store.outages.failing("writes")
    stored = await db.load_game(harness.database, game_id)
    assert stored.status.value == "finished"  # paid as played, not called off
    after = await harness.chips()
    assert after != before and sum(after.values()) == sum(before.values())
    await wait_until(lambda: len(harness.notifier.summaries) == 1)  # its summary is posted all the same
    assert harness.notifier.summaries[0].game_id == game_id
    await service.flush()
    assert harness.notifier.snapshots[-1].closed


async def test_a_play_just_after_the_end_finds_no_table(make_any_harness) -> None:
    harness = await make_any_harness()
    service = harness.service
    users = await harness.open_table(humans=2)
    await service.start_game(CHANNEL, users[0])
    game_id = harness.state().table.game_id
    user, play = await harness.up_to_the_last_play()
    ended, played = await asyncio.gather(service.end(CHANNEL, users[0]), service.play(CHANNEL, user, play),
                                         return_exceptions=True)
    assert not isinstance(ended, BaseException), ended
    assert isinstance(played, TableError) and played.code == "no_table"
    await harness.assert_memory_is_the_database()
    assert (await db.load_game(harness.database, game_id)).status.value == "aborted"

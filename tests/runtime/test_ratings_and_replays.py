"""Ratings and replays through the runtime: which games move ratings (people,
ranked tables, the server's choice), the summary shows the changes (also when
made again after a restart), and finished games replay from what was stored."""

from __future__ import annotations

import pytest

import db
from runtime.replays import ReplayRefused
from tests.runtime.support import CHANNEL, GUILD, Harness
from tienlen import Game
from tienlen.table import TableError


async def finished_game(harness: Harness, humans: int = 3, ai: int = 0, **options) -> int:
    users = await harness.open_table(humans=humans, ai=ai, **options)
    await harness.service.start_game(CHANNEL, users[0])
    game_id = harness.state().table.game_id
    await harness.play_to_the_end()
    await harness.settle_down()
    return game_id


async def test_a_game_of_people_moves_ratings_and_the_summary_shows_them(make_harness) -> None:
    harness = await make_harness()
    await finished_game(harness, humans=3)
    await harness.service.flush()
    summary = harness.notifier.summaries[-1]
    assert [name for name, _, _ in summary.ratings] == ["p0", "p1", "p2"]
    for name, before, after in summary.ratings:
        assert before == 1000 and after != before
    for user in (100, 101, 102):
        rating = await db.player_rating(harness.database, GUILD, user)
        assert rating.games == 1


async def test_one_person_with_ai_seats_moves_no_rating(make_harness) -> None:
    harness = await make_harness()
    await finished_game(harness, humans=1, ai=2)
    await harness.service.flush()
    assert harness.notifier.summaries[-1].ratings == ()
    assert await db.player_rating(harness.database, GUILD, 100) is None


async def test_ai_seats_are_references_when_two_people_play(make_harness) -> None:
    harness = await make_harness()
    await finished_game(harness, humans=2, ai=1)
    await harness.service.flush()
    assert [name for name, _, _ in harness.notifier.summaries[-1].ratings] == ["p0", "p1"]


async def test_with_ranked_only_just_ranked_tables_move_ratings(make_harness) -> None:
    harness = await make_harness()
    await db.change_guild_settings(harness.database, GUILD, 1, {"ranked_only": True})
    await finished_game(harness, humans=3)
    await harness.service.flush()
    assert harness.notifier.summaries[-1].ratings == ()
    await harness.service.end(CHANNEL, 100)
    await finished_game(harness, humans=3, ranked=True)
    await harness.service.flush()
    assert len(harness.notifier.summaries[-1].ratings) == 3


async def test_a_ranked_table_refuses_ai_seats_and_fewer_than_three_people(make_harness) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=2, ranked=True)
    with pytest.raises(TableError) as refused:
        await harness.service.add_ai(CHANNEL, users[0], "easy")
    assert refused.value.code == "ranked_no_ai"
    with pytest.raises(TableError) as refused:
        await harness.service.start_game(CHANNEL, users[0])
    assert refused.value.code == "ranked_needs_people"
    assert harness.state().table.turn_seconds == harness.state().table.rules.turn_seconds


async def test_a_summary_made_again_after_a_restart_shows_the_rating_changes(make_harness, tmp_path) -> None:
    harness = await make_harness()
    harness.notifier.summary_failures = 10**6  # Discord refuses every summary
    game_id = await finished_game(harness, humans=3)
    await harness.close()
    again = await make_harness()
    await again.service.flush()
    summary = next(summary for summary in again.notifier.summaries if summary.game_id == game_id)
    assert len(summary.ratings) == 3


async def test_a_finished_game_replays_as_it_was_stored(make_harness) -> None:
    harness = await make_harness()
    game_id = await finished_game(harness, humans=3)
    stored = await db.load_game(harness.database, game_id)
    replay_game = await harness.service.replays.game(GUILD, game_id)
    record = dict(stored.record)
    assert replay_game.replay.steps == len(stored.actions)
    for frame in replay_game.replay.frames:
        again = Game.from_json({**record, "actions": list(stored.actions[:frame.step])})
        assert frame.hands == tuple(tuple(hand) for hand in again.hands)
    assert replay_game.names == ("p0", "p1", "p2")
    assert (await harness.service.replays.latest(GUILD, CHANNEL)).game_id == game_id


async def test_running_unknown_and_foreign_games_are_refused(make_harness) -> None:
    harness = await make_harness()
    with pytest.raises(ReplayRefused) as refused:
        await harness.service.replays.latest(GUILD, CHANNEL)
    assert refused.value.code == "replay_none"
    users = await harness.open_table(humans=2)
    await harness.service.start_game(CHANNEL, users[0])
    running = harness.state().table.game_id
    with pytest.raises(ReplayRefused) as refused:
        await harness.service.replays.game(GUILD, running)
    assert refused.value.code == "replay_running"
    with pytest.raises(ReplayRefused) as refused:
        await harness.service.replays.game(GUILD + 1, running)
    assert refused.value.code == "replay_not_found"
    with pytest.raises(ReplayRefused) as refused:
        await harness.service.replays.game(GUILD, 987654)
    assert refused.value.code == "replay_not_found"

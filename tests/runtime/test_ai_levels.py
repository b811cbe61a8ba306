"""AI seats decide knowing every seat's public level (as the table shows it),
which ``hard`` uses to model the other AI seats."""

from __future__ import annotations

from tests.runtime.support import CHANNEL


async def test_every_ai_decision_is_told_the_tables_public_levels(make_harness) -> None:
    harness = await make_harness()
    users = await harness.open_table(humans=1, ai=1)  # an easy seat
    await harness.service.add_ai(CHANNEL, users[0], "normal")
    calls = []
    decide = harness.service.ai.decide

    async def recording(view, level, seed, levels=None):
        calls.append((view.seat, level, levels))
        return await decide(view, level, seed, levels)

    harness.service.ai.decide = recording
    await harness.service.start_game(CHANNEL, users[0])
    await harness.play_to_the_end()
    seats = harness.state().table.game_seats
    public = tuple(seat.ai_level for seat in seats)
    assert sorted(public, key=str) == [None, "easy", "normal"]
    assert calls
    for seat, level, levels in calls:
        assert levels == public
        assert level == public[seat]

"""The Replay of a finished game inside the Activity: one step at a time, in the bot's own words.

The same replay as ``/tienlen replay`` and the summary's Replay button
(:mod:`runtime.replays`, :mod:`cogs.layouts.replay`): the service's
:class:`~runtime.replays.Replays` finds the stored game and refuses one that is
not finished (a running game's hands are secret, a called-off game never
ended); on top of that the Activity shows only games played in the client's
own channel.  A step's words (its title, what the move did, the places and
payments at the last step) are :func:`cogs.layouts.replay.replay_words`,
which the bot's replay message is laid out from, so no rule of that wording
is written twice; the seats' cards are the frame's, which a finished game made
public.  One step per answer keeps each frame small
(:data:`activity.protocol.MAX_STEP` bounds what a client may ask).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from activity.views import plain
from cogs.layouts.replay import caption, replay_words, seat_status, shown_top
from runtime.replays import ReplayRefused

if TYPE_CHECKING:
    from runtime.replays import ReplayGame, Replays

__all__ = ["replay_view", "replay_of"]


async def replay_of(replays: "Replays", *, guild_id: int, channel_id: int, game_id: int) -> "ReplayGame":
    """The finished game ``game_id`` of this channel's table; raises :class:`ReplayRefused`."""
    game = await replays.game(guild_id, game_id)  # refuses a running or called-off game, another server's
    if game.channel_id != channel_id:
        raise ReplayRefused("replay_not_found", game=str(game_id))
    return game


def replay_view(game: "ReplayGame", step: int, lang: str) -> dict[str, Any]:
    """Step ``step`` (clamped to the game) of ``game``, worded in ``lang``."""
    replay = game.replay
    frame = replay.frame(step)
    words = replay_words(game, frame.step, lang)
    title = plain(words.title)
    lines = [plain(line) for said in words.lines for line in said.splitlines() if line]
    result = [{"title": plain(head), "lines": [plain(line) for line in body.splitlines() if line]}
              for head, body in words.result]
    top = shown_top(frame)
    return {
        "type": "replay", "game": game.game_id, "step": frame.step, "steps": replay.steps,
        "title": title, "caption": plain(caption(game, frame, lang)), "lines": lines,
        "seats": [{"name": name, "ai": game.ai[seat], "cards": [card.code for card in frame.hands[seat]],
                   "status": plain(seat_status(frame, seat, lang)), "acting": seat == frame.actor,
                   "turn": seat == frame.turn}
                  for seat, name in enumerate(game.names)],
        "top": [card.code for card in top] if top else [],
        "next_chop": replay.next_chop(frame.step),
        "result": result,
    }

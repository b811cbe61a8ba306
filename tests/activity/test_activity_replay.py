"""The Replay in the Activity (activity/replay.py): a step of a finished game in the bot's own words, only of
the client's own table, and small on the wire."""

from __future__ import annotations

import datetime
import json

import pytest

from activity.replay import replay_of, replay_view
from activity.views import plain
from cogs.layouts.replay import replay_layout
from cogs.layouts.style import block_lines
from i18n import t
from runtime.replays import ReplayGame, ReplayRefused
from tienlen import RULESETS, Game
from tienlen.replay import Replay


def finished_game(players: int = 4, seed: int = 5) -> ReplayGame:
    game = Game.deal(RULESETS["mien-nam"], players, seed=seed)
    while not game.finished:
        seat = game.turn
        legal = game.legal_plays(seat)
        _ = game.play(seat, legal[0]) if legal else game.pass_turn(seat)
    names = ("alice", "bob", "AI 1", "carol")[:players]
    return ReplayGame(game_id=9, guild_id=1, channel_id=2, rules="mien-nam", bet=10, names=names,
                      ai=tuple(name.startswith("AI") for name in names),
                      started_at=datetime.datetime(2026, 12, 7, tzinfo=datetime.timezone.utc),
                      replay=Replay.of(game))


class OneGame:
    def __init__(self, game: ReplayGame) -> None:
        self.made = game

    async def game(self, guild_id: int, game_id: int) -> ReplayGame:
        if guild_id != self.made.guild_id or game_id != self.made.game_id:
            raise ReplayRefused("replay_not_found", game=str(game_id))
        return self.made


async def test_only_a_game_of_the_clients_own_channel_is_shown():
    game = finished_game()
    assert await replay_of(OneGame(game), guild_id=1, channel_id=2, game_id=9) is game
    with pytest.raises(ReplayRefused) as caught:
        await replay_of(OneGame(game), guild_id=1, channel_id=3, game_id=9)  # the same server, another table
    assert caught.value.code == "replay_not_found"


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_step_is_the_bots_replay_in_words_and_cards(lang):
    game = finished_game()
    replay = game.replay
    start = replay_view(game, 0, lang)
    assert start["step"] == 0 and start["steps"] == replay.steps and start["result"] == []
    assert start["lines"][0] == plain(t(lang, "replay.deal"))
    assert [seat["cards"] for seat in start["seats"]] == [[card.code for card in hand] for hand in replay.frames[0].hands]
    assert [seat["ai"] for seat in start["seats"]] == [False, False, True, False]
    middle = replay_view(game, 3, lang)
    assert middle["caption"].startswith(f"3/{replay.steps} · ")
    assert [seat["acting"] for seat in middle["seats"]].count(True) == 1
    last = replay_view(game, replay.steps + 50, lang)  # past the end: the last step, as the bot clamps
    assert last["step"] == replay.steps and last["next_chop"] is None
    layout = replay_layout(game, replay.steps, lang)
    for block in last["result"]:
        assert block["lines"] == [plain(line) for line in block_lines(layout, block["title"])]
    assert t(lang, "summary.places") in [block["title"] for block in last["result"]]
    sizes = [len(json.dumps(replay_view(game, step, lang), ensure_ascii=False, separators=(",", ":")).encode())
             for step in range(replay.steps + 1)]
    assert max(sizes) < 2048, max(sizes)

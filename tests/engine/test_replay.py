"""Replays through the public API: each frame holds exactly the hands the engine
reconstructs after that many actions, only finished games replay, and no frame
holds a card that was never dealt."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from tienlen import RULESETS, Game
from tienlen.replay import NotFinishedError, Replay


def random_game(rules: str, players: int, seed: int, *, leave: bool = False) -> Game:
    """A game played to the end by random legal moves (one player may leave)."""
    rng = random.Random(seed)
    game = Game.deal(RULESETS[rules], players, seed=seed)
    while not game.finished:
        seat = game.turn
        if leave and len(game.actions) == 5:
            game.leave(seat)
            continue
        plays = game.legal_plays(seat)
        if game.can_pass(seat) and (not plays or rng.random() < 0.3):
            game.pass_turn(seat)
        else:
            game.play(seat, rng.choice(plays))
    return game


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(sorted(RULESETS)), players=st.integers(2, 4), seed=st.integers(0, 10**6),
       leave=st.booleans())
def test_every_frame_is_the_game_after_that_many_actions(rules, players, seed, leave):
    game = random_game(rules, players, seed, leave=leave)
    replay = Replay.of(game)
    assert replay.steps == len(game.actions)
    record = game.to_json()
    for frame in replay.frames:
        again = Game.from_json({**record, "actions": record["actions"][:frame.step]})
        assert frame.hands == tuple(tuple(hand) for hand in again.hands)
        assert frame.top == again.top and frame.top_owner == again.top_owner
        assert frame.turn == again.turn and frame.passed == again.passed
        assert frame.places == tuple(again.place_of(seat) for seat in range(players))
        if frame.step:
            assert frame.outcome.action == game.actions[frame.step - 1]
    assert replay.places == tuple(game.places) and replay.payments == tuple(game.payments())


@pytest.mark.parametrize("players", [2, 3])
def test_the_undealt_cards_of_a_short_table_appear_in_no_frame(players):
    game = random_game("mien-nam", players, seed=7)
    replay = Replay.of(game)
    dealt = {card for hand in game.dealt for card in hand}
    assert len(dealt) == 13 * players
    seen = {card for frame in replay.frames for hand in frame.hands for card in hand}
    seen |= {card for frame in replay.frames if frame.top is not None for card in frame.top.cards}
    assert seen == dealt == replay.cards_shown()


def test_a_running_game_does_not_replay():
    game = Game.deal(RULESETS["mien-nam"], 4, seed=3)
    game.play(game.turn, game.legal_plays(game.turn)[0])
    with pytest.raises(NotFinishedError):
        Replay.of(game)
    with pytest.raises(NotFinishedError):
        Replay.of_record(game.to_json())


def test_stepping_is_clamped_and_finds_the_next_chop():
    for seed in range(200):
        game = random_game("mien-nam", 4, seed)
        if game.chops:
            break
    else:
        pytest.skip("no chop in 200 random games")
    replay = Replay.of(game)
    chops = [frame.step for frame in replay.frames if frame.chop]
    assert chops and replay.next_chop(0) == chops[0]
    assert replay.next_chop(chops[-1]) is None
    assert replay.frame(-5).step == 0 and replay.frame(10_000).step == replay.steps


def instant_win_game() -> Game:
    """The first deal of a seed that wins at once (tới trắng)."""
    for seed in range(20_000):
        game = Game.deal(RULESETS["mien-nam"], 4, seed=seed)
        if game.instant_win is not None:
            return game
    pytest.skip("no instant win dealt")


def test_an_instant_win_is_one_frame():
    game = instant_win_game()
    replay = Replay.of(game)
    assert replay.steps == 0 and replay.instant_winner == game.instant_win.seat

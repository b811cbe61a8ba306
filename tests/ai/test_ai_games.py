"""Whole games between AI players: they always end, with a zero-sum settlement,
for every preset and table size; and a few situations where the heuristic
must know the rules (going out, chops, mien-bac's "no going out on a 2",
cóng risk, an opponent on one card)."""

import random

import pytest

from tests.ai.ai_helpers import PRESETS, fast_players, new_game
from tienlen import RULESETS, Game
from tienlen.ai import EasyPlayer, NormalPlayer, play_game
from tienlen.ai.arena import MAX_ACTIONS
from tienlen.cards import as_mask
from tienlen.combos import ComboKind


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_table_of_ais_always_finishes(preset, players):
    for seed in range(3):
        levels = ["easy", "normal", "hard", "normal"][:players]
        table = [fast_players()[level] for level in levels]
        game = play_game(new_game(preset, players, 100 * players + seed, first_game=seed != 1), table, seed=seed)
        assert game.finished
        assert len(game.actions) < MAX_ACTIONS
        assert sum(game.settlement().values()) == 0


def test_normal_beats_easy_players_more_often_than_chance():
    rules = RULESETS["mien-nam"]
    wins = 0
    for index in range(60):
        hero = index % 4
        table = [EasyPlayer() for _ in range(4)]
        table[hero] = NormalPlayer()
        game = play_game(Game.deal(rules, 4, 9_000 + index // 4), table, seed=index)
        wins += game.places[0] == hero
    assert wins > 60 * 0.25  # chance is one in four


def _situation_game(preset: str, hands: list[str], first_game: bool = False) -> Game:
    return Game(RULESETS[preset], hands, first_game=first_game, previous_winner=0)


def test_normal_goes_out_when_it_can():
    game = _situation_game("mien-nam", ["7S 7H", "3C 4D 9H 10S", "5C 6D JH QS"])
    move = NormalPlayer().choose(game.view(0), random.Random(0))
    assert move.mask == as_mask("7S 7H")


def test_normal_plays_its_twos_before_its_last_card_in_mien_bac():
    # Leading the 5 first would leave only 2s, and going out on a 2 is thối:
    # lead the (unbeatable) 2s first, then go out with the 5.
    game = _situation_game("mien-bac", ["5S 2D 2H", "3C 4D 9H 10S", "6C 6D JH QS"])
    move = NormalPlayer().choose(game.view(0), random.Random(0))
    assert move.mask & as_mask("2D 2H") and not move.mask & as_mask("5S")


def test_normal_does_not_go_out_on_a_two_in_mien_bac():
    game = _situation_game("mien-bac", ["9C 5D", "2H", "6C 6D JH QS"])
    game.play(0, "9C")
    view = game.view(1)
    assert [combo.mask for combo in view.legal_plays] == [as_mask("2H")]  # allowed, but thối
    assert NormalPlayer().choose(view, random.Random(0)) is None


def test_normal_chops_a_two_with_a_bomb():
    game = _situation_game("mien-nam", ["2H 9C", "3S 3C 4S 4C 5S 5C JD KH", "6D 7D 8D 10H"])
    game.play(0, "2H")
    move = NormalPlayer().choose(game.view(1), random.Random(0))
    assert move is not None and move.bomb is not None


def test_normal_takes_a_free_four_pair_chop_out_of_turn():
    game = _situation_game("mien-nam", ["2H 9C JC", "6D 7D 8D 10H", "3S 3C 4S 4C 5S 5C 6S 6C KH"])
    game.play(0, "2H")
    view = game.view(2)
    assert view.turn != 2 and view.legal_plays
    move = NormalPlayer().choose(view, random.Random(0))
    assert move is not None and move.kind is ComboKind.CONSECUTIVE_PAIRS


def test_normal_blocks_an_opponent_on_one_card():
    # Seat 1 has one card left: lead the pair, not a single it could beat.
    game = _situation_game("mien-nam", ["4S 9C 9D KH", "AS", "3C 5D 6H 7S 8H"])
    move = NormalPlayer().choose(game.view(0), random.Random(0))
    assert move.kind is not ComboKind.SINGLE or move.mask == as_mask("KH")


def test_normal_avoids_cong_by_playing_something():
    # Seat 1 has played nothing; seat 2 is about to go out: beat the 5 rather than pass.
    game = Game(RULESETS["mien-nam"], ["5S 9C", "6D 7H 8C JS QS KD AH 10C 4D", "3C 9H"],
                first_game=False, previous_winner=0)
    game.play(0, "5S")
    move = NormalPlayer().choose(game.view(1), random.Random(0))
    assert move is not None

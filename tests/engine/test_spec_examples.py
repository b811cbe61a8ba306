"""docs/rules.md §6 — the example table, every row, played in a game where it applies."""

import pytest

from tests.engine.spec_helpers import PASS, SOUTH, later_game, net, new_game, payments, refused, run


def _on_top(preset, top, play):
    """Seat 0 leads ``top``; seat 1 holds ``play`` (plus a spare card) and is on turn."""
    game = later_game(preset, [top + " 3D", play + " 3H", "4D", "4H"])
    game.play(0, top)
    assert game.turn == 1
    return game


# | all | top 9H | 10S | legal: rank before suit |
@pytest.mark.parametrize("preset", SOUTH)
def test_example_top_9h_then_10s_is_legal_rank_before_suit(preset):
    game = _on_top(preset, "9H", "10S")
    game.play(1, "10S")
    assert game.top_owner == 1


def test_example_top_9h_then_10s_in_north_must_follow_suit():
    # The team's rules marked this row "all", but docs/rules.md §1 (mien-bac) requires the same suit for a
    # single; the engine follows docs/rules.md §1 (docs/rules.md §6 gives the row to the South only).
    game = _on_top("mien-bac", "9H", "10S")
    assert refused(game, 1, "10S") == "cannot_beat"


def test_example_north_rank_before_suit_within_a_suit_10h_beats_9h():
    game = _on_top("mien-bac", "9H", "10H")
    game.play(1, "10H")
    assert game.top_owner == 1


# | south | top 10D10S | 10H10C | legal: 10H > 10D |
@pytest.mark.parametrize("preset", SOUTH)
def test_example_top_10d10s_then_10h10c_is_legal(preset):
    game = _on_top(preset, "10D 10S", "10H 10C")
    game.play(1, "10H 10C")
    assert game.top_owner == 1


# | south | top 3H4S5D | 3S4H5C | illegal: 5C < 5D |
@pytest.mark.parametrize("preset", SOUTH)
def test_example_top_3h4s5d_then_3s4h5c_is_illegal(preset):
    game = later_game(preset, ["3H 4S 5D 9D", "3S 4H 5C 9H", "6D", "6H"])
    game.play(0, "3H 4S 5D")
    assert refused(game, 1, "3S 4H 5C") == "cannot_beat"


# | south | top AH | 7S7C7D7H | illegal: bombs only hit 2s and bombs |
@pytest.mark.parametrize("preset", SOUTH)
def test_example_top_ah_then_four_sevens_is_illegal(preset):
    game = _on_top(preset, "AH", "7S 7C 7D 7H")
    assert refused(game, 1, "7S 7C 7D 7H") == "cannot_beat"
    assert game.legal_plays(1) == []


# | south | top 2S, any player's turn | 3S3C4S4C5S5C | legal chop; 2S's player pays 1B |
def _finish(game):
    """Play the game out: each seat on turn plays its lowest single, or passes."""
    while not game.finished:
        seat = game.turn
        singles = [combo for combo in game.legal_plays(seat) if combo.size == 1]
        if singles:
            game.play(seat, min(singles, key=lambda combo: combo.top))
        else:
            game.pass_turn(seat)


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize("chopper", [0, 1, 2])
def test_example_top_2s_3s3c4s4c5s5c_chop_on_whoever_turn_2s_player_pays_1b(preset, chopper):
    bomb = "3S 3C 4S 4C 5S 5C"
    hands = ["6C 9D", "7C 10D", "8C JD", "9C 2S QD"]
    hands[chopper] += " " + bomb
    game = later_game(preset, hands)
    run(game, [(0, "6C"), (1, "7C"), (2, "8C"), (3, "9C"), (0, PASS), (1, PASS), (2, PASS)])
    run(game, [(3, "2S")] + [(seat, PASS) for seat in range(chopper)])
    assert game.turn == chopper
    out = game.play(chopper, bomb)
    assert out.chop is not None and out.chop.value == 1 and out.chop.chopped == 3
    while game.top is not None:
        game.pass_turn(game.turn)
    assert game.turn == chopper
    _finish(game)
    assert [line for line in payments(game) if line[3] == "chop"] == [(3, chopper, 1, "chop")]
    assert sum(net(game).values()) == 0


def test_example_2s_chopped_by_3dt_exact_settlement():
    game = later_game("mien-nam", ["6C 3S 3C 4S 4C 5S 5C 9D", "7C 10D", "8C JD", "9C 2S QD"])
    run(game, [(0, "6C"), (1, "7C"), (2, "8C"), (3, "9C"), (0, PASS), (1, PASS), (2, PASS)])
    out = run(game, [(3, "2S"), (0, "3S 3C 4S 4C 5S 5C")])
    assert out[1].chop.value == 1
    run(game, [(1, PASS), (2, PASS), (3, PASS), (0, "9D"), (1, "10D"), (2, "JD")])
    assert game.finished and game.places == [0, 1, 2, 3]
    assert payments(game) == [(2, 1, 1, "place"), (3, 0, 1, "chop"), (3, 0, 2, "place")]
    assert net(game) == {0: 3, 1: 1, 2: -1, 3: -3}


# | south | first game | lead 4S4C while holding 3S | illegal: must contain 3S |
@pytest.mark.parametrize("preset", SOUTH)
def test_example_first_game_lead_4s4c_while_holding_3s_is_illegal(preset):
    game = new_game(preset, ["3S 4S 4C 9H", "5S 5C", "6S 6C", "7S 7C"])
    assert game.turn == 0
    assert refused(game, 0, "4S 4C") == "must_include"


# | north | top 7S | 9H | illegal: other suit |
def test_example_north_top_7s_then_9h_is_illegal():
    game = _on_top("mien-bac", "7S", "9H")
    assert refused(game, 1, "9H") == "cannot_beat"


# | north | top 7S | 2C | legal: a 2 beats any single |
def test_example_north_top_7s_then_2c_is_legal():
    game = _on_top("mien-bac", "7S", "2C")
    game.play(1, "2C")
    assert game.top_owner == 1


# | north | lead | 3C4D5C | illegal: straight not one suit |
def test_example_north_lead_3c4d5c_is_illegal():
    game = later_game("mien-bac", ["3C 4D 5C 9H", "6S", "6C", "6D"])
    assert refused(game, 0, "3C 4D 5C") == "straight_suit"

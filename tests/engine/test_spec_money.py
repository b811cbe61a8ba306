"""docs/rules.md §5 — money: places, chop money and chains, thối / úng, cóng
(incl. iwin đền bài), leaving, table rules.  Every game is played to the end
through the public API and settled exactly."""

import pytest

from tienlen import RULESETS
from tests.engine.spec_helpers import (
    ALL,
    PASS,
    SOUTH,
    chop_game,
    later_game,
    net,
    payments,
    run,
)

THREE_PAIRS = "3C 3D 4C 4D 5C 5D"
THREE_PAIRS_HIGHER = "7C 7D 8C 8D 9C 9D"
QUAD_7 = "7S 7C 7D 7H"
QUAD_8 = "8S 8C 8D 8H"
FOUR_PAIRS_LOW = "3C 3D 4C 4D 5C 5D 6C 6D"
FOUR_PAIRS_HIGH = "7C 7D 8C 8D 9C 9D 10C 10D"
FOUR_PAIRS_8J = "8C 8D 9C 9D 10C 10D JC JD"


def _place_lines(*lines):
    return [(payer, payee, units, "place") for payer, payee, units in lines]


# ================================================================== places
def _four_player_game(preset):
    """Places [2, 0, 3, 1]: seat 2 first, seat 0 second, seat 3 third, seat 1 last."""
    game = later_game(preset, ["5S 8S", "6S 9C JC", "3S 7S", "4S QC"], winner=2)
    run(game, [(2, "3S"), (3, "4S"), (0, "5S"), (1, "6S"), (2, "7S"), (3, PASS), (0, "8S"), (1, PASS),
               (1, "9C"), (3, "QC")])
    assert game.finished and game.places == [2, 0, 3, 1]
    return game


@pytest.mark.parametrize("preset", SOUTH)
def test_south_four_players_4th_pays_1st_2b_and_3rd_pays_2nd_1b(preset):
    game = _four_player_game(preset)
    assert payments(game) == _place_lines((1, 2, 2), (3, 0, 1))
    assert net(game) == {0: 1, 1: -2, 2: 2, 3: -1}


def test_north_four_players_2nd_pays_1b_3rd_2b_4th_3b_to_the_winner():
    game = _four_player_game("mien-bac")
    assert payments(game) == _place_lines((0, 2, 1), (1, 2, 3), (3, 2, 2))
    assert net(game) == {0: -1, 1: -3, 2: 6, 3: -2}


def test_three_player_scenario_places():
    game = later_game("mien-nam", ["3S 6S JS", "4S 7S", "5S 8S"], winner=0)
    out = run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (0, "6S"), (1, "7S")])
    assert out[-1].went_out == 0
    out = run(game, [(2, "8S")])
    assert out[-1].went_out == 1 and game.finished
    assert game.places == [1, 2, 0]


@pytest.mark.parametrize("preset, expected, balance", [
    ("mien-nam", [(0, 1, 2), (2, 1, 1)], {0: -2, 1: 3, 2: -1}),
    ("iwin", [(0, 1, 2), (2, 1, 1)], {0: -2, 1: 3, 2: -1}),
    ("mien-bac", [(0, 1, 2), (2, 1, 1)], {0: -2, 1: 3, 2: -1}),
])
def test_three_players_3rd_pays_1st_2b_and_2nd_pays_1st_1b(preset, expected, balance):
    game = later_game(preset, ["3S 6S JS", "4S 7S", "5S 8S"], winner=0)
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (0, "6S"), (1, "7S"), (2, "8S")])
    assert game.places == [1, 2, 0]
    assert payments(game) == _place_lines(*expected)
    assert net(game) == balance


@pytest.mark.parametrize("preset, units", [("mien-nam", 2), ("iwin", 2), ("mien-bac", 1)])
def test_two_players_loser_pays_winner(preset, units):
    game = later_game(preset, ["3S 5S", "4S 6S"])
    run(game, [(0, "3S"), (1, "4S"), (0, "5S")])
    assert game.places == [0, 1]
    assert payments(game) == _place_lines((1, 0, units))
    assert net(game) == {0: units, 1: -units}


@pytest.mark.parametrize("preset", ALL)
def test_settlement_is_whole_units_summing_to_zero_without_rake(preset):
    game = _four_player_game(preset)
    settlement = game.settlement()
    assert all(isinstance(units, int) for units in settlement.values())
    assert sum(settlement.values()) == 0


def test_iwin_rake_is_5_percent_and_left_to_the_chips_layer():
    assert RULESETS["iwin"].rake_percent == 5
    assert RULESETS["mien-nam"].rake_percent == 0 and RULESETS["mien-bac"].rake_percent == 0
    game = _four_player_game("iwin")
    assert net(game)[2] == 2  # the engine pays the winner the full 2B


# ================================================================== chop money
def _with_chop(value):
    lines = _place_lines((2, 1, 1), (3, 0, 2))
    if value:
        lines.append((3, 0, value, "chop"))
    return sorted(lines)


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "target, bomb, value",
    [
        ("2S", THREE_PAIRS, 1),  # black 2 = 1B
        ("2C", THREE_PAIRS, 1),
        ("2D", THREE_PAIRS, 2),  # red 2 = 2B
        ("2H", THREE_PAIRS, 2),
        ("2H", QUAD_7, 2),
        ("2S", FOUR_PAIRS_HIGH, 1),
        ("2S 2C", QUAD_7, 2),  # pair of 2s: the sum of its cards
        ("2S 2H", QUAD_7, 3),
        ("2C 2D", FOUR_PAIRS_HIGH, 3),
        ("2D 2H", QUAD_7, 4),
        ("2S 2C 2D", FOUR_PAIRS_HIGH, 4),  # three 2s: the sum
        ("2C 2D 2H", FOUR_PAIRS_HIGH, 5),
        (THREE_PAIRS, QUAD_7, 2),  # 3ĐT = 2B (led, then chopped)
        (THREE_PAIRS, THREE_PAIRS_HIGHER, 2),  # a higher 3ĐT chops it too
        (THREE_PAIRS, FOUR_PAIRS_HIGH, 2),
        (QUAD_7, QUAD_8, 3),  # TQ = 3B
        (QUAD_7, FOUR_PAIRS_8J, 3),  # TQ chopped by a 4ĐT
        (FOUR_PAIRS_LOW, FOUR_PAIRS_HIGH, 4),  # 4ĐT = 4B
    ],
)
def test_chopped_player_pays_chopper_the_chop_value_at_the_end(preset, target, bomb, value):
    game = chop_game(preset, target, bomb)
    assert len(game.chops) == 1 and game.chops[0].value == value
    assert payments(game) == _with_chop(value)
    expected = {0: 2 + value, 1: 1, 2: -1, 3: -2 - value}
    assert net(game) == expected


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize("target, higher", [("2S", "2H"), ("2S", "2C"), ("2S 2C", "2D 2H")])
def test_two_beaten_by_higher_two_is_no_chop_and_pays_nothing(preset, target, higher):
    game = chop_game(preset, target, higher)
    assert game.chops == ()
    assert payments(game) == _with_chop(0)


def test_north_has_no_chop_money():
    game = chop_game("mien-bac", "2H", QUAD_7)
    assert payments(game) == _place_lines((1, 0, 1), (2, 0, 2), (3, 0, 3))


def _chain_game(preset, a_target, b_bomb, c_bomb, d_bomb=None):
    """Seat 3 (A) leads a_target; seat 0 (B), seat 1 (C) and seat 2 (D) chop in turn.

    Hands keep one spare card each; the round's last bomb owner then leads and the
    game is played to the end: seat 2 JS (out), seat 3 QS (out), seat 0 KS (out),
    seat 1 left with 10S.
    """
    hands = [
        "3S " + b_bomb + " KS",
        "4S " + c_bomb + " 10S",
        "5S " + (d_bomb or "") + " JS",
        "6S " + a_target + " QS",
    ]
    game = later_game(preset, hands)
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    moves = [(3, a_target), (0, b_bomb), (1, c_bomb)]
    if d_bomb:
        moves += [(2, d_bomb), (3, PASS), (0, PASS), (1, PASS)]
    else:
        moves += [(2, PASS), (3, PASS), (0, PASS)]
    run(game, moves)
    return game


@pytest.mark.parametrize("preset", SOUTH)
def test_rules_chain_example_a_2h_b_3dt_c_tq_d_4dt_c_pays_d_7b(preset):
    game = _chain_game(preset, "2H", THREE_PAIRS, QUAD_7, FOUR_PAIRS_8J)
    assert [event.chain_value for event in game.chops] == [2, 4, 7]
    # D (seat 2) leads: JS out; seat 3 QS out; seat 0 KS out; seat 1 left with 10S
    run(game, [(2, "JS"), (3, "QS"), (0, "KS")])
    assert game.finished and game.places == [2, 3, 0, 1]
    assert payments(game) == sorted(_place_lines((1, 2, 2), (0, 3, 1)) + [(1, 2, 7, "chop")])
    assert net(game) == {0: -1, 1: -9, 2: 9, 3: 1}


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "target, b_bomb, c_bomb, total",
    [
        ("2D", QUAD_7, QUAD_8, 5),  # red 2 + TQ
        ("2S", THREE_PAIRS, "7C 7D 8C 8D 9C 9D", 3),  # black 2 + 3ĐT (higher 3ĐT)
        ("2S 2C", QUAD_7, FOUR_PAIRS_8J, 5),  # pair of 2s + TQ
    ],
)
def test_chain_of_two_chops_last_chopped_pays_the_whole_chain(preset, target, b_bomb, c_bomb, total):
    game = _chain_game(preset, target, b_bomb, c_bomb)
    assert game.chops[-1].chain_value == total
    # C (seat 1) leads 10S and goes out; seat 2 JS; seat 3 QS; seat 0 left with KS
    run(game, [(1, "10S"), (2, "JS"), (3, "QS")])
    assert game.finished and game.places == [1, 2, 3, 0]
    chop_lines = [p for p in payments(game) if p[3] == "chop"]
    assert chop_lines == [(0, 1, total, "chop")]  # A (seat 3) pays nothing


@pytest.mark.parametrize("preset", SOUTH)
def test_chopped_play_that_was_its_players_last_cards_pays_nothing(preset):
    game = later_game(preset, ["3S " + THREE_PAIRS + " 9S", "4S 10S", "5S JS", "6S 2S"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    out = run(game, [(3, "2S"), (0, THREE_PAIRS)])
    assert out[0].went_out == 0 and out[1].chop.chopped_went_out
    run(game, [(1, PASS), (2, PASS), (0, "9S"), (1, "10S")])
    assert game.finished and game.places == [3, 0, 1, 2]
    assert payments(game) == _place_lines((1, 0, 1), (2, 3, 2))


@pytest.mark.parametrize("preset", SOUTH)
def test_chain_whose_last_chopped_play_was_its_players_last_cards_nobody_pays(preset):
    # A (seat 3) 2H, B (seat 0) 3ĐT with its last cards, C (seat 1) TQ on it.
    game = later_game(preset, ["3S " + THREE_PAIRS, "4S " + QUAD_7 + " 10S", "5S JS", "6S 2H QS"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    out = run(game, [(3, "2H"), (0, THREE_PAIRS), (1, QUAD_7)])
    assert out[1].went_out == 0
    assert out[2].chop.chopped_went_out and out[2].chop.chain_value == 4
    run(game, [(2, PASS), (3, PASS), (1, "10S"), (2, "JS")])
    assert game.finished and game.places == [0, 1, 2, 3]
    assert payments(game) == _place_lines((2, 1, 1), (3, 0, 2))


@pytest.mark.parametrize("preset", SOUTH)
def test_4dt_out_of_turn_chop_is_paid_like_any_chop(preset):
    game = later_game(preset, ["3S 9S", "4S " + FOUR_PAIRS_HIGH + " 10S", "5S JS", "6S 2D QS"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    run(game, [(3, "2D")])
    assert game.turn == 0
    out = game.play(1, FOUR_PAIRS_HIGH)
    assert out.out_of_turn and out.chop.value == 2
    run(game, [(2, PASS), (3, PASS), (0, PASS)])
    run(game, [(1, "10S"), (2, "JS"), (3, "QS")])
    assert game.finished and game.places == [1, 2, 3, 0]
    assert payments(game) == [(0, 1, 2, "place"), (3, 1, 2, "chop"), (3, 2, 1, "place")]


@pytest.mark.parametrize("preset, expected, balance", [
    ("mien-nam", [(0, 1, 1, "leave-penalty"), (0, 1, 2, "place"), (0, 2, 1, "leave-penalty"),
                  (0, 3, 1, "leave-penalty"), (3, 2, 1, "place")], {0: -5, 1: 3, 2: 2, 3: 0}),
    ("iwin", [(0, 1, 2, "place"), (3, 2, 1, "place")], {0: -2, 1: 2, 2: 1, 3: -1}),
])
def test_chopper_who_leaves_loses_chop_winnings(preset, expected, balance):
    game = later_game(preset, ["3S " + THREE_PAIRS + " 9S", "4S 10S", "5S JS", "6S 2H QS"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    run(game, [(3, "2H"), (0, THREE_PAIRS)])
    game.leave(0)
    run(game, [(1, PASS), (2, PASS), (3, PASS)])
    assert game.turn == 1
    run(game, [(1, "10S"), (2, "JS")])
    assert game.finished and game.places == [1, 2, 3, 0]
    assert payments(game) == expected
    assert net(game) == balance


# ================================================================== thối / úng
def _leftover_game(preset, extra):
    """Places [0, 1, 2, 3]; seat 3 is left holding 10S plus ``extra``."""
    game = later_game(preset, ["3S 7S", "4S 8S", "5S 9S", "6S 10S " + extra])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, "7S"), (1, "8S"), (2, "9S")])
    assert game.finished and game.places == [0, 1, 2, 3]
    return game


@pytest.mark.parametrize(
    "extra, value",
    [
        ("2C", 1),
        ("2D", 2),
        ("2S 2H", 3),
        ("KS KC KD KH", 3),
        ("3C 3D 4C 4D 5C 5D", 2),
        ("JC JD QC QD KC KD AC AD", 4),
        ("2D KS KC KD KH", 5),
        ("3C 3D 4C 4D 5C 5D 2C", 3),
    ],
)
def test_iwin_3rd_collects_from_4th_chop_value_of_2s_and_bombs_left(extra, value):
    game = _leftover_game("iwin", extra)
    assert payments(game) == sorted(_place_lines((2, 1, 1), (3, 0, 2)) + [(3, 2, value, "leftover")])
    assert net(game) == {0: 2, 1: 1, 2: -1 + value, 3: -2 - value}


def test_mien_nam_has_no_thoi():
    game = _leftover_game("mien-nam", "2D KS KC KD KH")
    assert payments(game) == _place_lines((2, 1, 1), (3, 0, 2))


@pytest.mark.parametrize(
    "extra, value",
    [("2S", 1), ("2C", 1), ("2D", 2), ("2H", 2), ("KS KC KD KH", 2), ("2C 2H", 3), ("2S KS KC KD KH", 3)],
)
def test_north_last_player_pays_player_before_black_2_1b_red_2_2b_tq_2b(extra, value):
    game = _leftover_game("mien-bac", extra)
    expected = _place_lines((1, 0, 1), (2, 0, 2), (3, 0, 3)) + [(3, 2, value, "leftover")]
    assert payments(game) == sorted(expected)


@pytest.mark.parametrize("preset", ["iwin", "mien-bac"])
def test_no_thoi_when_last_player_holds_no_2_or_bomb(preset):
    game = _leftover_game(preset, "KS KC KD")
    assert all(p[3] == "place" for p in payments(game))


# ================================================================== cóng
OVERLAP = "3S 3C 3D 3H 4S 4C 5S 5C 6S 6C 7D"  # TQ (3) + 3ĐT 4-5-6 (2) = 5, better than 4ĐT 3-6 (4)


def _one_frozen(preset, frozen_hand):
    """Seat 0 goes out first while seat 3 has played nothing; seats 1 and 2 play on."""
    game = later_game(preset, ["8S QS", "9S KS AH", "10S AS", frozen_hand])
    out = run(game, [(0, "8S"), (1, "9S"), (2, "10S"), (3, PASS), (0, "QS")])
    assert out[-1].went_out == 0 and out[-1].frozen == (3,)
    assert game.cong == (3,) and game.place_of(3) == 3
    assert not game.finished
    run(game, [(1, "KS"), (2, "AS")])
    assert game.finished and game.places == [0, 2, 1, 3]
    return game


@pytest.mark.parametrize("preset, base", [("mien-nam", 2), ("iwin", 4)])
@pytest.mark.parametrize(
    "frozen_hand, value",
    [
        ("7D", 0),
        ("2H 7D", 2),
        ("2S 2C 7D", 2),
        ("2S 2D 7D", 3),
        ("3S 3C 4S 4C 5S 5C", 2),
        ("3S 3C 3D 3H 7D", 3),
        ("3S 3C 4S 4C 5S 5C 6S 6C", 4),
        (OVERLAP, 5),  # overlapping bombs: most valuable split, no card used twice
        (OVERLAP + " 2H", 7),
        ("3S 3C 4S 4C 4D 4H 5S 5C 6S 6C 7D", 4),  # 4ĐT 3-6 (4) beats TQ of 4s (3)
    ],
)
def test_one_frozen_pays_winner_base_plus_value_and_others_play_on(preset, base, frozen_hand, value):
    game = _one_frozen(preset, frozen_hand)
    # the frozen player pays in place of place money; 3rd pays 2nd 1B; no thối on top
    assert payments(game) == sorted(_place_lines((1, 2, 1)) + [(3, 0, base + value, "cong")])
    assert net(game) == {0: base + value, 1: -1, 2: 1, 3: -base - value}


@pytest.mark.parametrize("preset", SOUTH)
def test_frozen_players_take_the_last_places_in_seat_order_after_the_winner(preset):
    game = later_game(preset, ["7D", "9S KS", "8S QS", "6D"], winner=2)
    out = run(game, [(2, "8S"), (3, PASS), (0, PASS), (1, "9S"), (2, "QS")])
    assert out[-1].frozen == (3, 0)
    assert game.finished and game.places == [2, 1, 3, 0]


@pytest.mark.parametrize("preset, expected", [
    ("mien-nam", [(0, 1, 2 + 2, "cong"), (3, 1, 2 + 3, "cong")]),
    ("iwin", [(0, 1, 4 + 2, "cong"), (2, 1, 1, "place"), (3, 1, 4 + 3, "cong")]),
])
def test_two_frozen_game_ends_other_takes_2nd(preset, expected):
    # winner seat 1; seat 2 played; seats 3 and 0 frozen
    game = later_game(preset, ["2H 7D", "8S QS", "9S AS", "KD KH KC KS 6D"], winner=1)
    out = run(game, [(1, "8S"), (2, "9S"), (3, PASS), (0, PASS), (1, "QS")])
    assert out[-1].frozen == (3, 0) and out[-1].finished
    assert game.places == [1, 2, 3, 0]
    assert payments(game) == sorted(expected)


@pytest.mark.parametrize("preset", SOUTH)
def test_three_frozen_mien_nam_each_pays_own_iwin_den_bai_by_the_one_who_could_beat(preset):
    base = 2 if preset == "mien-nam" else 4
    game = later_game(preset, ["8S QS", "3C 4C 2S", "5C 6C", "7C 3D 4D 4H 3H 5D 5H"])
    out = run(game, [(0, "8S"), (1, PASS), (2, PASS), (3, PASS), (0, "QS")])
    # seat 1 holds 2S, which beats 8S: that is a play it could have made.
    assert out[-1].frozen == (1, 2, 3) and out[-1].finished
    assert game.places == [0, 1, 2, 3]
    if preset == "mien-nam":
        assert payments(game) == [(1, 0, base + 1, "cong"), (2, 0, base, "cong"), (3, 0, base + 2, "cong")]
    else:
        # đền bài: seat 1 passed on 8S holding 2S and pays for all three
        assert payments(game) == [(1, 0, 3 * base + 1 + 2, "cong")]
        assert game.next_game_leader() == 1


def test_iwin_three_frozen_nobody_could_beat_each_pays_own_and_winner_leads_next():
    game = later_game("iwin", ["8S QS", "3C 4C", "5C 6C", "7C 3D 4D 4H 3H 5D 5H"])
    run(game, [(0, "8S"), (1, PASS), (2, PASS), (3, PASS), (0, "QS")])
    assert game.finished and game.cong == (1, 2, 3)
    assert payments(game) == [(1, 0, 4, "cong"), (2, 0, 4, "cong"), (3, 0, 4 + 2, "cong")]
    assert game.next_game_leader() == 0


def test_iwin_den_bai_the_one_who_passed_with_a_play_pays_all_and_leads_next_game():
    game = later_game("iwin", ["8S QS", "3C 4C", "5C 9C 2D", "7C 3D 4D 4H 3H 5D 5H"])
    run(game, [(0, "8S"), (1, PASS), (2, PASS), (3, PASS), (0, "QS")])
    assert game.cong == (1, 2, 3)
    assert payments(game) == [(2, 0, 4 + 4 + 2 + 4 + 2, "cong")]
    assert net(game) == {0: 16, 1: 0, 2: -16, 3: 0}
    assert game.next_game_leader() == 2


def test_iwin_den_bai_several_culprits_first_in_seat_order_after_the_winner_pays():
    # winner seat 2; seat order after it: 3, 0, 1.  Seats 1 and 3 could have beaten 8S.
    game = later_game("iwin", ["5C 6C", "9C 3C", "8S QS", "10C 4C"], winner=2)
    run(game, [(2, "8S"), (3, PASS), (0, PASS), (1, PASS), (2, "QS")])
    assert game.cong == (3, 0, 1)
    assert payments(game) == [(3, 2, 12, "cong")]
    assert game.next_game_leader() == 3


def test_mien_nam_three_frozen_no_den_bai():
    game = later_game("mien-nam", ["5C 6C", "9C 3C", "8S QS", "10C 4C"], winner=2)
    run(game, [(2, "8S"), (3, PASS), (0, PASS), (1, PASS), (2, "QS")])
    assert payments(game) == [(0, 2, 2, "cong"), (1, 2, 2, "cong"), (3, 2, 2, "cong")]
    assert game.next_game_leader() == 2


def test_north_has_no_cong():
    game = later_game("mien-bac", ["8S QS", "9S KS", "3C 5D", "4C"])
    out = run(game, [(0, "8S"), (1, "9S"), (2, PASS), (3, PASS), (0, "QS")])
    assert out[-1].frozen == () and game.cong == ()
    out = game.play(1, "KS")  # seats 2 and 3 passed in this round: it ends, seat 2 leads
    assert out.round_over and out.leader == 2
    run(game, [(2, "3C"), (3, "4C")])
    assert game.finished and game.places == [0, 1, 3, 2]
    assert payments(game) == _place_lines((1, 0, 1), (2, 0, 3), (3, 0, 2))


# ================================================================== leaving
def _leave_game(preset):
    """Seat 1 leaves at once; then places [0, 2, 3, 1]."""
    game = later_game(preset, ["3S 7S JS", "4S 8S QS", "5S 9S KS", "6S 10S AS"])
    game.leave(1)
    run(game, [(0, "3S"), (2, "5S"), (3, "6S"), (0, "7S"), (2, "9S"), (3, "10S"), (0, "JS"), (2, "KS")])
    assert game.finished and game.places == [0, 2, 3, 1]
    return game


def test_mien_nam_leaver_pays_last_place_money_plus_1b_to_each_other_player():
    game = _leave_game("mien-nam")
    assert payments(game) == [
        (1, 0, 1, "leave-penalty"), (1, 0, 2, "place"), (1, 2, 1, "leave-penalty"), (1, 3, 1, "leave-penalty"),
        (3, 2, 1, "place"),
    ]
    assert net(game) == {0: 3, 1: -5, 2: 2, 3: 0}


def test_iwin_leaver_pays_last_place_money_only():
    game = _leave_game("iwin")
    assert payments(game) == _place_lines((1, 0, 2), (3, 2, 1))


def test_north_leaver_pays_last_place_money_3b():
    game = _leave_game("mien-bac")
    assert payments(game) == _place_lines((1, 0, 3), (2, 0, 1), (3, 0, 2))


@pytest.mark.parametrize("preset, expected", [
    ("mien-nam", [(1, 0, 1, "leave-penalty"), (1, 0, 2, "place")]),
    ("iwin", [(1, 0, 2, "place")]),
    ("mien-bac", [(1, 0, 1, "place")]),
])
def test_two_players_leaver_loses_and_game_ends(preset, expected):
    game = later_game(preset, ["3S 9S", "4S 10S"])
    game.play(0, "3S")
    game.leave(1)
    assert game.finished and game.places == [0, 1]
    assert payments(game) == expected


# ================================================================== more chop / cóng / thối cases
@pytest.mark.parametrize("preset", SOUTH)
def test_chain_only_the_last_chopped_counts_even_if_an_earlier_chopped_player_went_out(preset):
    # A (seat 3) 2H, B (seat 0) 3ĐT with its last cards, C (seat 1) TQ, D (seat 2) 4ĐT: C pays D 7B.
    game = later_game(preset, ["3S " + THREE_PAIRS, "4S " + QUAD_7 + " 10S", "5S " + FOUR_PAIRS_8J + " JS",
                               "6S 2H QS"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    out = run(game, [(3, "2H"), (0, THREE_PAIRS), (1, QUAD_7), (2, FOUR_PAIRS_8J)])
    assert out[1].went_out == 0 and out[2].chop.chopped_went_out and not out[3].chop.chopped_went_out
    run(game, [(3, PASS), (1, PASS)])  # seat 2 leads
    run(game, [(2, "JS"), (3, "QS")])
    assert game.finished and game.places == [0, 2, 3, 1]
    assert payments(game) == [(1, 0, 2, "place"), (1, 2, 7, "chop"), (3, 2, 1, "place")]


@pytest.mark.parametrize("preset", SOUTH)
def test_2s_beaten_by_2h_then_chopped_only_the_2h_player_pays_for_the_2h(preset):
    game = later_game(preset, ["3S 2S KS", "4S 2H 10S", "5S " + THREE_PAIRS + " JS", "6S QS AS"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    out = run(game, [(3, "QS"), (0, "2S"), (1, "2H"), (2, THREE_PAIRS), (3, PASS), (0, PASS), (1, PASS)])
    assert out[2].chop is None and out[3].chop.value == 2
    run(game, [(2, "JS"), (3, "AS"), (0, PASS), (1, PASS), (0, "KS")])
    assert game.finished and game.places == [2, 3, 0, 1]
    assert payments(game) == [(0, 3, 1, "place"), (1, 2, 2, "chop"), (1, 2, 2, "place")]


@pytest.mark.parametrize("preset", SOUTH)
def test_chopped_player_who_leaves_still_pays_the_chop(preset):
    game = later_game(preset, ["3S " + THREE_PAIRS + " 9S", "4S 10S", "5S JS", "6S 2H QS"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS)])
    run(game, [(3, "2H"), (0, THREE_PAIRS)])
    game.leave(3)
    run(game, [(1, PASS), (2, PASS)])
    run(game, [(0, "9S"), (1, "10S")])
    assert game.finished and game.places == [0, 1, 2, 3]
    assert (3, 0, 2, "chop") in payments(game)


@pytest.mark.parametrize("preset", SOUTH)
def test_chain_higher_3dt_then_tq_pays_both_3dt(preset):
    game = _chain_game(preset, THREE_PAIRS, THREE_PAIRS_HIGHER, "AS AC AD AH")
    assert [event.chain_value for event in game.chops] == [2, 4]
    run(game, [(1, "10S"), (2, "JS"), (3, "QS")])
    assert [line for line in payments(game) if line[3] == "chop"] == [(0, 1, 4, "chop")]


@pytest.mark.parametrize("preset, owed", [("mien-nam", 2 + 2), ("iwin", 4 + 2)])
def test_two_players_frozen_loser_pays_cong_instead_of_place_money(preset, owed):
    game = later_game(preset, ["8S QS", "3C 2H"])
    out = run(game, [(0, "8S"), (1, PASS), (0, "QS")])
    assert out[-1].frozen == (1,) and game.finished
    assert payments(game) == [(1, 0, owed, "cong")]


def test_iwin_thoi_overlapping_bombs_counted_once_best_split():
    # TQ of jacks (3) + 3ĐT Q-K-A (2) = 5 beats 4ĐT J-A (4)
    game = _leftover_game("iwin", "JS JC JD JH QC QD KC KD AC AD")
    assert [line for line in payments(game) if line[3] == "leftover"] == [(3, 2, 5, "leftover")]


def test_iwin_thoi_three_players_last_holder_pays_the_one_placed_above_documented_decision():
    game = later_game("iwin", ["3S 6S", "4S 7S", "5S 8S 2D"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (0, "6S"), (1, "7S")])
    assert game.finished and game.places == [0, 1, 2]
    assert payments(game) == sorted(_place_lines((1, 0, 1), (2, 0, 2)) + [(2, 1, 2, "leftover")])


def test_north_two_players_going_out_on_a_two_pays_2b_instead_of_place_money():
    game = later_game("mien-bac", ["3S 2H", "4S 9S"])
    out = run(game, [(0, "3S"), (1, "4S"), (0, "2H")])
    assert out[-1].finish_penalty and game.finished
    assert game.places == [1, 0]
    assert payments(game) == [(0, 1, 2, "finish-penalty")]


def test_iwin_den_bai_a_timeout_counts_as_passing_with_a_play():
    game = later_game("iwin", ["8S QS", "3C 4C", "5C 9C", "7C 6D"])
    run(game, [(0, "8S"), (1, PASS)])
    game.timeout(2)
    run(game, [(3, PASS), (0, "QS")])
    assert game.cong == (1, 2, 3)
    assert payments(game) == [(2, 0, 12, "cong")]
    assert game.next_game_leader() == 2


def test_north_three_players_last_player_pays_thoi_to_the_player_just_before():
    game = later_game("mien-bac", ["3S 6S", "4S 7S", "5S 8S 2D"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (0, "6S"), (1, "7S")])
    assert game.finished and game.places == [0, 1, 2]
    assert payments(game) == [(1, 0, 1, "place"), (2, 0, 2, "place"), (2, 1, 2, "leftover")]

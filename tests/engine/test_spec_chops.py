"""docs/rules.md §2 — chopping (chặt): the chop table row by row for both columns,
and when a chop may be played (on turn, after passing, 4ĐT out of turn)."""

import pytest

from tienlen import ComboKind, InvalidComboError, OutOfTurnResume, RULESETS, classify
from tests.engine.spec_helpers import PASS, SOUTH, beats, new_game, refused, run

THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
THREE_PAIRS_HIGH = "QS QC KS KC AS AC"
FOUR_OF_A_KIND = "7S 7C 7D 7H"
FOUR_PAIRS = "8D 8H 9D 9H 10D 10H JD JH"
FOUR_PAIRS_LOW = "3D 3H 4D 4H 5D 5H 6D 6H"


# ------------------------------------------------ chop table, South column
@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, legal",
    [
        ("2H", True),  # higher 2
        ("2C", True),
        (THREE_PAIRS, True),
        (FOUR_OF_A_KIND, True),
        (FOUR_PAIRS, True),
    ],
)
def test_south_single_two_beaten_by_higher_two_3dt_tq_4dt(preset, play, legal):
    assert beats(preset, play, "2S") is legal


@pytest.mark.parametrize("preset", SOUTH)
def test_south_single_two_not_beaten_by_lower_two(preset):
    assert beats(preset, "2C", "2D") is False


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, legal",
    [
        ("2D 2H", True),  # higher pair of 2s
        (FOUR_OF_A_KIND, True),
        (FOUR_PAIRS, True),
        (THREE_PAIRS, False),  # not 3ĐT
        (THREE_PAIRS_HIGH, False),
    ],
)
def test_south_pair_of_twos_beaten_by_higher_pair_tq_4dt_not_3dt(preset, play, legal):
    assert beats(preset, play, "2S 2C") is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, legal",
    [(FOUR_PAIRS, True), (FOUR_PAIRS_LOW, True), (FOUR_OF_A_KIND, False), (THREE_PAIRS, False)],
)
def test_south_three_twos_beaten_only_by_4dt(preset, play, legal):
    assert beats(preset, play, "2S 2C 2D") is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("4D 4H 5D 5H 6D 6H", THREE_PAIRS, True),  # higher 3ĐT
        (THREE_PAIRS, "4D 4H 5D 5H 6D 6H", False),  # lower 3ĐT
        ("3S 3C 3D 3H", THREE_PAIRS_HIGH, True),  # any TQ, even four 3s
        (FOUR_OF_A_KIND, THREE_PAIRS, True),
        (FOUR_PAIRS_LOW, THREE_PAIRS_HIGH, True),  # any 4ĐT
        (FOUR_PAIRS, THREE_PAIRS, True),
    ],
)
def test_south_3dt_beaten_by_higher_3dt_any_tq_any_4dt(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("8S 8C 8D 8H", FOUR_OF_A_KIND, True),  # higher TQ
        ("6S 6C 6D 6H", FOUR_OF_A_KIND, False),  # lower TQ
        (FOUR_PAIRS_LOW, "AS AC AD AH", True),  # any 4ĐT
        (THREE_PAIRS_HIGH, "3S 3C 3D 3H", False),  # 3ĐT never beats a TQ
    ],
)
def test_south_tq_beaten_by_higher_tq_or_any_4dt(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        (FOUR_PAIRS, FOUR_PAIRS_LOW, True),  # higher 4ĐT
        (FOUR_PAIRS_LOW, FOUR_PAIRS, False),
        ("AS AC AD AH", FOUR_PAIRS_LOW, False),  # no TQ on a 4ĐT
        (THREE_PAIRS_HIGH, FOUR_PAIRS_LOW, False),  # no 3ĐT on a 4ĐT
    ],
)
def test_south_4dt_beaten_only_by_higher_4dt(preset, play, top, legal):
    assert beats(preset, play, top) is legal


# ------------------------------------------------ chop table, North column
@pytest.mark.parametrize("play, legal", [("2H", True), ("2C", True), (FOUR_OF_A_KIND, True), ("3S 3C 3D 3H", True)])
def test_north_single_two_beaten_by_higher_two_or_tq(play, legal):
    assert beats("mien-bac", play, "2S") is legal


@pytest.mark.parametrize("play, legal", [("2D 2H", True), (FOUR_OF_A_KIND, False), ("AS AC AD AH", False)])
def test_north_pair_of_twos_beaten_only_by_higher_pair_of_twos(play, legal):
    assert beats("mien-bac", play, "2S 2C") is legal


def test_north_three_twos_cannot_be_chopped_by_tq():
    assert beats("mien-bac", FOUR_OF_A_KIND, "2S 2C 2D") is False


@pytest.mark.parametrize("play, legal", [("8S 8C 8D 8H", True), ("6S 6C 6D 6H", False)])
def test_north_tq_beaten_by_higher_tq(play, legal):
    assert beats("mien-bac", play, FOUR_OF_A_KIND) is legal


@pytest.mark.parametrize("text", [THREE_PAIRS, FOUR_PAIRS])
def test_north_has_no_3dt_or_4dt_bomb(text):
    with pytest.raises(InvalidComboError):
        classify(text, RULESETS["mien-bac"])


# ------------------------------------------------ in a game: chặt chồng
def _chain_game(preset):
    # Later game led by seat 0; every seat keeps a spare card so nobody goes out.
    return new_game(
        preset,
        ["2H 6S", THREE_PAIRS + " 9C", FOUR_OF_A_KIND + " 9S", FOUR_PAIRS + " 6C"],
        first_game=False,
        previous_winner=0,
    )


@pytest.mark.parametrize("preset", SOUTH)
def test_south_chop_on_a_chop_2h_3dt_tq_4dt_all_legal(preset):
    game = _chain_game(preset)
    outcomes = run(game, [(0, "2H"), (1, THREE_PAIRS), (2, FOUR_OF_A_KIND), (3, FOUR_PAIRS)])
    assert [o.chop is not None for o in outcomes] == [False, True, True, True]
    assert [o.chop.chopped for o in outcomes[1:]] == [0, 1, 2]
    assert game.top.cards == classify(FOUR_PAIRS, game.rules).cards
    assert game.top_owner == 3


@pytest.mark.parametrize("preset", SOUTH)
def test_south_two_beaten_by_higher_two_is_not_a_chop_but_can_then_be_chopped(preset):
    game = new_game(preset, ["2S 6S", "2H 9C", THREE_PAIRS + " 9S", "10S JS"], first_game=False, previous_winner=0)
    out = run(game, [(0, "2S"), (1, "2H"), (2, THREE_PAIRS)])
    assert out[1].chop is None
    assert out[2].chop is not None and out[2].chop.chopped == 1


@pytest.mark.parametrize("preset", SOUTH)
def test_south_tq_chops_a_led_3dt(preset):
    game = new_game(preset, [THREE_PAIRS + " 6S", FOUR_OF_A_KIND + " 9C", "10S", "JS"], first_game=False,
                    previous_winner=0)
    out = run(game, [(0, THREE_PAIRS), (1, FOUR_OF_A_KIND)])
    assert out[1].chop is not None and out[1].chop.chopped == 0


def test_north_tq_chops_a_two_on_turn():
    game = new_game("mien-bac", ["2S 6S", FOUR_OF_A_KIND + " 9C", "10S", "JS"], first_game=False, previous_winner=0)
    out = run(game, [(0, "2S"), (1, FOUR_OF_A_KIND)])
    assert game.top_owner == 1 and out[1].combo.kind is ComboKind.FOUR_OF_A_KIND


def test_north_tq_cannot_chop_a_pair_of_twos_in_a_game():
    game = new_game("mien-bac", ["2S 2C 6S", FOUR_OF_A_KIND + " 9C", "10S", "JS"], first_game=False,
                    previous_winner=0)
    run(game, [(0, "2S 2C")])
    assert refused(game, 1, FOUR_OF_A_KIND) == "cannot_beat"


# ------------------------------------------------ when chops may be played
def _timing_game(preset, **options):
    """Seat 0 leads 2S; seat 1 has a 3ĐT, seat 2 a TQ, seat 3 a 4ĐT."""
    return new_game(
        preset,
        ["2S 6S", THREE_PAIRS + " 9C", FOUR_OF_A_KIND + " 9S", FOUR_PAIRS + " 6C"],
        first_game=False,
        previous_winner=0,
        options=options,
    )


@pytest.mark.parametrize("preset", SOUTH)
def test_3dt_chop_only_on_own_turn(preset):
    game = new_game(preset, ["2S 6S", "10S JS", THREE_PAIRS + " 9C", "QS KS"], first_game=False, previous_winner=0)
    run(game, [(0, "2S")])
    assert game.turn == 1
    assert refused(game, 2, THREE_PAIRS) == "not_your_turn"
    assert game.legal_plays(2) == []


@pytest.mark.parametrize("preset", SOUTH)
def test_tq_chop_only_on_own_turn(preset):
    game = _timing_game(preset)
    run(game, [(0, "2S")])
    assert game.turn == 1
    assert refused(game, 2, FOUR_OF_A_KIND) == "not_your_turn"


@pytest.mark.parametrize("preset", SOUTH)
def test_3dt_chop_refused_after_passing_in_the_round(preset):
    game = new_game(preset, ["2S 6S", THREE_PAIRS + " 9C", "2C 10S", "QS KS"], first_game=False, previous_winner=0)
    run(game, [(0, "2S"), (1, PASS), (2, "2C")])
    assert refused(game, 1, THREE_PAIRS) == "locked_out"
    assert game.legal_plays(1) == []


@pytest.mark.parametrize("preset", SOUTH)
def test_tq_chop_refused_after_passing_in_the_round(preset):
    game = _timing_game(preset)
    run(game, [(0, "2S"), (1, PASS), (2, PASS)])
    assert game.turn == 3
    assert refused(game, 2, FOUR_OF_A_KIND) == "locked_out"


def test_north_tq_chop_only_on_own_turn():
    game = new_game("mien-bac", ["2S 6S", "10S JS", FOUR_OF_A_KIND + " 9C", "QS KS"], first_game=False,
                    previous_winner=0)
    run(game, [(0, "2S")])
    assert refused(game, 2, FOUR_OF_A_KIND) == "not_your_turn"


@pytest.mark.parametrize("preset", SOUTH)
def test_4dt_chop_out_of_turn_on_a_single_two(preset):
    game = _timing_game(preset)
    run(game, [(0, "2S")])
    assert game.turn == 1
    assert [str(c) for c in game.legal_plays(3)] == [str(classify(FOUR_PAIRS, game.rules))]
    out = game.play(3, FOUR_PAIRS)
    assert out.out_of_turn is True
    assert out.chop is not None and out.chop.chopper == 3 and out.chop.chopped == 0
    assert game.top_owner == 3


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "target, target_hand",
    [
        ("2S 2C", "2S 2C 6S"),
        ("2S 2C 2D", "2S 2C 2D 6S"),
        (THREE_PAIRS, THREE_PAIRS + " 6S"),
        (FOUR_OF_A_KIND, FOUR_OF_A_KIND + " 6S"),
        (FOUR_PAIRS_LOW, FOUR_PAIRS_LOW + " 6S"),
    ],
)
def test_4dt_chop_out_of_turn_on_each_target(preset, target, target_hand):
    game = new_game(preset, [target_hand, "QS KS", "QC KC", FOUR_PAIRS + " 6C"], first_game=False, previous_winner=0)
    run(game, [(0, target)])
    out = game.play(3, FOUR_PAIRS)
    assert out.out_of_turn and out.chop is not None and out.chop.chopped == 0


@pytest.mark.parametrize("preset", SOUTH)
def test_4dt_out_of_turn_refused_on_a_non_two_single(preset):
    game = new_game(preset, ["AH 6S", "QS KS", "QC KC", FOUR_PAIRS + " 6C"], first_game=False, previous_winner=0)
    run(game, [(0, "AH")])
    assert game.legal_plays(3) == []
    assert refused(game, 3, FOUR_PAIRS) == "not_your_turn"


@pytest.mark.parametrize("preset", SOUTH)
def test_4dt_out_of_turn_even_after_passing_on_the_target(preset):
    game = new_game(
        preset,
        ["2S 6S", FOUR_PAIRS + " 9C", "QS KS", "QC KC"],
        first_game=False,
        previous_winner=0,
    )
    run(game, [(0, "2S"), (1, PASS), (2, PASS)])
    assert game.turn == 3 and 1 in game.passed
    out = game.play(1, FOUR_PAIRS)
    assert out.out_of_turn and out.chop is not None


@pytest.mark.parametrize("preset", SOUTH)
def test_after_out_of_turn_4dt_play_continues_with_player_after_chopper(preset):
    game = new_game(
        preset,
        ["2S 6S", "QS KS", FOUR_PAIRS + " 9C", "QC KC"],
        first_game=False,
        previous_winner=0,
    )
    run(game, [(0, "2S")])
    assert game.turn == 1
    game.play(2, FOUR_PAIRS)
    assert game.turn == 3  # the seat after the chopper, not the interrupted seat 1


@pytest.mark.parametrize("preset", SOUTH)
def test_after_out_of_turn_4dt_other_passes_stay_in_force(preset):
    game = new_game(
        preset,
        ["2S 6S", FOUR_PAIRS + " 9C", "QS KS", "QC KC"],
        first_game=False,
        previous_winner=0,
    )
    run(game, [(0, "2S"), (1, PASS), (2, PASS)])
    game.play(1, FOUR_PAIRS)
    assert 2 in game.passed
    assert game.turn == 3  # seat 2 passed and is skipped
    assert refused(game, 2, "QS") == "locked_out"
    out = run(game, [(3, PASS), (0, PASS)])
    assert out[-1].round_over and out[-1].leader == 1


@pytest.mark.parametrize("preset", SOUTH)
def test_after_out_of_turn_4dt_the_choppers_own_pass_is_cleared(preset):
    game = new_game(
        preset,
        ["2S 6S", FOUR_PAIRS + " 9C", "QS KS", "QC KC"],
        first_game=False,
        previous_winner=0,
    )
    run(game, [(0, "2S"), (1, PASS)])
    assert 1 in game.passed
    game.play(1, FOUR_PAIRS)
    assert 1 not in game.passed
    assert game.top_owner == 1


@pytest.mark.parametrize("preset", SOUTH)
def test_out_of_turn_resume_option_interrupted_seat_keeps_turn(preset):
    game = new_game(
        preset,
        ["2S 6S", "QS KS", FOUR_PAIRS + " 9C", "QC KC"],
        first_game=False,
        previous_winner=0,
        options={"out_of_turn_resume": OutOfTurnResume.INTERRUPTED_SEAT},
    )
    run(game, [(0, "2S")])
    game.play(2, FOUR_PAIRS)
    assert game.turn == 1


@pytest.mark.parametrize("preset", SOUTH)
def test_4dt_out_of_turn_on_a_chop_chain(preset):
    game = new_game(
        preset,
        ["2S 6S", THREE_PAIRS + " 9C", "QS KS", FOUR_PAIRS + " 6C"],
        first_game=False,
        previous_winner=0,
    )
    run(game, [(0, "2S"), (1, THREE_PAIRS)])
    assert game.turn == 2
    out = game.play(3, FOUR_PAIRS)
    assert out.out_of_turn and out.chop.chopped == 1


@pytest.mark.parametrize("preset", SOUTH)
def test_owner_of_top_cannot_chop_own_play_out_of_turn(preset):
    game = new_game(
        preset,
        ["2S " + FOUR_PAIRS, "QS KS", "QC KC", "QD KD"],
        first_game=False,
        previous_winner=0,
    )
    run(game, [(0, "2S")])
    assert game.legal_plays(0) == []
    assert refused(game, 0, FOUR_PAIRS) == "not_your_turn"


def test_north_has_no_out_of_turn_chop():
    game = new_game(
        "mien-bac", ["2S 6S", "QS KS", FOUR_OF_A_KIND + " 9C", "QC KC"], first_game=False, previous_winner=0
    )
    run(game, [(0, "2S")])
    assert game.legal_plays(2) == []
    assert refused(game, 2, FOUR_OF_A_KIND) == "not_your_turn"


# ------------------------------------------------ the chop table inside a game (legal_plays and play agree)
SOUTH_TABLE = [
    # (on top, bomb, legal)
    ("2S", "2H", True),
    ("2S", THREE_PAIRS, True),
    ("2S", FOUR_OF_A_KIND, True),
    ("2S", FOUR_PAIRS, True),
    ("2S 2C", "2D 2H", True),
    ("2S 2C", FOUR_OF_A_KIND, True),
    ("2S 2C", FOUR_PAIRS, True),
    ("2S 2C", THREE_PAIRS, False),
    ("2S 2C 2D", FOUR_PAIRS, True),
    ("2S 2C 2D", FOUR_OF_A_KIND, False),
    ("2S 2C 2D", THREE_PAIRS, False),
    (THREE_PAIRS, "4D 4H 5D 5H 6D 6H", True),  # higher 3ĐT
    (THREE_PAIRS, FOUR_OF_A_KIND, True),
    (THREE_PAIRS, FOUR_PAIRS, True),
    (FOUR_OF_A_KIND, "AS AC AD AH", True),
    (FOUR_OF_A_KIND, "3D 3H 4D 4H 5D 5H 6D 6H", True),
    (FOUR_OF_A_KIND, "QS QC KS KC AS AC", False),
    (FOUR_PAIRS_LOW, FOUR_PAIRS, True),
    (FOUR_PAIRS_LOW, "AS AC AD AH", False),
    (FOUR_PAIRS_LOW, "QS QC KS KC AS AC", False),
]


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize("target, bomb, legal", SOUTH_TABLE)
def test_south_chop_table_in_a_game_on_turn(preset, target, bomb, legal):
    game = new_game(preset, [target + " KH", bomb + " KD", "9S", "9C"], first_game=False, previous_winner=0)
    game.play(0, target)
    assert game.turn == 1
    plays = {tuple(c.cards) for c in game.legal_plays(1)}
    assert (tuple(classify(bomb, game.rules).cards) in plays) is legal
    if legal:
        game.play(1, bomb)
        assert game.top_owner == 1
    else:
        assert refused(game, 1, bomb) == "cannot_beat"


NORTH_TABLE = [
    ("2S", "2H", True),
    ("2S", FOUR_OF_A_KIND, True),
    ("2S 2C", "2D 2H", True),
    ("2S 2C", FOUR_OF_A_KIND, False),
    ("2S 2C 2D", FOUR_OF_A_KIND, False),
    (FOUR_OF_A_KIND, "AS AC AD AH", True),
    ("AS AC AD AH", FOUR_OF_A_KIND, False),
]


@pytest.mark.parametrize("target, bomb, legal", NORTH_TABLE)
def test_north_chop_table_in_a_game_on_turn(target, bomb, legal):
    game = new_game("mien-bac", [target + " KH", bomb + " KD", "9S", "9C"], first_game=False, previous_winner=0)
    game.play(0, target)
    plays = {tuple(c.cards) for c in game.legal_plays(1)}
    assert (tuple(classify(bomb, game.rules).cards) in plays) is legal
    if legal:
        game.play(1, bomb)
    else:
        assert refused(game, 1, bomb) == "cannot_beat"

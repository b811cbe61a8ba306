"""docs/rules.md §1 — combinations and when they beat one another (all presets),
including the mien-bac differences."""

import pytest

from tienlen import Bomb, ComboKind, InvalidComboError, RULESETS, classify, parse_cards
from tests.engine.spec_helpers import ALL, SOUTH, beats, combo


# ------------------------------------------------------------ card order
def test_card_order_rank_before_suit_and_suit_order_spades_clubs_diamonds_hearts():
    cards = parse_cards("3S 3C 3D 3H 4S 10S 9H 2H")
    s3, c3, d3, h3, s4, s10, h9, h2 = cards
    assert s3 < c3 < d3 < h3 < s4
    assert s10 > h9  # rank first
    assert min(parse_cards("2H 3S 10D AC")) == s3
    assert h2 == max(parse_cards("2S 2C 2D 2H AH"))


# ------------------------------------------------------------ classification
@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("text", ["3S", "2H", "10D"])
def test_any_single_card_is_a_single(preset, text):
    assert combo(preset, text).kind is ComboKind.SINGLE


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize("text", ["10H 10C", "AS AH", "4S 4C", "2S 2D"])
def test_south_pair_is_two_cards_of_one_rank_any_colours(preset, text):
    assert combo(preset, text).kind is ComboKind.PAIR


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("text", ["4S 4D 4H", "KS KD KC", "2H 2S 2D"])
def test_triple_is_three_of_one_rank(preset, text):
    assert combo(preset, text).kind is ComboKind.TRIPLE


@pytest.mark.parametrize("preset", ALL)
def test_four_of_a_kind_is_a_bomb(preset):
    result = combo(preset, "7S 7C 7D 7H")
    assert result.kind is ComboKind.FOUR_OF_A_KIND
    assert result.bomb is Bomb.FOUR_OF_A_KIND


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "text",
    ["3S 4H 5C", "8S 9S 10S JS", "QD KD AD", "3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH"],
)
def test_south_straight_of_3_to_12_consecutive_ranks_any_suits(preset, text):
    result = combo(preset, text)
    assert result.kind is ComboKind.STRAIGHT
    assert result.bomb is None


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("text", ["KS AS 2S", "AS 2S 3S", "QS KS AS 2S"])
def test_straight_never_contains_a_two_no_wrap(preset, text):
    with pytest.raises(InvalidComboError):
        classify(text, RULESETS[preset])


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("text", ["3S 4S", "3S 4S 6S", "3S 3C 4S", "3S 3C 4S 4C", "3S 3C 3D 4S 4C"])
def test_cards_forming_no_combination_are_invalid(preset, text):
    with pytest.raises(InvalidComboError):
        classify(text, RULESETS[preset])


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "text, bomb",
    [
        ("3H 3D 4H 4D 5H 5D", Bomb.THREE_PAIRS),
        ("10S 10C JH JC QS QD", Bomb.THREE_PAIRS),  # mixed colours: fine in the South
        ("10S 10C JS JC QS QC KS KC", Bomb.FOUR_PAIRS),
    ],
)
def test_south_consecutive_pairs_three_or_more_pairs(preset, text, bomb):
    result = combo(preset, text)
    assert result.kind is ComboKind.CONSECUTIVE_PAIRS
    assert result.bomb is bomb


@pytest.mark.parametrize("preset", SOUTH)
def test_south_consecutive_pairs_never_contain_a_two(preset):
    with pytest.raises(InvalidComboError):
        classify("KS KC AS AC 2S 2C", RULESETS[preset])


@pytest.mark.parametrize("preset", SOUTH)
def test_south_consecutive_pairs_must_be_consecutive(preset):
    with pytest.raises(InvalidComboError):
        classify("3S 3C 4S 4C 6S 6C", RULESETS[preset])


# ------------------------------------------------------------ beats (South)
@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("10S", "9H", True),  # rank before suit
        ("QH", "QS", True),  # same rank: higher suit
        ("QC", "QS", True),
        ("QS", "QC", False),
        ("9H", "10S", False),
        ("2S", "AH", True),
        ("4S", "3H", True),
    ],
)
def test_south_single_beaten_by_higher_card(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("10H 10C", "10D 10S", True),  # docs/rules.md §1.1 example
        ("10D 10S", "10H 10C", False),
        ("10H 10S", "10D 10C", True),  # only the higher card counts
        ("JS JC", "10H 10D", True),
        ("10H 10D", "JS JC", False),
    ],
)
def test_south_pair_beaten_when_its_higher_card_is_higher(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("5S 5D 5H", "4S 4D 4H", True),  # seed 000 example
        ("5S 5C 5D", "4C 4D 4H", True),  # rank decides, not suits
        ("4S 4D 4H", "5S 5C 5D", False),
    ],
)
def test_south_triple_beaten_by_higher_rank(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("4S 5C 6H", "4H 5H 6D", True),  # docs/rules.md §1.1 example
        ("3S 4H 5C", "3H 4S 5D", False),  # docs/rules.md §1.1 example: 5C < 5D
        ("4S 5S 6S", "3H 4H 5H", True),
        ("JH QH KS", "6H 7H 8H", True),  # seed 000 example
        ("4S 5S 6S 7S", "3H 4H 5H", False),  # different length
        ("3H 4H 5H", "4S 5S 6S 7S", False),
        ("5S 6S 7S 8S", "4H 5H 6H 7H", True),
    ],
)
def test_south_straight_same_length_and_higher_top_card(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("4S 4C 5S 5C 6S 6D", "3S 3C 4D 4H 5D 5H", True),
        ("5S 5H 6S 6H 7S 7H", "5C 5D 6C 6D 7C 7D", True),  # 7H > 7D
        ("5C 5D 6C 6D 7C 7D", "5S 5H 6S 6H 7S 7H", False),
        ("3S 3C 4S 4C 5S 5C", "4D 4H 5D 5H 6D 6H", False),
        ("4S 4C 5S 5C 6S 6C 7S 7C", "3D 3H 4D 4H 5D 5H 6D 6H", True),
    ],
)
def test_south_consecutive_pairs_same_number_of_pairs_higher_top_card(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    "play, top, legal",
    [("8S 8C 8D 8H", "7S 7C 7D 7H", True), ("7S 7C 7D 7H", "8S 8C 8D 8H", False)],
)
def test_four_of_a_kind_beaten_by_higher_rank(preset, play, top, legal):
    assert beats(preset, play, top) is legal


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "play, top",
    [
        ("5S 5C", "4S"),  # pair on a single
        ("5S", "4S 4C"),  # single on a pair
        ("5S 5C 5D", "4S 4C"),  # triple on a pair
        ("5S 6S 7S", "4S 4C 4D"),  # straight on a triple
        ("9S 9C 9D", "3S 4S 5S"),  # triple on a straight
        ("3S 3C 4S 4C 5S 5C", "6S 7S 8S 9S 10S JS"),  # six cards, other kind
    ],
)
def test_south_play_must_be_same_kind_and_size(preset, play, top):
    assert beats(preset, play, top) is False


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    "bomb, top",
    [
        ("7S 7C 7D 7H", "AH"),  # docs/rules.md §6 example
        ("7S 7C 7D 7H", "AD AH"),
        ("7S 7C 7D 7H", "KS KC KH"),
        ("7S 7C 7D 7H", "8S 9S 10S JS"),
        ("3S 3C 3D 3H", "3S 4S 5S"),
    ],
)
def test_four_of_a_kind_never_beats_a_non_two_ordinary_play(preset, bomb, top):
    assert beats(preset, bomb, top) is False


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "bomb, top",
    [
        ("3S 3C 4S 4C 5S 5C", "AH"),
        ("3S 3C 4S 4C 5S 5C 6S 6C", "AH"),
        ("3S 3C 4S 4C 5S 5C", "KS KH"),
        ("3S 3C 4S 4C 5S 5C 6S 6C", "AS AH"),
        ("3S 3C 4S 4C 5S 5C 6S 6C", "KS KC KH"),
    ],
)
def test_south_consecutive_pairs_bomb_never_beats_a_non_two_ordinary_play(preset, bomb, top):
    assert beats(preset, bomb, top) is False


# ------------------------------------------------------------ mien-bac
@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("9S", "7S", True),
        ("9H", "7S", False),  # docs/rules.md §6 example: other suit
        ("10S", "9H", False),  # a higher card of another suit does not follow suit
        ("10H", "9H", True),
        ("7C", "7S", False),  # same rank, other suit
        ("AC", "KC", True),
    ],
)
def test_north_single_must_follow_suit(play, top, legal):
    assert beats("mien-bac", play, top) is legal


@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("2C", "7S", True),  # docs/rules.md §6 example
        ("2S", "AH", True),
        ("2D", "KC", True),
        ("2H", "2S", True),  # a 2 beats a lower 2 of another suit
        ("2D", "2C", True),
        ("2S", "2C", False),  # but not a higher 2
        ("AH", "2S", False),
    ],
)
def test_north_a_two_beats_any_single_and_a_lower_two(play, top, legal):
    assert beats("mien-bac", play, top) is legal


@pytest.mark.parametrize("text", ["10S 10C", "10D 10H", "2S 2C", "2D 2H"])
def test_north_same_colour_pair_is_a_pair(text):
    assert combo("mien-bac", text).kind is ComboKind.PAIR


@pytest.mark.parametrize("text", ["10S 10H", "10C 10D", "AS AD", "2C 2H"])
def test_north_mixed_colour_pair_is_not_a_combination(text):
    with pytest.raises(InvalidComboError):
        classify(text, RULESETS["mien-bac"])


@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("9S 9C", "7S 7C", True),
        ("9D 9H", "7D 7H", True),
        ("9D 9H", "7S 7C", False),  # other colour
        ("9S 9C", "7D 7H", False),
        ("7D 7H", "7S 7C", False),  # same rank, other colour
    ],
)
def test_north_pair_beaten_by_higher_pair_of_same_colour(play, top, legal):
    assert beats("mien-bac", play, top) is legal


@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("2S 2C", "AD AH", True),  # decision: a pair of 2s beats any pair
        ("2D 2H", "5S 5C", True),
        ("2D 2H", "2S 2C", True),  # a higher pair of 2s
        ("2S 2C", "2D 2H", False),
    ],
)
def test_north_pair_of_twos_beats_any_pair(play, top, legal):
    assert beats("mien-bac", play, top) is legal


@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("8S 8D 8H", "7S 7D 7H", True),  # docs/rules.md §1.3 example / seed 001
        ("8S 8C 8H", "7S 7D 7H", False),  # other suits
        ("8C 8D 8H", "7S 7D 7H", False),
        ("6S 6D 6H", "7S 7D 7H", False),
    ],
)
def test_north_triple_beaten_by_higher_triple_of_same_suits(play, top, legal):
    assert beats("mien-bac", play, top) is legal


@pytest.mark.parametrize("text", ["3C 4D 5C", "3S 4S 5H", "8H 9H 10D JH"])
def test_north_straight_must_be_all_one_suit(text):
    with pytest.raises(InvalidComboError):
        classify(text, RULESETS["mien-bac"])


def test_north_one_suit_straight_is_a_straight():
    assert combo("mien-bac", "8H 9H 10H JH").kind is ComboKind.STRAIGHT


@pytest.mark.parametrize(
    "play, top, legal",
    [
        ("4S 5S 6S", "3S 4S 5S", True),
        ("4H 5H 6H", "3S 4S 5S", False),  # other suit
        ("5S 6S 7S 8S", "3S 4S 5S", False),  # other length
        ("JD QD KD", "9D 10D JD", True),
    ],
)
def test_north_straight_beaten_by_higher_straight_of_same_suit_and_length(play, top, legal):
    assert beats("mien-bac", play, top) is legal


@pytest.mark.parametrize("text", ["3S 3C 4S 4C 5S 5C", "3D 3H 4D 4H 5D 5H 6D 6H"])
def test_north_has_no_consecutive_pairs(text):
    with pytest.raises(InvalidComboError):
        classify(text, RULESETS["mien-bac"])


# ------------------------------------------------------------ the game applies its own rules to a Combo
from tienlen import Game, IllegalPlayError  # noqa: E402
from tests.engine.spec_helpers import later_game  # noqa: E402



@pytest.mark.parametrize(
    "cards",
    [
        "3C 4D 5C",  # docs/rules.md §6: straight not one suit
        "3C 3D 4C 4D 5C 5D",  # no consecutive pairs in mien-bac
        "9S 9D",  # mixed-colour pair
    ],
)
def test_north_game_accepts_text_only_if_valid_under_north_rules(cards):
    game = later_game("mien-bac", [cards + " KH", "6S", "6C", "6D"])
    with pytest.raises(IllegalPlayError):
        game.play(0, cards)


@pytest.mark.parametrize("cards", ["3C 4D 5C", "3C 3D 4C 4D 5C 5D", "9S 9D"])
def test_north_game_refuses_a_combo_object_classified_under_south_rules(cards):
    game = later_game("mien-bac", [cards + " KH", "6S", "6C", "6D"])
    south_combo = classify(cards, RULESETS["mien-nam"])
    with pytest.raises(IllegalPlayError):
        game.play(0, south_combo)


def test_every_accepted_play_replays_from_json():
    game = later_game("mien-bac", ["3C 4D 5C KH", "6S", "6C", "6D"])
    try:
        game.play(0, classify("3C 4D 5C", RULESETS["mien-nam"]))
    except IllegalPlayError:
        pass
    replay = Game.from_json(game.to_json())
    assert replay.to_json() == game.to_json()


@pytest.mark.parametrize("preset", ALL)
def test_play_accepts_text_card_list_and_same_rules_combo(preset):
    rules = RULESETS[preset]
    for cards in ("4S", parse_cards("4S"), classify("4S", rules)):
        game = later_game(preset, ["4S 9S", "5S", "6S", "7S"])
        out = game.play(0, cards)
        assert out.combo.cards == parse_cards("4S") and game.top_owner == 0

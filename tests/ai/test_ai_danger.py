"""The danger estimate: could an opponent's whole last hand beat a play?"""

from tienlen.ai.counting import last_hand_beat_chance
from tienlen.cards import as_mask
from tienlen.combos import classify
from tienlen.rules import RULESETS

SOUTH = RULESETS["mien-nam"]
NORTH = RULESETS["mien-bac"]


def test_single_is_the_share_of_higher_cards():
    assert last_hand_beat_chance(as_mask("3S 4S KH 2D"), classify("QS", SOUTH), SOUTH) == 0.5


def test_pair_counts_beating_pairs_among_all_card_pairs():
    pool = as_mask("3S 4S KH KD")
    assert abs(last_hand_beat_chance(pool, classify("QS QH", SOUTH), SOUTH) - 1 / 6) < 1e-9
    assert last_hand_beat_chance(pool, classify("AS AH", SOUTH), SOUTH) == 0.0


def test_northern_pair_must_match_colour():
    pool = as_mask("KS KH 4C 5D")
    assert last_hand_beat_chance(pool, classify("QS QC", NORTH), NORTH) == 0.0


def test_long_combo_is_unlikely_to_be_a_whole_hand_beat():
    pool = as_mask("4S 5S 6S 7S 8S 9S 10S JS QS")
    straight = classify("3H 4H 5H 6H 7H 8H 9H", SOUTH)
    assert 0.0 < last_hand_beat_chance(pool, straight, SOUTH) <= 0.1
    assert last_hand_beat_chance(as_mask("3S 4C"), straight, SOUTH) == 0.0

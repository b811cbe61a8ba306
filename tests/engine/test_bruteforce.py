"""Exhaustive and brute-force checks of classification and legal-play generation
against the naive reference in ``naive.py``."""

from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen import RULESETS, Card, ComboKind, InvalidComboError, classify
from tienlen.cards import mask_of
from tienlen.combos import all_combos, beating_combos

from tests.engine.naive import naive_can_beat, naive_combos, naive_kind

DECK = [Card.from_index(index) for index in range(52)]
KIND_NAMES = {
    ComboKind.SINGLE: "single",
    ComboKind.PAIR: "pair",
    ComboKind.TRIPLE: "triple",
    ComboKind.STRAIGHT: "straight",
    ComboKind.CONSECUTIVE_PAIRS: "pairs",
    ComboKind.FOUR_OF_A_KIND: "quad",
}


def _engine_kind(cards, rules):
    try:
        return KIND_NAMES[classify(mask_of(cards), rules).kind]
    except InvalidComboError:
        return None


@pytest.mark.parametrize("size", [1, 2, 3, 4])
@pytest.mark.parametrize("preset", ["mien-nam", "mien-bac"])
def test_every_small_card_set_classified_like_the_reference(size, preset):
    rules = RULESETS[preset]
    north = rules.follow_suit
    mismatches = []
    for subset in combinations(DECK, size):
        expected = naive_kind(subset, north=north)
        if _engine_kind(subset, rules) != expected:
            mismatches.append(subset)
    assert mismatches == []


def test_iwin_classifies_like_mien_nam():
    for subset in combinations(DECK[:24], 3):
        assert _engine_kind(subset, RULESETS["iwin"]) == _engine_kind(subset, RULESETS["mien-nam"])


hands = st.lists(st.sampled_from(DECK), min_size=1, max_size=11, unique=True)
BRUTE = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("preset", ["mien-nam", "mien-bac"])
@BRUTE
@given(hand=hands)
def test_all_combos_equals_every_valid_subset(preset, hand):
    rules = RULESETS[preset]
    generated = [frozenset(card.index for card in combo.cards) for combo in all_combos(mask_of(hand), rules)]
    assert len(generated) == len(set(generated)), "duplicates generated"
    assert set(generated) == naive_combos(hand, north=rules.follow_suit)


@pytest.mark.parametrize("preset", ["mien-nam", "mien-bac"])
@BRUTE
@given(hand=hands, top_cards=st.lists(st.sampled_from(DECK), min_size=1, max_size=8, unique=True), data=st.data())
def test_beating_combos_equals_every_valid_subset_that_beats(preset, hand, top_cards, data):
    rules = RULESETS[preset]
    north = rules.follow_suit
    top_cards = [card for card in top_cards if card not in hand]
    if not top_cards or naive_kind(top_cards, north=north) is None:
        return
    top = classify(mask_of(top_cards), rules)
    generated = {frozenset(card.index for card in combo.cards) for combo in beating_combos(mask_of(hand), top, rules)}
    expected = {
        subset
        for subset in naive_combos(hand, north=north)
        if naive_can_beat([DECK[i] for i in subset], top_cards, north=north)
    }
    assert generated == expected


def test_beating_combos_against_bomb_tops_exhaustively():
    """Tops that are 2s or bombs, against hands full of bombs (where chop rules bite)."""
    tops = ["2S", "2H", "2S 2C", "2D 2H", "2S 2C 2D", "3S 3C 4S 4C 5S 5C", "9S 9C 9D 9H", "3S 3C 4S 4C 5S 5C 6S 6C"]
    hand_texts = [
        "7S 7C 7D 7H 8S 8C 9S 9C 10D 10H",
        "JS JC QS QC KS KC AS AC",
        "10S 10C 10D 10H JS JC QS QC KD KH 2C",
    ]
    from tienlen import parse_cards

    for preset in ("mien-nam", "mien-bac"):
        rules = RULESETS[preset]
        for top_text in tops:
            top_cards = parse_cards(top_text)
            if naive_kind(top_cards, north=rules.follow_suit) is None:
                continue
            top = classify(top_text, rules)
            for hand_text in hand_texts:
                hand = [card for card in parse_cards(hand_text) if card not in top_cards]
                generated = {frozenset(c.index for c in combo.cards) for combo in beating_combos(mask_of(hand), top, rules)}
                expected = {
                    subset
                    for subset in naive_combos(hand, north=rules.follow_suit)
                    if naive_can_beat([DECK[i] for i in subset], top_cards, north=rules.follow_suit)
                }
                assert generated == expected, (preset, top_text, hand_text)

"""Instant-win detection by rank masks against a plain count-based reading of
docs/rules.md §4, over random and pair-rich hands of every preset."""

import random
from itertools import combinations

import pytest

from tienlen import RULESETS
from tienlen.instant import KIND_ORDER, find_instant_win, instant_win_kind
from tienlen.rules import InstantWinKind


def _plain_kind(rules, hand, first_game):
    counts = [((hand >> (4 * rank)) & 0xF).bit_count() for rank in range(13)]
    quad_pairs = 2 if rules.quad_counts_as_two_pairs else 1
    run = best = 0
    for rank in range(12):
        run = run + 1 if counts[rank] >= 2 else 0
        best = max(best, run)
    tests = {
        InstantWinKind.DRAGON: all(counts[rank] for rank in range(rules.dragon_length)),
        InstantWinKind.SIX_PAIRS: sum(quad_pairs if count == 4 else count // 2 for count in counts) >= 6,
        InstantWinKind.FIVE_CONSECUTIVE_PAIRS: best >= 5,
        InstantWinKind.FOUR_TWOS: counts[12] == 4,
        InstantWinKind.THREE_SPADES_OPENING: first_game and bool(hand & 1)
        and ((counts[0] >= 2 and counts[1] >= 2 and counts[2] >= 2) or counts[0] == 4),
    }
    return next((kind for kind in KIND_ORDER if kind in rules.instant_wins and tests[kind]), None)


def _hands(seed):
    rng = random.Random(seed)
    for _ in range(3000):
        yield sum(1 << card for card in rng.sample(range(52), 13))
    for _ in range(3000):  # pair-rich: two cards of each of 6-7 ranks, then anything
        ranks = rng.sample(range(13), rng.randint(5, 7))
        hand = 0
        for rank in ranks:
            for suit in rng.sample(range(4), rng.choice((2, 2, 3, 4))):
                hand |= 1 << (4 * rank + suit)
        cards = [card for card in range(52) if not hand >> card & 1]
        while hand.bit_count() < 13:
            hand |= 1 << rng.choice(cards)
        while hand.bit_count() > 13:
            hand &= hand - 1
        yield hand


@pytest.mark.parametrize("preset", sorted(RULESETS))
@pytest.mark.parametrize("first_game", [True, False])
def test_instant_win_kind_matches_the_plain_reading(preset, first_game):
    rules = RULESETS[preset]
    for hand in _hands(hash((preset, first_game)) & 0xFFFF):
        expected = _plain_kind(rules, hand, first_game)
        assert instant_win_kind(rules, hand, first_game=first_game) == expected, hand
        found = find_instant_win(rules, [0, hand], first_game=first_game)  # with the cheap pre-check
        assert (found.kind if found else None) == expected, hand


def test_three_fours_of_a_kind_are_six_pairs():
    rules = RULESETS["mien-nam"]
    for ranks in combinations(range(12), 3):
        hand = sum(0xF << (4 * rank) for rank in ranks) | (1 << 51)
        assert instant_win_kind(rules, hand, first_game=False) is not None


def _mask(*cards: str) -> int:
    from tienlen.cards import as_mask

    return as_mask(" ".join(cards))


# Hands at the edge of the deal's cheap pre-check (docs/rules.md §4, tới trắng): each
# qualifies by exactly one kind with as few pairs as that kind allows.
EDGE_HANDS = [
    (InstantWinKind.DRAGON, _mask("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"), 13),
    (InstantWinKind.DRAGON, _mask("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 3H"), 12),  # one pair left over
    (InstantWinKind.DRAGON, _mask("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2H"), 12),  # a 2 left over
    (InstantWinKind.FIVE_CONSECUTIVE_PAIRS, _mask("5S 5H 6S 6H 7S 7H 8S 8H 9S 9H JD KC 2S"), 13),
    (InstantWinKind.SIX_PAIRS, _mask("4S 4H 4D 4C 7S 7H 7D 7C 9S 9H QD QC 2S"), 13),  # two fours, two pairs
    (InstantWinKind.SIX_PAIRS, _mask("3H 3D 6S 6H 8S 8H 10S 10H QS QH AS AH 2S"), 13),
    (InstantWinKind.FOUR_TWOS, _mask("2S 2C 2D 2H 3H 5D 7S 9H JC KD AS 4C 6H"), 13),
]


@pytest.mark.parametrize("kind, hand, dragon_length", EDGE_HANDS)
@pytest.mark.parametrize("preset", ["mien-nam", "iwin"])
def test_the_deal_pre_check_lets_every_instant_win_through(preset, kind, hand, dragon_length):
    from dataclasses import replace

    rules = replace(RULESETS[preset], dragon_length=dragon_length)
    assert hand.bit_count() == 13 and _plain_kind(rules, hand, False) is kind
    found = find_instant_win(rules, [0, hand], first_game=False)
    assert found is not None and found.kind is kind


@pytest.mark.parametrize("hand", [
    _mask("3S 3H 3D 3C 5D 7S 9H JC KD AS 4C 6H 8D"),  # four 3s with 3♠
    _mask("3S 3H 4S 4D 5C 5H 7S 9H JC KD AS 8C 10D"),  # pairs of 3, 4 and 5 with 3♠
])
def test_the_deal_pre_check_lets_the_three_spades_opening_through(hand):
    found = find_instant_win(RULESETS["iwin"], [0, hand], first_game=True)
    assert found is not None and found.kind is InstantWinKind.THREE_SPADES_OPENING

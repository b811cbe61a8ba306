"""Instant-win detection by rank masks against a plain count-based reading of
RULES.md §4, over random and pair-rich hands of every preset."""

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

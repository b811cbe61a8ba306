"""docs/rules.md §4 — instant wins (tới trắng), mien-nam and iwin."""

import random

import pytest

from tienlen import Game, InstantWinKind, RULESETS, mask_of, parse_cards
from tests.engine.spec_helpers import SOUTH, net, new_game, payments, refused

K = InstantWinKind
DRAGON = "3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH 2S"
DRAGON_12 = "3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH 3C"  # 3…A plus a spare 3
FIVE_PAIRS = "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 9D JH KD"
SIX_CONSECUTIVE_PAIRS = "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C 10D"
SIX_PAIRS = "3S 3C 5S 5C 7S 7C 9S 9C JS JC KS KC 2D"
SIX_PAIRS_WITH_TWOS = "3S 3C 5S 5C 7S 7C 9S 9C JS JC 2S 2C AD"
SIX_PAIRS_WITH_TQ = "3S 3C 3D 3H 5S 5C 7S 7C 9S 9C JS JC AD"
FOUR_TWOS = "2S 2C 2D 2H 3S 5C 7D 9H JS KC 4D 6H 8S"
OPENING_PAIRS = "3S 3C 4S 4C 5S 5C 7D 9H JS KC AD 2H 8S"
OPENING_QUAD = "3S 3C 3D 3H 5C 7D 9H JS KC AD 2H 8S 10D"


def _others(hand, players=4):
    """Small non-qualifying hands for the other seats, disjoint from ``hand``."""
    used = mask_of(parse_cards(hand))
    free = [card for card in parse_cards("6D 8D 10S QD KH AC 10C QH 9S JD 8H AS") if not card.mask & used]
    return [" ".join(card.code for card in free[i * 3:(i + 1) * 3]) for i in range(players - 1)]


def _solo(preset, hand, seat=2, players=4, **kwargs):
    others = _others(hand, players)
    hands = others[:seat] + [hand] + others[seat:]
    return new_game(preset, hands, **kwargs)


# ------------------------------------------------------------ each kind
@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "hand, kind",
    [
        (DRAGON, K.DRAGON),
        ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", K.DRAGON),
        (FIVE_PAIRS, K.FIVE_CONSECUTIVE_PAIRS),
        (SIX_CONSECUTIVE_PAIRS, K.SIX_PAIRS),  # a 6ĐT hand reports "6 pairs"
        (SIX_PAIRS, K.SIX_PAIRS),
        (SIX_PAIRS_WITH_TWOS, K.SIX_PAIRS),
        (SIX_PAIRS_WITH_TQ, K.SIX_PAIRS),  # a TQ counts as two pairs
        (FOUR_TWOS, K.FOUR_TWOS),
    ],
)
def test_instant_win_kind_detected_and_game_ends_at_once(preset, hand, kind):
    game = _solo(preset, hand)
    assert game.instant_win is not None
    assert game.instant_win.seat == 2 and game.instant_win.kind is kind
    assert game.finished and game.turn is None
    assert game.places[0] == 2
    assert refused(game, 2, hand.split()[0]) == "game_over"


@pytest.mark.parametrize("preset", SOUTH)
def test_five_consecutive_pairs_are_never_played_they_win_instantly(preset):
    game = _solo(preset, "8S 8C 9S 9C 10S 10C JS JC QS QC 3D 5H 7C", seat=1)
    assert game.instant_win.kind is K.FIVE_CONSECUTIVE_PAIRS
    assert game.legal_plays(1) == []


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "hand",
    [
        "3S 3C 3D 5S 5C 5D 7S 7C 7D 9S 9C JS JC",  # triples count as one pair: 5 pairs
        "3S 3C 5S 5C 7S 7C 9S 9C JS JC KS AD 2H",  # 5 pairs, not consecutive
        "3S 3C 4S 4C 5S 5C 6S 6C 8S 8C 10D QH 2H",  # 4ĐT + one pair
        "3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH AS",  # 3…A only: no 13-card dragon
        "2S 2C 2D 3S 5C 7D 9H JS KC 4D 6H 8S 10C",  # three 2s
    ],
)
def test_non_qualifying_hand_is_no_instant_win(preset, hand):
    game = _solo(preset, hand, first_game=False, previous_winner=2)
    assert game.instant_win is None and not game.finished


@pytest.mark.parametrize("preset", SOUTH)
def test_dragon_12_card_option_counts_3_to_ace(preset):
    assert _solo(preset, DRAGON_12).instant_win is None
    game = _solo(preset, DRAGON_12, options={"dragon_length": 12})
    assert game.instant_win.kind is K.DRAGON


@pytest.mark.parametrize("preset", SOUTH)
def test_dragon_12_card_option_still_counts_a_full_dragon(preset):
    game = _solo(preset, DRAGON, options={"dragon_length": 12})
    assert game.instant_win.kind is K.DRAGON


@pytest.mark.parametrize("preset", SOUTH)
def test_six_pairs_option_tq_counts_as_one_pair(preset):
    game = _solo(preset, SIX_PAIRS_WITH_TQ, options={"quad_counts_as_two_pairs": False},
                 first_game=False, previous_winner=0)  # (iwin: four 3s with 3S in a first game)
    assert game.instant_win is None


@pytest.mark.parametrize("preset", SOUTH)
def test_instant_win_in_a_later_game_too(preset):
    game = _solo(preset, SIX_PAIRS, first_game=False, previous_winner=0)
    assert game.instant_win.kind is K.SIX_PAIRS


# ------------------------------------------------------------ iwin: 3S opening
@pytest.mark.parametrize("hand", [OPENING_PAIRS, OPENING_QUAD])
def test_iwin_first_game_3s_holder_with_345_pairs_or_four_3s_wins(hand):
    game = _solo("iwin", hand)
    assert game.instant_win.kind is K.THREE_SPADES_OPENING and game.instant_win.seat == 2


@pytest.mark.parametrize("hand", [OPENING_PAIRS, OPENING_QUAD])
def test_iwin_3s_opening_only_in_the_first_game(hand):
    game = _solo("iwin", hand, first_game=False, previous_winner=0)
    assert game.instant_win is None and game.turn == 0


@pytest.mark.parametrize("hand", [OPENING_PAIRS, OPENING_QUAD])
def test_mien_nam_has_no_3s_opening_instant_win(hand):
    assert _solo("mien-nam", hand).instant_win is None


def test_iwin_345_pairs_without_3s_is_no_instant_win():
    game = new_game("iwin", ["3C 3D 4S 4C 5S 5C 9H", "3S 10C", "JD QD", "KH AH"])
    assert game.instant_win is None


def test_north_has_no_instant_wins():
    game = _solo("mien-bac", DRAGON)
    assert game.instant_win is None and not game.finished
    assert _solo("mien-bac", FOUR_TWOS).instant_win is None
    assert _solo("mien-bac", SIX_PAIRS).instant_win is None


# ------------------------------------------------------------ several at once
def _pair_game(preset, first_game=True, **seat_hands):
    """Seats given as s0..s3 keyword hands; the rest get small disjoint hands."""
    used = 0
    for hand in seat_hands.values():
        used |= mask_of(parse_cards(hand))
    free = [card for card in parse_cards("10C QD KH AC 9S JD 8H 6D 10D") if not card.mask & used]
    hands = []
    for seat in range(4):
        if f"s{seat}" in seat_hands:
            hands.append(seat_hands[f"s{seat}"])
        else:
            hands.append(free.pop(0).code)
    kwargs = {} if first_game else {"first_game": False, "previous_winner": 0}
    return new_game(preset, hands, **kwargs)


SIX_PAIRS_RED = "3D 3H 5D 5H 7D 7H 9D 9H JD JH KD KH"
FIVE_PAIRS_BLACK = "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C"
DRAGON_SPADES = "3S 4C 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"


@pytest.mark.parametrize(
    "preset, hands, winner, kind",
    [
        # dragon > 6 pairs
        ("mien-nam", {"s1": SIX_PAIRS_RED, "s2": DRAGON_SPADES}, 2, K.DRAGON),
        ("iwin", {"s1": SIX_PAIRS_RED, "s2": DRAGON_SPADES}, 1, K.SIX_PAIRS),
        # 6 pairs > 5ĐT
        ("mien-nam", {"s1": FIVE_PAIRS_BLACK, "s3": SIX_PAIRS_RED}, 3, K.SIX_PAIRS),
        ("iwin", {"s1": FIVE_PAIRS_BLACK, "s3": SIX_PAIRS_RED}, 1, K.FIVE_CONSECUTIVE_PAIRS),
        # 5ĐT > four 2s
        ("mien-nam", {"s1": "2S 2C 2D 2H", "s3": FIVE_PAIRS_BLACK}, 3, K.FIVE_CONSECUTIVE_PAIRS),
        ("iwin", {"s1": "2S 2C 2D 2H", "s3": FIVE_PAIRS_BLACK}, 1, K.FOUR_TWOS),
        # seat 0 (the dealer) is dealt last
        ("mien-nam", {"s0": "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", "s3": "3C 3D 4C 4D 5C 5D 6C 6D 7C 7D"},
         0, K.DRAGON),
        ("iwin", {"s0": "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", "s3": "3C 3D 4C 4D 5C 5D 6C 6D 7C 7D"},
         3, K.FIVE_CONSECUTIVE_PAIRS),
    ],
)
def test_several_instant_winners_mien_nam_by_kind_iwin_by_deal_order(preset, hands, winner, kind):
    game = _pair_game(preset, **hands)
    assert (game.instant_win.seat, game.instant_win.kind) == (winner, kind)


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "seats, winner",
    [((0, 2), 2), ((1, 3), 1), ((3, 0), 3), ((0, 1), 1), ((2, 3), 2)],
)
def test_same_kind_tie_goes_by_dealing_order_seat_1_first_seat_0_last(preset, seats, winner):
    a, b = seats
    game = _pair_game(
        preset,
        **{f"s{a}": "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C", f"s{b}": "3D 3H 4D 4H 5D 5H 6D 6H 7D 7H 8D 8H"},
    )
    assert game.instant_win.seat == winner and game.instant_win.kind is K.SIX_PAIRS


def test_iwin_3s_opening_dealt_earlier_beats_a_dragon_dealt_last():
    game = _pair_game("iwin", s0="3C 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", s3="3S 3D 4D 4H 5D 5H")
    assert (game.instant_win.seat, game.instant_win.kind) == (3, K.THREE_SPADES_OPENING)


def test_mien_nam_3s_holder_with_345_pairs_does_not_compete_dragon_wins():
    game = _pair_game("mien-nam", s0="3C 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", s3="3S 3D 4D 4H 5D 5H")
    assert (game.instant_win.seat, game.instant_win.kind) == (0, K.DRAGON)


@pytest.mark.parametrize("players, first", [(4, [1, 2, 3, 0]), (3, [1, 2, 0]), (2, [1, 0])])
def test_deal_gives_the_first_card_to_seat_1_and_the_dealer_seat_0_last(players, first):
    seed = 12345
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    game = Game.deal(RULESETS["mien-nam"], players, seed)
    dealt = [mask_of(hand) for hand in game.dealt]
    for position, seat in enumerate(first):
        assert dealt[seat] >> deck[position] & 1
    assert [len(hand) for hand in game.dealt] == [13] * players
    assert sum(bin(mask).count("1") for mask in dealt) == 13 * players  # the rest is set aside


# ------------------------------------------------------------ money
@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_other_player_pays_the_instant_winner_2b(preset, players):
    game = _solo(preset, SIX_PAIRS, seat=1, players=players)
    assert game.instant_win.seat == 1
    assert payments(game) == sorted((seat, 1, 2, "instant-win") for seat in range(players) if seat != 1)
    expected = {seat: -2 for seat in range(players)}
    expected[1] = 2 * (players - 1)
    assert net(game) == expected


@pytest.mark.parametrize("preset", SOUTH)
def test_instant_win_has_no_other_payments_even_with_twos_and_bombs_in_other_hands(preset):
    game = new_game(
        preset,
        [
            "4S 4C 4D 4H 2H",  # a TQ and a red 2 (would be cóng / thối money otherwise)
            SIX_PAIRS,
            "6D 6H 7D 7H 8D 8H 2S",  # 3ĐT and a 2
            "QS QC QD QH",
        ],
    )
    assert game.instant_win.seat == 1 and game.instant_win.kind is K.SIX_PAIRS
    assert payments(game) == [(0, 1, 2, "instant-win"), (2, 1, 2, "instant-win"), (3, 1, 2, "instant-win")]
    assert net(game) == {0: -2, 1: 6, 2: -2, 3: -2}


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize(
    "hand",
    [
        "2S 2C 2D 2H 3S 3C 5S 5C 7S 7C 9S 9C JD",  # four 2s (two pairs) + four pairs: "6 pairs" is higher
        "3S 3C 3D 3H 5S 5C 5D 5H 7S 7C 9S 9C JD",  # two TQs count four pairs
    ],
)
def test_six_pairs_counting_each_tq_as_two_pairs_reports_six_pairs(preset, hand):
    game = _solo(preset, hand, first_game=False, previous_winner=0)
    assert game.instant_win.kind is K.SIX_PAIRS

"""Instant wins (tới trắng), checked right after the deal (RULES.md §4).

Each test is a few operations on the hand's rank masks (see
:mod:`tienlen.generate`), so checking a deal costs about a microsecond a hand.

>>> from tienlen.rules import RULESETS
>>> from tienlen.cards import parse_cards, mask_of
>>> hand = mask_of(parse_cards("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"))
>>> instant_win_kind(RULESETS["mien-nam"], hand, first_game=False)
<InstantWinKind.DRAGON: 'dragon'>
>>> instant_win_kind(RULESETS["iwin"], mask_of(parse_cards("3S 3C 4S 4C 5D 5H 9H")), first_game=True)
<InstantWinKind.THREE_SPADES_OPENING: 'three-spades-opening'>
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

from tienlen.generate import NO_TWO_RANKS, RANK_BITS, ranks_present, ranks_with_four, ranks_with_pair
from tienlen.rules import InstantWinKind, InstantWinTieBreak, deal_order

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = ["InstantWin", "instant_win_kind", "find_instant_win", "KIND_ORDER"]

# Highest first: the order in which a hand reports its kind and mien-nam breaks ties.
KIND_ORDER = (
    InstantWinKind.DRAGON,
    InstantWinKind.SIX_PAIRS,
    InstantWinKind.FIVE_CONSECUTIVE_PAIRS,
    InstantWinKind.FOUR_TWOS,
    InstantWinKind.THREE_SPADES_OPENING,
)
_DRAGON_RANKS = {13: RANK_BITS, 12: RANK_BITS & NO_TWO_RANKS}
_THREE_FOUR_FIVE = 0x111  # rank bits of 3, 4 and 5


class InstantWin(NamedTuple):
    seat: int
    kind: InstantWinKind


def instant_win_kind(rules: "RuleSet", hand: int, *, first_game: bool) -> InstantWinKind | None:
    """The highest instant win ``hand`` qualifies for under ``rules``, if any."""
    for kind in KIND_ORDER:
        if kind in rules.instant_wins and _qualifies(kind, rules, hand, first_game):
            return kind
    return None


def _qualifies(kind: InstantWinKind, rules: "RuleSet", hand: int, first_game: bool) -> bool:
    if kind is InstantWinKind.DRAGON:
        dragon = _DRAGON_RANKS[rules.dragon_length]
        return ranks_present(hand) & dragon == dragon
    if kind is InstantWinKind.SIX_PAIRS:
        pairs = ranks_with_pair(hand).bit_count()  # a triple holds one pair
        if rules.quad_counts_as_two_pairs:
            pairs += ranks_with_four(hand).bit_count()
        return pairs >= 6
    if kind is InstantWinKind.FIVE_CONSECUTIVE_PAIRS:
        pairs = ranks_with_pair(hand) & NO_TWO_RANKS  # a run of pairs never contains a 2
        return bool(pairs & (pairs >> 4) & (pairs >> 8) & (pairs >> 12) & (pairs >> 16))
    if kind is InstantWinKind.FOUR_TWOS:
        return hand >> 48 == 0xF
    if kind is InstantWinKind.THREE_SPADES_OPENING:
        pairs_345 = ranks_with_pair(hand) & _THREE_FOUR_FIVE == _THREE_FOUR_FIVE
        return first_game and bool(hand & 1) and (pairs_345 or hand & 0xF == 0xF)
    return False


def _may_qualify(hand: int) -> bool:
    """A cheap necessary condition for every instant win: five pairs or more
    (a four of a kind counting two), twelve ranks, four 2s, or 3♠ with pairs
    of 3, 4 and 5 or all four 3s."""
    pairs = ranks_with_pair(hand)
    return (
        pairs.bit_count() + ranks_with_four(hand).bit_count() >= 5
        or ranks_present(hand).bit_count() >= 12
        or hand >> 48 == 0xF
        or (hand & 1 == 1 and (pairs & _THREE_FOUR_FIVE == _THREE_FOUR_FIVE or hand & 0xF == 0xF))
    )


def find_instant_win(rules: "RuleSet", hands: Sequence[int], *, first_game: bool) -> InstantWin | None:
    """The instant winner of a deal, with ties broken per ``rules``."""
    if not rules.instant_wins:
        return None
    qualifiers = []
    for position, seat in enumerate(deal_order(rules, len(hands))):
        if not _may_qualify(hands[seat]):
            continue
        kind = instant_win_kind(rules, hands[seat], first_game=first_game)
        if kind is not None:
            qualifiers.append((position, seat, kind))
    if not qualifiers:
        return None
    if rules.instant_win_tie_break is InstantWinTieBreak.KIND_THEN_DEAL_ORDER:
        qualifiers.sort(key=lambda item: (KIND_ORDER.index(item[2]), item[0]))
    _, seat, kind = qualifiers[0]
    return InstantWin(seat, kind)

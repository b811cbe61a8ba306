"""Instant wins (tới trắng), checked right after the deal (docs/rules.md §4).

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
    pairs = ranks_with_pair(hand)
    quads = ranks_with_four(hand)
    present = ranks_present(hand)
    for kind in rules._instant_win_order:  # type: ignore[attr-defined]  # enabled kinds, highest first
        if kind is InstantWinKind.DRAGON:
            dragon = _DRAGON_RANKS[rules.dragon_length]
            if present & dragon == dragon:
                return kind
        elif kind is InstantWinKind.SIX_PAIRS:
            # A triple holds one pair; a four of a kind two where the rules say so.
            if pairs.bit_count() + (quads.bit_count() if rules.quad_counts_as_two_pairs else 0) >= 6:
                return kind
        elif kind is InstantWinKind.FIVE_CONSECUTIVE_PAIRS:
            run = pairs & NO_TWO_RANKS  # a run of pairs never contains a 2
            if run & (run >> 4) & (run >> 8) & (run >> 12) & (run >> 16):
                return kind
        elif kind is InstantWinKind.FOUR_TWOS:
            if hand >> 48 == 0xF:
                return kind
        elif kind is InstantWinKind.THREE_SPADES_OPENING:
            if first_game and hand & 1 and (pairs & _THREE_FOUR_FIVE == _THREE_FOUR_FIVE or hand & 0xF == 0xF):
                return kind
    return None


def _may_qualify(hand: int) -> bool:
    """A cheap necessary condition for every instant win of a hand of at most 13
    cards: four 2s; five ranks with pairs in a row, or six pairs (counting a four
    of a kind twice); twelve ranks (then at most one rank holds a pair); 3♠ with
    pairs of 3, 4 and 5 or four 3s.  Most hands hold two to four pairs and fail
    after one count.  The rank masks of :mod:`tienlen.generate` are written out
    here: this runs for every hand dealt."""
    if hand >> 48 == 0xF:
        return True
    b, c, d = hand >> 1, hand >> 2, hand >> 3
    pairs = ((hand & (b | c | d)) | (b & (c | d)) | (c & d)) & RANK_BITS
    count = pairs.bit_count()
    if count <= 1:
        if ((hand | b | c | d) & RANK_BITS).bit_count() >= 12:
            return True
    elif count >= 3:
        if count >= 6:
            return True
        quads = hand & b & c & d & RANK_BITS
        if quads and count + quads.bit_count() >= 6:
            return True
        if count == 5:
            run = pairs & NO_TWO_RANKS
            if run & (run >> 4) & (run >> 8) & (run >> 12) & (run >> 16):
                return True
    return hand & 1 == 1 and (pairs & _THREE_FOUR_FIVE == _THREE_FOUR_FIVE or hand & 0xF == 0xF)


def find_instant_win(rules: "RuleSet", hands: Sequence[int], *, first_game: bool) -> InstantWin | None:
    """The instant winner of a deal, with ties broken per ``rules``."""
    if not rules._instant_win_order:  # type: ignore[attr-defined]
        return None
    for hand in hands:
        if _may_qualify(hand):
            break
    else:
        return None
    qualifiers = []
    for position, seat in enumerate(deal_order(rules, len(hands))):
        kind = instant_win_kind(rules, hands[seat], first_game=first_game)
        if kind is not None:
            qualifiers.append((position, seat, kind))
    if not qualifiers:
        return None
    if rules.instant_win_tie_break is InstantWinTieBreak.KIND_THEN_DEAL_ORDER:
        qualifiers.sort(key=lambda item: (KIND_ORDER.index(item[2]), item[0]))
    _, seat, kind = qualifiers[0]
    return InstantWin(seat, kind)

"""Instant wins (tới trắng), checked right after the deal (RULES.md §4).

>>> from tienlen.rules import RULESETS
>>> from tienlen.cards import parse_cards, mask_of
>>> hand = mask_of(parse_cards("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"))
>>> instant_win_kind(RULESETS["mien-nam"], hand, first_game=False)
<InstantWinKind.DRAGON: 'dragon'>
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

from tienlen.rules import InstantWinKind, InstantWinTieBreak

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


class InstantWin(NamedTuple):
    seat: int
    kind: InstantWinKind


def instant_win_kind(rules: "RuleSet", hand: int, *, first_game: bool) -> InstantWinKind | None:
    """The highest instant win ``hand`` qualifies for under ``rules``, if any."""
    counts = [((hand >> (4 * rank)) & 0xF).bit_count() for rank in range(13)]
    for kind in KIND_ORDER:
        if kind in rules.instant_wins and _qualifies(kind, rules, hand, counts, first_game):
            return kind
    return None


def _qualifies(kind: InstantWinKind, rules: "RuleSet", hand: int, counts: list[int], first_game: bool) -> bool:
    if kind is InstantWinKind.DRAGON:
        return all(counts[rank] for rank in range(rules.dragon_length))
    if kind is InstantWinKind.SIX_PAIRS:
        quad_pairs = 2 if rules.quad_counts_as_two_pairs else 1
        return sum(quad_pairs if count == 4 else count // 2 for count in counts) >= 6
    if kind is InstantWinKind.FIVE_CONSECUTIVE_PAIRS:
        return _longest_pair_run(counts) >= 5
    if kind is InstantWinKind.FOUR_TWOS:
        return counts[12] == 4
    if kind is InstantWinKind.THREE_SPADES_OPENING:
        holds_three_spades = bool(hand & 1)
        pairs_345 = counts[0] >= 2 and counts[1] >= 2 and counts[2] >= 2
        return first_game and holds_three_spades and (pairs_345 or counts[0] == 4)
    return False


def _longest_pair_run(counts: list[int]) -> int:
    best = run = 0
    for rank in range(12):  # a run of pairs never contains a 2
        run = run + 1 if counts[rank] >= 2 else 0
        best = max(best, run)
    return best


def find_instant_win(rules: "RuleSet", hands: Sequence[int], *, first_game: bool) -> InstantWin | None:
    """The instant winner of a deal, with ties broken per ``rules``."""
    if not rules.instant_wins:
        return None
    from tienlen.game import deal_order

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

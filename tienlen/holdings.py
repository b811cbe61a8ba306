"""The chop value of cards still held: 2s and bombs caught in a hand.

Used for cóng (frozen players pay for their 2s and bombs) and thối/úng (the
last player pays for theirs).  Overlapping bombs count once, using the most
valuable split with no card used twice (docs/rules.md §5).

>>> from tienlen.rules import RULESETS
>>> from tienlen.cards import parse_cards, mask_of
>>> south = RULESETS["mien-nam"]
>>> held_value(south, mask_of(parse_cards("3S 3C 4S 4C 5S 5C 2H")))  # 3ĐT (2) + red 2 (2)
4
>>> held_value(south, mask_of(parse_cards("3S 3C 3D 3H 4S 4C 5S 5C")))  # TQ beats 3ĐT
3
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = ["held_value"]


def held_value(rules: "RuleSet", hand: int, *, four_of_a_kind: int | None = None) -> int:
    """Bet units owed for the 2s and bombs in ``hand`` (a card mask).

    ``four_of_a_kind`` overrides the value of a four of a kind (mien-bac's
    thối counts it 2B, not the chop value).
    """
    quad_value = rules.four_of_a_kind_value if four_of_a_kind is None else four_of_a_kind
    counts = tuple(((hand >> (4 * rank)) & 0xF).bit_count() for rank in range(12))
    runs = (rules.three_pairs_value, rules.four_pairs_value) if rules.consecutive_pairs else (0, 0)
    value = _best_split(counts, 0, quad_value, runs)
    twos = hand >> 48
    single_twos = sum(rules.two_value(48 + suit) for suit in range(4) if twos >> suit & 1)
    return value + (max(single_twos, quad_value) if twos == 0xF else single_twos)


@lru_cache(maxsize=4096)
def _best_split(counts: tuple[int, ...], rank: int, quad: int, runs: tuple[int, int]) -> int:
    """Most valuable set of disjoint bombs among ranks ``rank``..A (3 = rank 0)."""
    while rank < 12 and counts[rank] < 2:
        rank += 1
    if rank >= 12:
        return 0
    best = _best_split(counts, rank + 1, quad, runs)
    if counts[rank] == 4:
        best = max(best, quad + _best_split(counts, rank + 1, quad, runs))
    for length, value in ((3, runs[0]), (4, runs[1])):
        if value and rank + length <= 12 and all(counts[rank + i] >= 2 for i in range(length)):
            rest = list(counts)
            for i in range(length):
                rest[rank + i] -= 2
            best = max(best, value + _best_split(tuple(rest), rank, quad, runs))
    return best

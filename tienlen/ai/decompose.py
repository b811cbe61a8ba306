"""Hand decomposition: split a hand into the cheapest set of combinations.

A hand is played out as a sequence of combinations, so the fewer (and the
stronger) they are, the better the hand.  :func:`plan` finds the partition of
a hand into combinations that minimises the sum of :func:`combo_cost`: every
combination costs about one turn, weak ones a little more, 2s and bombs less
(they win rounds and chop).  The normal player leads the costliest part of its
plan and judges a beating play by how much it raises the cost of what is left.

Two exact searches, both memoised depth-first searches on "the lowest card
left must belong to some combination":

* Southern rules (no suit-following): which combinations exist depends only on
  how many cards of each rank a hand holds, so the search runs on rank counts
  and its cache is shared by every hand with the same shape; suits are
  assigned afterwards.
* Northern rules (``follow_suit``): pairs must share a colour and straights a
  suit, so the search runs on the card mask itself.

>>> from tienlen.rules import RULESETS
>>> from tienlen.cards import as_mask
>>> south = RULESETS["mien-nam"]
>>> [str(combo) for combo in plan(as_mask("3S 4D 5C 5H 6S 9C 9D 2H"), south).combos]
['5♥', '3♠ 4♦ 5♣ 6♠', '9♣ 9♦', '2♥']
>>> north = RULESETS["mien-bac"]
>>> [str(combo) for combo in plan(as_mask("3S 4S 5S 5H 9C 9D"), north).combos]
['3♠ 4♠ 5♠', '5♥', '9♣', '9♦']
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from tienlen.ai.counting import make_combo
from tienlen.combos import (
    CONSECUTIVE_PAIRS,
    FOUR_OF_A_KIND,
    PAIR,
    SINGLE,
    STRAIGHT,
    TRIPLE,
    Combo,
    ComboKind,
)

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = ["Plan", "plan", "plan_cost", "combo_cost"]

TWO = 12  # rank of the 2s
ACE = 11


class Plan(NamedTuple):
    """A partition of a hand into combinations, cheapest first is not implied."""

    cost: float
    combos: tuple[Combo, ...]


def combo_cost(kind: ComboKind, rank: int, size: int) -> float:
    """How much a combination weighs on a hand (about one turn; lower is better).

    Low singles are the hardest cards to get rid of; 2s and bombs win rounds
    and chop, so they cost little or less than nothing.

    >>> combo_cost(SINGLE, 0, 1) > combo_cost(PAIR, 0, 2) > combo_cost(SINGLE, 12, 1)
    True
    """
    if kind is SINGLE:
        return 0.15 if rank == TWO else 1.0 - 0.04 * rank
    if kind is PAIR:
        return 0.0 if rank == TWO else 0.9 - 0.04 * rank
    if kind is TRIPLE:
        return -0.1 if rank == TWO else 0.8 - 0.04 * rank
    if kind is STRAIGHT:
        return max(0.2, 0.85 - 0.035 * rank - 0.05 * (size - 3))
    if kind is CONSECUTIVE_PAIRS:
        return -0.1 - 0.3 * (size // 2 - 3)
    return -0.2  # four of a kind


def plan(hand: int, rules: "RuleSet") -> Plan:
    """The cheapest partition of ``hand`` (a card mask) under ``rules``."""
    if rules.follow_suit:
        return _plan_suited(hand)
    return _plan_by_ranks(hand, rules.consecutive_pairs)


def plan_cost(hand: int, rules: "RuleSet") -> float:
    """The cost of :func:`plan` (cheaper to compute: no combinations are built)."""
    if rules.follow_suit:
        return _plan_suited(hand).cost
    return _best_by_counts(_count_key(hand), rules.consecutive_pairs)[0]


# ---------------------------------------------------- southern: rank counts
# A hand's shape is packed 3 bits per rank: bits 3r..3r+2 = cards of rank r.
_SHAPE_KINDS = (SINGLE, PAIR, TRIPLE, FOUR_OF_A_KIND)


def _count_key(hand: int) -> int:
    key = 0
    for rank in range(13):
        key |= ((hand >> (4 * rank)) & 0xF).bit_count() << (3 * rank)
    return key


@lru_cache(maxsize=1 << 18)
def _best_by_counts(key: int, pairs_runs: bool) -> tuple[float, tuple[tuple[ComboKind, int, int], ...]]:
    """Cheapest partition of a shape: (cost, parts); a part is (kind, low rank, ranks)."""
    if not key:
        return 0.0, ()
    low = (((key & -key).bit_length() - 1) // 3)
    count = (key >> (3 * low)) & 7
    unit = 1 << (3 * low)
    best: tuple[float, tuple[tuple[ComboKind, int, int], ...]] | None = None
    # Same-rank groups containing the lowest rank.
    for size in range(1, count + 1):
        kind = _SHAPE_KINDS[size - 1]
        best = _better(best, kind, low, 1, combo_cost(kind, low, size), key - size * unit, pairs_runs)
    # Runs starting at the lowest rank (never reaching the 2s).
    for per_rank, kind, allowed in ((1, STRAIGHT, True), (2, CONSECUTIVE_PAIRS, pairs_runs)):
        if not allowed or count < per_rank:
            continue
        rest = key
        for end in range(low, ACE + 1):
            if (key >> (3 * end)) & 7 < per_rank:
                break
            rest -= per_rank << (3 * end)
            length = end - low + 1
            if length >= 3:
                cost = combo_cost(kind, end, per_rank * length)
                best = _better(best, kind, low, length, cost, rest, pairs_runs)
    assert best is not None
    return best


def _better(best, kind, low, length, cost, rest, pairs_runs):
    rest_cost, rest_parts = _best_by_counts(rest, pairs_runs)
    total = cost + rest_cost
    if best is None or total < best[0] - 1e-9:
        return total, ((kind, low, length),) + rest_parts
    return best


@lru_cache(maxsize=1 << 16)
def _plan_by_ranks(hand: int, pairs_runs: bool) -> Plan:
    cost, parts = _best_by_counts(_count_key(hand), pairs_runs)
    return Plan(cost, _assign_suits(hand, parts))


def _assign_suits(hand: int, parts) -> tuple[Combo, ...]:
    """Turn rank-level parts into combos of actual cards.

    Same-rank groups take the highest suits of their rank (a single or a pair
    is as strong as its top card); runs take what is left.
    """
    free = hand
    groups = []
    for kind, low, length in parts:
        if kind in (STRAIGHT, CONSECUTIVE_PAIRS):
            continue
        size = _SHAPE_KINDS.index(kind) + 1
        mask = _take(free, low, size, highest=True)
        free ^= mask
        groups.append(make_combo(kind, mask))
    runs = []
    for kind, low, length in parts:
        if kind not in (STRAIGHT, CONSECUTIVE_PAIRS):
            continue
        per_rank = 1 if kind is STRAIGHT else 2
        mask = 0
        for rank in range(low, low + length):
            mask |= _take(free, rank, per_rank, highest=False)
        free ^= mask
        runs.append(make_combo(kind, mask))
    return tuple(sorted(groups + runs, key=lambda combo: (combo[2], combo[3])))


def _take(free: int, rank: int, count: int, *, highest: bool) -> int:
    cards = [1 << index for index in range(4 * rank, 4 * rank + 4) if free >> index & 1]
    chosen = cards[-count:] if highest else cards[:count]
    return sum(chosen)


# ------------------------------------------------------- northern: by card
@lru_cache(maxsize=1 << 16)
def _plan_suited(hand: int) -> Plan:
    cost, masks = _best_suited(hand)
    combos = tuple(make_combo(kind, mask) for kind, mask in masks)
    return Plan(cost, tuple(sorted(combos, key=lambda combo: (combo[2], combo[3]))))


@lru_cache(maxsize=1 << 18)
def _best_suited(hand: int) -> tuple[float, tuple[tuple[ComboKind, int], ...]]:
    """Cheapest partition under suit-following: pairs of one colour, one-suit straights."""
    if not hand:
        return 0.0, ()
    low_bit = hand & -hand
    index = low_bit.bit_length() - 1
    rank, suit = index >> 2, index & 3
    options: list[tuple[ComboKind, int]] = [(SINGLE, low_bit)]
    partner = 1 << (4 * rank + (suit ^ 1))
    if hand & partner:
        options.append((PAIR, low_bit | partner))
    others = [1 << i for i in range(index + 1, 4 * rank + 4) if hand >> i & 1]
    for a in range(len(others)):
        for b in range(a + 1, len(others)):
            options.append((TRIPLE, low_bit | others[a] | others[b]))
    if len(others) == 3:
        options.append((FOUR_OF_A_KIND, low_bit | sum(others)))
    run = low_bit
    for step in range(1, ACE - rank + 1):
        card = low_bit << (4 * step)
        if not hand & card:
            break
        run |= card
        if step >= 2:
            options.append((STRAIGHT, run))
    best: tuple[float, tuple[tuple[ComboKind, int], ...]] | None = None
    for kind, mask in options:
        rest_cost, rest_parts = _best_suited(hand ^ mask)
        total = combo_cost(kind, (mask.bit_length() - 1) >> 2, mask.bit_count()) + rest_cost
        if best is None or total < best[0] - 1e-9:
            best = (total, ((kind, mask),) + rest_parts)
    assert best is not None
    return best

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

    Low cards are the hard ones to get rid of; a pair is harder to follow
    with than a single (fewer rounds of pairs are played); 2s and bombs win
    rounds and chop, so they cost nothing or less.  (The constants were tuned
    by arena runs, see ``bench/bench_ai.py``.)

    >>> combo_cost(PAIR, 0, 2) > combo_cost(SINGLE, 0, 1) > combo_cost(SINGLE, 11, 1) > combo_cost(SINGLE, 12, 1)
    True
    """
    if kind is SINGLE:
        return 0.0 if rank == TWO else 0.8 - 0.06 * rank
    if kind is PAIR:
        return 0.0 if rank == TWO else 1.05 - 0.04 * rank
    if kind is TRIPLE:
        return -0.1 if rank == TWO else 0.8 - 0.04 * rank
    if kind is STRAIGHT:
        return max(0.2, 0.9 - 0.035 * rank - 0.05 * (size - 3))
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


# ---------------------------------------------------------------- memo tables
# The searches below are memoised in plain dicts holding only ints, floats and
# tuples of them: CPython's cyclic garbage collector stops tracking such
# tuples, so even large tables cost no collection pauses.  A table that grows
# past its limit is simply cleared.
_MEMO_LIMIT = 200_000
_KINDS = (SINGLE, PAIR, TRIPLE, FOUR_OF_A_KIND, STRAIGHT, CONSECUTIVE_PAIRS)
_STRAIGHT_CODE = _KINDS.index(STRAIGHT)  # codes below it are same-rank groups
_PAIRS_RUN_CODE = _KINDS.index(CONSECUTIVE_PAIRS)


def _remember(table: dict, key: int, value):
    if len(table) >= _MEMO_LIMIT:
        table.clear()
    table[key] = value
    return value


# ---------------------------------------------------- southern: rank counts
# A hand's shape is its cards per rank, one 4-bit field per rank (0..4), which
# a few word-wide bit operations compute from the card mask.  A part of a
# shape's partition is packed as kind code | low rank << 3 | ranks << 7.
_PAIRS_OF_BITS = 0x5555555555555
_NIBBLE_HALVES = 0x3333333333333
_SHAPES: dict[int, tuple[float, tuple[int, ...]]] = {}


def _count_key(hand: int) -> int:
    """Cards per rank, in the nibble of that rank (a parallel bit count)."""
    hand -= (hand >> 1) & _PAIRS_OF_BITS
    return (hand & _NIBBLE_HALVES) + ((hand >> 2) & _NIBBLE_HALVES)


def _best_by_counts(key: int, pairs_runs: bool) -> tuple[float, tuple[int, ...]]:
    """Cheapest partition of a shape: (cost, packed parts)."""
    memo_key = (key << 1) | pairs_runs
    known = _SHAPES.get(memo_key)
    if known is not None:
        return known
    if not key:
        return _remember(_SHAPES, memo_key, (0.0, ()))
    low = ((key & -key).bit_length() - 1) >> 2
    count = (key >> (4 * low)) & 0xF
    unit = 1 << (4 * low)
    best: tuple[float, tuple[int, ...]] | None = None
    # Same-rank groups containing the lowest rank.
    for size in range(1, count + 1):
        kind = _KINDS[size - 1]
        best = _better(best, size - 1, low, 1, combo_cost(kind, low, size), key - size * unit, pairs_runs)
    # Runs starting at the lowest rank (never reaching the 2s).
    for per_rank, code, allowed in ((1, _STRAIGHT_CODE, True), (2, _PAIRS_RUN_CODE, pairs_runs)):
        if not allowed or count < per_rank:
            continue
        rest = key
        for end in range(low, ACE + 1):
            if (key >> (4 * end)) & 0xF < per_rank:
                break
            rest -= per_rank << (4 * end)
            length = end - low + 1
            if length >= 3:
                cost = combo_cost(_KINDS[code], end, per_rank * length)
                best = _better(best, code, low, length, cost, rest, pairs_runs)
    assert best is not None
    return _remember(_SHAPES, memo_key, best)


def _better(best, code, low, length, cost, rest, pairs_runs):
    rest_cost, rest_parts = _best_by_counts(rest, pairs_runs)
    total = cost + rest_cost
    if best is None or total < best[0] - 1e-9:
        return total, (code | (low << 3) | (length << 7),) + rest_parts
    return best


@lru_cache(maxsize=8192)
def _plan_by_ranks(hand: int, pairs_runs: bool) -> Plan:
    cost, parts = _best_by_counts(_count_key(hand), pairs_runs)
    return Plan(cost, _assign_suits(hand, parts))


def _assign_suits(hand: int, parts: tuple[int, ...]) -> tuple[Combo, ...]:
    """Turn rank-level parts into combos of actual cards.

    Same-rank groups take the highest suits of their rank (a single or a pair
    is as strong as its top card); runs take what is left.
    """
    free = hand
    combos = []
    for part in sorted(parts, key=lambda part: (part & 7) >= _STRAIGHT_CODE):  # groups first
        code, low, length = part & 7, (part >> 3) & 15, part >> 7
        if code < _STRAIGHT_CODE:
            mask = _take(free, low, code + 1, highest=True)
        else:
            per_rank = 1 if code == _STRAIGHT_CODE else 2
            mask = 0
            for rank in range(low, low + length):
                mask |= _take(free, rank, per_rank, highest=False)
        free ^= mask
        combos.append(make_combo(_KINDS[code], mask))
    return tuple(sorted(combos, key=lambda combo: (combo[2], combo[3])))


def _take(free: int, rank: int, count: int, *, highest: bool) -> int:
    cards = [1 << index for index in range(4 * rank, 4 * rank + 4) if free >> index & 1]
    chosen = cards[-count:] if highest else cards[:count]
    return sum(chosen)


# ------------------------------------------------------- northern: by card
# A part is packed as kind code | mask << 3.
_SUITED: dict[int, tuple[float, tuple[int, ...]]] = {}


@lru_cache(maxsize=8192)
def _plan_suited(hand: int) -> Plan:
    cost, parts = _best_suited(hand)
    combos = tuple(make_combo(_KINDS[part & 7], part >> 3) for part in parts)
    return Plan(cost, tuple(sorted(combos, key=lambda combo: (combo[2], combo[3]))))


def _best_suited(hand: int) -> tuple[float, tuple[int, ...]]:
    """Cheapest partition under suit-following: pairs of one colour, one-suit straights."""
    known = _SUITED.get(hand)
    if known is not None:
        return known
    if not hand:
        return _remember(_SUITED, hand, (0.0, ()))
    low_bit = hand & -hand
    index = low_bit.bit_length() - 1
    rank, suit = index >> 2, index & 3
    options: list[tuple[int, int]] = [(0, low_bit)]
    partner = 1 << (4 * rank + (suit ^ 1))
    if hand & partner:
        options.append((1, low_bit | partner))
    others = [1 << i for i in range(index + 1, 4 * rank + 4) if hand >> i & 1]
    for a in range(len(others)):
        for b in range(a + 1, len(others)):
            options.append((2, low_bit | others[a] | others[b]))
    if len(others) == 3:
        options.append((3, low_bit | sum(others)))
    run = low_bit
    for step in range(1, ACE - rank + 1):
        card = low_bit << (4 * step)
        if not hand & card:
            break
        run |= card
        if step >= 2:
            options.append((4, run))
    best: tuple[float, tuple[int, ...]] | None = None
    for code, mask in options:
        rest_cost, rest_parts = _best_suited(hand ^ mask)
        total = combo_cost(_KINDS[code], (mask.bit_length() - 1) >> 2, mask.bit_count()) + rest_cost
        if best is None or total < best[0] - 1e-9:
            best = (total, (code | (mask << 3),) + rest_parts)
    assert best is not None
    return _remember(_SUITED, hand, best)

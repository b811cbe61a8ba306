"""Combinations: classify a set of cards; the generators of every combination.

A :class:`Combo` is a small immutable value (kind, card mask, top card, size),
defined in :mod:`tienlen.values`; generation lives in :mod:`tienlen.generate`.
Both are re-exported here, the module callers have always imported them from.

>>> from tienlen.rules import RULESETS
>>> south = RULESETS["mien-nam"]
>>> classify("3S 4H 5C", south)
Combo(STRAIGHT, '3S 4H 5C')
>>> classify("9S 9C 10S 10D JH JC", south).bomb
<Bomb.THREE_PAIRS: '3-consecutive-pairs'>
>>> classify("3C 4D 5C", RULESETS["mien-bac"])
Traceback (most recent call last):
...
tienlen.errors.InvalidComboError: a straight must be all one suit
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from tienlen.cards import Card, as_mask
from tienlen.errors import InvalidComboError
from tienlen.generate import (
    SINGLES,
    SUIT_LINES,
    all_combos,
    beating_combos,
    bombs_beating,
    ranks_present,
    ranks_with_three,
)
from tienlen.values import (
    CONSECUTIVE_PAIRS,
    FOUR_OF_A_KIND,
    PAIR,
    SINGLE,
    STRAIGHT,
    TRIPLE,
    TWOS_MASK,
    Combo,
    ComboKind,
)

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = ["ComboKind", "Combo", "classify", "all_combos", "beating_combos", "bombs_beating"]

_new = tuple.__new__
# _RUNS[n]: rank bits of n consecutive ranks starting at 3 (bit 4r per rank).
_RUNS = tuple(sum(1 << (4 * rank) for rank in range(length)) for length in range(14))


# ---------------------------------------------------------------- classification
def classify(cards: "Sequence[Card] | str | int", rules: "RuleSet") -> Combo:
    """The combination formed by ``cards`` under ``rules``.

    Raises :class:`InvalidComboError` (with a readable reason and a ``code``)
    when the cards form no combination.

    >>> from tienlen.rules import RULESETS
    >>> classify("2S 2H", RULESETS["mien-nam"]).kind
    <ComboKind.PAIR: 'pair'>
    >>> classify("KS AS 2S", RULESETS["mien-nam"])
    Traceback (most recent call last):
    ...
    tienlen.errors.InvalidComboError: a straight cannot contain a 2
    """
    mask = cards if type(cards) is int else as_mask(cards)
    size = mask.bit_count()
    if size == 0:
        raise InvalidComboError("no cards given", code="empty")
    if mask >> 52:
        raise InvalidComboError("not a card", code="not_a_card")
    top = mask.bit_length() - 1
    if size == 1:
        return SINGLES[top]
    low_rank = ((mask & -mask).bit_length() - 1) >> 2
    if low_rank == top >> 2:
        return _same_rank_combo(mask, size, top, rules)
    present = ranks_present(mask)
    ranks = present.bit_count()
    if ranks == size:
        return _straight(mask, size, top, present >> (4 * low_rank) == _RUNS[ranks], rules)
    if size >= 6 and size == 2 * ranks and not ranks_with_three(mask):
        return _consecutive_pairs(mask, size, top, present >> (4 * low_rank) == _RUNS[ranks], rules)
    raise InvalidComboError("these cards do not form a combination", code="not_a_combo")


def _same_rank_combo(mask: int, size: int, top: int, rules: "RuleSet") -> Combo:
    if size == 2:
        if rules.follow_suit and (mask >> (top & ~3)) not in (0b0011, 0b1100):
            raise InvalidComboError("a pair must be of one colour (♠♣ or ♦♥)", code="pair_colour")
        return _new(Combo, (PAIR, mask, top, 2))
    if size == 3:
        return _new(Combo, (TRIPLE, mask, top, 3))
    return _new(Combo, (FOUR_OF_A_KIND, mask, top, 4))


def _straight(mask: int, size: int, top: int, is_run: bool, rules: "RuleSet") -> Combo:
    if size < 3 or not is_run:
        raise InvalidComboError("these cards do not form a combination", code="not_a_combo")
    if mask & TWOS_MASK:
        raise InvalidComboError("a straight cannot contain a 2", code="straight_with_two")
    if rules.follow_suit and mask & SUIT_LINES[top & 3] != mask:
        raise InvalidComboError("a straight must be all one suit", code="straight_suit")
    return _new(Combo, (STRAIGHT, mask, top, size))


def _consecutive_pairs(mask: int, size: int, top: int, is_run: bool, rules: "RuleSet") -> Combo:
    if not is_run:
        raise InvalidComboError("these cards do not form a combination", code="not_a_combo")
    if mask & TWOS_MASK:
        raise InvalidComboError("consecutive pairs cannot contain a 2", code="pairs_with_two")
    if not rules.consecutive_pairs:
        raise InvalidComboError("consecutive pairs are not played under these rules", code="no_pairs_run")
    return _new(Combo, (CONSECUTIVE_PAIRS, mask, top, size))

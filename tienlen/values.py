"""The small immutable values every other module shares: combination kinds,
bombs, chop targets and :class:`Combo` itself.

This module depends only on :mod:`tienlen.cards`, so :mod:`tienlen.rules`,
:mod:`tienlen.combos` and the generator can all use it without importing one
another.  A :class:`Combo` is a 4-tuple ``(kind, mask, top, size)``; the
engine reads its fields by position on hot paths, everyone else by name.

>>> combo = Combo.of(ComboKind.PAIR, 0b0011 << 48)
>>> combo
Combo(PAIR, '2S 2C')
>>> combo.kind, combo.size, combo.top_card, combo.chop_target
(<ComboKind.PAIR: 'pair'>, 2, Card('2C'), <ChopTarget.PAIR_OF_TWOS: 'pair-of-twos'>)
"""

from __future__ import annotations

from enum import Enum

from tienlen.cards import Card, cards_of, format_cards

__all__ = [
    "ComboKind", "Combo", "Bomb", "ChopTarget",
    "SINGLE", "PAIR", "TRIPLE", "STRAIGHT", "CONSECUTIVE_PAIRS", "FOUR_OF_A_KIND", "TWOS_MASK",
    "bomb_code", "target_code", "BOMBS_BY_CODE", "TARGETS_BY_CODE",
]


class ComboKind(Enum):
    SINGLE = "single"  # rác, lẻ
    PAIR = "pair"  # đôi
    TRIPLE = "triple"  # ba, tam cô
    STRAIGHT = "straight"  # sảnh
    CONSECUTIVE_PAIRS = "consecutive-pairs"  # đôi thông
    FOUR_OF_A_KIND = "four-of-a-kind"  # tứ quý


class Bomb(str, Enum):
    """Bombs (hàng), the combinations that chop."""

    THREE_PAIRS = "3-consecutive-pairs"  # 3 đôi thông
    FOUR_OF_A_KIND = "four-of-a-kind"  # tứ quý
    FOUR_PAIRS = "4-consecutive-pairs"  # 4 đôi thông (or longer)


class ChopTarget(str, Enum):
    """What a bomb may land on (the left column of docs/rules.md §2)."""

    SINGLE_TWO = "single-two"
    PAIR_OF_TWOS = "pair-of-twos"
    THREE_TWOS = "three-twos"
    THREE_PAIRS = "3-consecutive-pairs"
    FOUR_OF_A_KIND = "four-of-a-kind"
    FOUR_PAIRS = "4-consecutive-pairs"


SINGLE = ComboKind.SINGLE
PAIR = ComboKind.PAIR
TRIPLE = ComboKind.TRIPLE
STRAIGHT = ComboKind.STRAIGHT
CONSECUTIVE_PAIRS = ComboKind.CONSECUTIVE_PAIRS
FOUR_OF_A_KIND = ComboKind.FOUR_OF_A_KIND

TWOS_MASK = 0xF << 48

# Small integer codes for bombs and chop targets (0 = none), so that "may this
# bomb land on that target" is one bit of an integer (see RuleSet.chop_bits).
BOMBS_BY_CODE = (None, Bomb.THREE_PAIRS, Bomb.FOUR_OF_A_KIND, Bomb.FOUR_PAIRS)
TARGETS_BY_CODE = (
    None,
    ChopTarget.SINGLE_TWO,
    ChopTarget.PAIR_OF_TWOS,
    ChopTarget.THREE_TWOS,
    ChopTarget.THREE_PAIRS,
    ChopTarget.FOUR_OF_A_KIND,
    ChopTarget.FOUR_PAIRS,
)
BOMB_CODES = {bomb: code for code, bomb in enumerate(BOMBS_BY_CODE) if bomb is not None}
TARGET_CODES = {target: code for code, target in enumerate(TARGETS_BY_CODE) if target is not None}


def bomb_code(combo: "Combo") -> int:
    """1 = 3 đôi thông, 2 = four of a kind, 3 = 4+ đôi thông, 0 = not a bomb."""
    kind = combo[0]
    if kind is FOUR_OF_A_KIND:
        return 2
    if kind is CONSECUTIVE_PAIRS:
        return 1 if combo[3] == 6 else 3
    return 0


def target_code(combo: "Combo") -> int:
    """Index of ``combo``'s chop target in :data:`TARGETS_BY_CODE` (0 = none)."""
    kind = combo[0]
    if combo[2] >= 48:
        if kind is SINGLE:
            return 1
        if kind is PAIR:
            return 2
        if kind is TRIPLE:
            return 3
    if kind is FOUR_OF_A_KIND:
        return 5
    if kind is CONSECUTIVE_PAIRS:
        return 4 if combo[3] == 6 else 6
    return 0


class Combo(tuple):
    """A valid combination: ``(kind, mask, top, size)``.

    ``top`` is the index of its highest card, which is all that same-kind
    comparisons need; ``mask`` holds its cards.  Build one with
    :func:`tienlen.combos.classify` (which checks the cards) or take it from
    the legal plays.

    >>> from tienlen.cards import as_mask
    >>> Combo.of(ComboKind.STRAIGHT, as_mask("3S 4H 5C")).top_card
    Card('5C')
    """

    __slots__ = ()

    @classmethod
    def of(cls, kind: ComboKind, mask: int) -> "Combo":
        """The combo of ``kind`` made of ``mask``'s cards, without any check."""
        return tuple.__new__(cls, (kind, mask, mask.bit_length() - 1, mask.bit_count()))

    @property
    def kind(self) -> ComboKind:
        return self[0]

    @property
    def mask(self) -> int:
        return self[1]

    @property
    def top(self) -> int:
        return self[2]

    @property
    def size(self) -> int:
        return self[3]

    @property
    def cards(self) -> list[Card]:
        """The cards, lowest first."""
        return cards_of(self[1])

    @property
    def top_card(self) -> Card:
        return Card.from_index(self[2])

    @property
    def rank(self) -> int:
        """Rank of the highest card (0 = 3 … 12 = 2)."""
        return self[2] >> 2

    @property
    def pairs(self) -> int:
        """Number of pairs of a run of consecutive pairs (0 for other kinds)."""
        return self[3] // 2 if self[0] is CONSECUTIVE_PAIRS else 0

    @property
    def bomb(self) -> Bomb | None:
        """Which bomb (hàng) this is, if any."""
        return BOMBS_BY_CODE[bomb_code(self)]

    @property
    def chop_target(self) -> ChopTarget | None:
        """What kind of chop target this is when on top (a 2, 2s or a bomb)."""
        return TARGETS_BY_CODE[target_code(self)]

    @property
    def has_two(self) -> bool:
        return bool(self[1] & TWOS_MASK)

    def __repr__(self) -> str:
        return f"Combo({self[0].name}, '{format_cards(cards_of(self[1]), ascii=True)}')"

    def __str__(self) -> str:
        return format_cards(cards_of(self[1]))

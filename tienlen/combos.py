"""Combinations: classify a set of cards, and generate every combination in a hand.

A :class:`Combo` is a small immutable value (kind, card mask, top card, size).
Generation works on 52-bit masks, one 4-bit nibble per rank, with precomputed
nibble subsets, so listing every legal play stays in the microseconds.

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

from enum import Enum
from typing import TYPE_CHECKING, Iterator, Sequence

from tienlen.cards import Card, as_mask, cards_of, format_cards
from tienlen.errors import InvalidComboError
from tienlen.rules import Bomb, ChopTarget

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = ["ComboKind", "Combo", "classify", "all_combos", "beating_combos", "bombs_beating"]


class ComboKind(Enum):
    SINGLE = "single"  # rác, lẻ
    PAIR = "pair"  # đôi
    TRIPLE = "triple"  # ba, tam cô
    STRAIGHT = "straight"  # sảnh
    CONSECUTIVE_PAIRS = "consecutive-pairs"  # đôi thông
    FOUR_OF_A_KIND = "four-of-a-kind"  # tứ quý


SINGLE = ComboKind.SINGLE
PAIR = ComboKind.PAIR
TRIPLE = ComboKind.TRIPLE
STRAIGHT = ComboKind.STRAIGHT
CONSECUTIVE_PAIRS = ComboKind.CONSECUTIVE_PAIRS
FOUR_OF_A_KIND = ComboKind.FOUR_OF_A_KIND

TWOS_MASK = 0xF << 48
_NIBBLE = 0xF


class Combo(tuple):
    """A valid combination: ``(kind, mask, top, size)``.

    ``top`` is the index of its highest card, which is all that same-kind
    comparisons need; ``mask`` holds its cards.  Build one with :func:`classify`.
    """

    __slots__ = ()

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
        kind = self[0]
        if kind is FOUR_OF_A_KIND:
            return Bomb.FOUR_OF_A_KIND
        if kind is CONSECUTIVE_PAIRS:
            return Bomb.THREE_PAIRS if self[3] == 6 else Bomb.FOUR_PAIRS
        return None

    @property
    def chop_target(self) -> ChopTarget | None:
        """What kind of chop target this is when on top (a 2, 2s or a bomb)."""
        kind = self[0]
        if kind is FOUR_OF_A_KIND:
            return ChopTarget.FOUR_OF_A_KIND
        if kind is CONSECUTIVE_PAIRS:
            return ChopTarget.THREE_PAIRS if self[3] == 6 else ChopTarget.FOUR_PAIRS
        if self[2] >= 48:
            if kind is SINGLE:
                return ChopTarget.SINGLE_TWO
            if kind is PAIR:
                return ChopTarget.PAIR_OF_TWOS
            if kind is TRIPLE:
                return ChopTarget.THREE_TWOS
        return None

    @property
    def has_two(self) -> bool:
        return bool(self[1] & TWOS_MASK)

    def __repr__(self) -> str:
        return f"Combo({self[0].name}, '{format_cards(cards_of(self[1]), ascii=True)}')"

    def __str__(self) -> str:
        return format_cards(cards_of(self[1]))


def _combo(kind: ComboKind, mask: int, size: int) -> Combo:
    return tuple.__new__(Combo, (kind, mask, mask.bit_length() - 1, size))


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
    mask = as_mask(cards)
    size = mask.bit_count()
    if size == 0:
        raise InvalidComboError("no cards given", code="empty")
    if mask >> 52:
        raise InvalidComboError("not a card", code="not_a_card")
    counts = _rank_counts(mask)
    ranks = sorted(counts)
    if len(ranks) == 1:
        return _same_rank_combo(mask, size, rules)
    if all(count == 1 for count in counts.values()):
        return _straight(mask, ranks, rules)
    if size >= 6 and all(count == 2 for count in counts.values()):
        return _consecutive_pairs(mask, ranks, rules)
    raise InvalidComboError("these cards do not form a combination", code="not_a_combo")


def _rank_counts(mask: int) -> dict[int, int]:
    counts: dict[int, int] = {}
    rank = 0
    while mask:
        nibble = mask & _NIBBLE
        if nibble:
            counts[rank] = nibble.bit_count()
        mask >>= 4
        rank += 1
    return counts


def _same_rank_combo(mask: int, size: int, rules: "RuleSet") -> Combo:
    if size == 1:
        return _combo(SINGLE, mask, 1)
    if size == 2:
        if rules.follow_suit and not _same_colour(mask):
            raise InvalidComboError("a pair must be of one colour (♠♣ or ♦♥)", code="pair_colour")
        return _combo(PAIR, mask, 2)
    if size == 3:
        return _combo(TRIPLE, mask, 3)
    return _combo(FOUR_OF_A_KIND, mask, 4)


def _same_colour(pair_mask: int) -> bool:
    nibble = pair_mask >> ((pair_mask.bit_length() - 1) & ~3)
    return nibble in (0b0011, 0b1100)


def _is_run(ranks: list[int]) -> bool:
    return ranks[-1] - ranks[0] == len(ranks) - 1


def _straight(mask: int, ranks: list[int], rules: "RuleSet") -> Combo:
    if len(ranks) < 3 or not _is_run(ranks):
        raise InvalidComboError("these cards do not form a combination", code="not_a_combo")
    if ranks[-1] == 12:
        raise InvalidComboError("a straight cannot contain a 2", code="straight_with_two")
    if rules.follow_suit and len({card.suit for card in cards_of(mask)}) != 1:
        raise InvalidComboError("a straight must be all one suit", code="straight_suit")
    return _combo(STRAIGHT, mask, len(ranks))


def _consecutive_pairs(mask: int, ranks: list[int], rules: "RuleSet") -> Combo:
    if not _is_run(ranks):
        raise InvalidComboError("these cards do not form a combination", code="not_a_combo")
    if ranks[-1] == 12:
        raise InvalidComboError("consecutive pairs cannot contain a 2", code="pairs_with_two")
    if not rules.consecutive_pairs:
        raise InvalidComboError("consecutive pairs are not played under these rules", code="no_pairs_run")
    return _combo(CONSECUTIVE_PAIRS, mask, 2 * len(ranks))


# -------------------------------------------------------------------- generation
# Bit tricks over the 52-bit mask: bit 4*r of these "rank masks" says something
# about rank r, so a whole hand is inspected with a handful of integer operations.
_RANK_BITS = sum(1 << (4 * rank) for rank in range(13))
_NO_TWO_RANKS = sum(1 << (4 * rank) for rank in range(12))


def _ranks_present(hand: int) -> int:
    """Bit 4r set when rank r holds at least one card."""
    folded = hand | (hand >> 1)
    return (folded | (folded >> 2)) & _RANK_BITS


def _ranks_with_pair(hand: int) -> int:
    """Bit 4r set when rank r holds at least two cards."""
    b, c, d = hand >> 1, hand >> 2, hand >> 3
    return ((hand & (b | c | d)) | (b & (c | d)) | (c & d)) & _RANK_BITS


def _window_starts(ranks: int, length: int) -> int:
    """Bit 4s set when ranks s..s+length-1 are all in ``ranks`` (never reaching the 2s)."""
    ranks &= _NO_TWO_RANKS
    window = ranks
    for step in range(1, length):
        window &= ranks >> (4 * step)
    return window


def _subsets(nibble: int, size: int) -> list[int]:
    subs = [sub for sub in range(1, 16) if sub & nibble == sub and sub.bit_count() == size]
    return sorted(subs, key=lambda sub: (sub.bit_length(), sub))


def _make(kind: ComboKind, mask: int) -> Combo:
    return tuple.__new__(Combo, (kind, mask, mask.bit_length() - 1, mask.bit_count()))


def _same_rank_table(kind: ComboKind, size: int, keep=lambda sub: True) -> list[list[tuple[Combo, ...]]]:
    """table[rank][nibble]: the combos of ``kind`` inside that rank, lowest first."""
    return [
        [tuple(_make(kind, sub << (4 * rank)) for sub in _subsets(nibble, size) if keep(sub)) for nibble in range(16)]
        for rank in range(13)
    ]


_SINGLE_TABLE = _same_rank_table(SINGLE, 1)
_PAIR_TABLE = _same_rank_table(PAIR, 2)
_PAIR_SAME_COLOUR_TABLE = _same_rank_table(PAIR, 2, keep=lambda sub: sub in (0b0011, 0b1100))
_TRIPLE_TABLE = _same_rank_table(TRIPLE, 3)
_QUAD_TABLE = _same_rank_table(FOUR_OF_A_KIND, 4)
_SINGLES = tuple(_make(SINGLE, 1 << index) for index in range(52))
# Per rank and nibble: the shifted single-card / pair choices used to build runs.
_RUN_SINGLES = [[[sub << (4 * rank) for sub in _subsets(nibble, 1)] for nibble in range(16)] for rank in range(13)]
_RUN_PAIRS = [[[sub << (4 * rank) for sub in _subsets(nibble, 2)] for nibble in range(16)] for rank in range(13)]
_SUIT_LINES = tuple(_RANK_BITS << suit for suit in range(4))


def _rank_table(kind: ComboKind, rules: "RuleSet") -> list[list[tuple[Combo, ...]]]:
    if kind is SINGLE:
        return _SINGLE_TABLE
    if kind is PAIR:
        return _PAIR_SAME_COLOUR_TABLE if rules.follow_suit else _PAIR_TABLE
    if kind is TRIPLE:
        return _TRIPLE_TABLE
    return _QUAD_TABLE


def _same_rank_above(hand: int, table: list[list[tuple[Combo, ...]]], min_top: int) -> list[Combo]:
    """Combos from ``table`` in ``hand`` whose top card is above ``min_top``."""
    out: list[Combo] = []
    first = (min_top + 1) >> 2
    shifted = hand >> (4 * first)
    rank = first
    partial = (min_top + 1) & 3  # the first rank may hold cards at or below min_top
    while shifted:
        nibble = shifted & 0xF
        if nibble:
            combos = table[rank][nibble]
            if partial and rank == first:
                out += [combo for combo in combos if combo[2] > min_top]
            else:
                out += combos
        shifted >>= 4
        rank += 1
    return out


def _singles_above(hand: int, min_top: int) -> list[Combo]:
    above = hand >> (min_top + 1) << (min_top + 1)
    out = []
    while above:
        low = above & -above
        out.append(_SINGLES[low.bit_length() - 1])
        above ^= low
    return out


def _run_masks(hand: int, start: int, end: int, choices: list[list[list[int]]]) -> list[int]:
    """Every mask taking one choice per rank from ``start`` to ``end``."""
    masks = [0]
    for rank in range(start, end + 1):
        options = choices[rank][(hand >> (4 * rank)) & 0xF]
        if len(options) == 1:
            option = options[0]
            masks = [mask | option for mask in masks]
        else:
            masks = [mask | option for mask in masks for option in options]
    return masks


def _windows(ranks: int, lengths: "range | tuple[int, ...]", min_top: int) -> Iterator[tuple[int, int, int]]:
    """(start, end, length) of every run of ``lengths`` consecutive ranks in the
    rank mask ``ranks`` whose highest rank could still top ``min_top``."""
    for length in lengths:
        starts = _window_starts(ranks, length)
        if not starts:
            return  # no run this long, so none longer either
        while starts:
            low = starts & -starts
            starts ^= low
            start = (low.bit_length() - 1) >> 2
            end = start + length - 1
            if 4 * end + 3 > min_top:
                yield start, end, length


def _straights(hand: int, rules: "RuleSet", length: int | None, min_top: int) -> list[Combo]:
    """Straights (of ``length`` cards if given) whose top card is above ``min_top``."""
    out: list[Combo] = []
    new = tuple.__new__
    lengths = range(3, 13) if length is None else (length,)
    for start, end, size in _windows(_ranks_present(hand), lengths, min_top):
        if rules.follow_suit:
            masks = _one_suit_runs(hand, start, end)
        else:
            masks = _run_masks(hand, start, end, _RUN_SINGLES)
        for mask in masks:
            top = mask.bit_length() - 1
            if top > min_top:
                out.append(new(Combo, (STRAIGHT, mask, top, size)))
    return out


def _one_suit_runs(hand: int, start: int, end: int) -> list[int]:
    window = sum(0xF << (4 * rank) for rank in range(start, end + 1))
    masks = []
    for line in _SUIT_LINES:
        run = line & window
        if hand & run == run:
            masks.append(run)
    return masks


def _pair_runs(hand: int, pairs: int | None, min_top: int, min_pairs: int = 3) -> list[Combo]:
    """Consecutive pairs (of ``pairs`` pairs if given) whose top is above ``min_top``."""
    out: list[Combo] = []
    new = tuple.__new__
    counts = range(min_pairs, 13) if pairs is None else (pairs,)
    for start, end, count in _windows(_ranks_with_pair(hand), counts, min_top):
        for mask in _run_masks(hand, start, end, _RUN_PAIRS):
            top = mask.bit_length() - 1
            if top > min_top:
                out.append(new(Combo, (CONSECUTIVE_PAIRS, mask, top, 2 * count)))
    return out


def all_combos(hand: int, rules: "RuleSet") -> list[Combo]:
    """Every combination that can be formed from ``hand`` (a card mask).

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.cards import parse_cards, mask_of
    >>> [str(c) for c in all_combos(mask_of(parse_cards("3S 3H 4D")), RULESETS["mien-nam"])]
    ['3♠', '3♥', '3♠ 3♥', '4♦']
    """
    pair_table = _PAIR_SAME_COLOUR_TABLE if rules.follow_suit else _PAIR_TABLE
    out: list[Combo] = []
    shifted = hand
    rank = 0
    while shifted:
        nibble = shifted & 0xF
        if nibble:
            out += _SINGLE_TABLE[rank][nibble]
            if nibble & (nibble - 1):
                out += pair_table[rank][nibble]
                out += _TRIPLE_TABLE[rank][nibble]
                out += _QUAD_TABLE[rank][nibble]
        shifted >>= 4
        rank += 1
    out += _straights(hand, rules, None, -1)
    if rules.consecutive_pairs:
        out += _pair_runs(hand, None, -1)
    return out


def beating_combos(hand: int, top: Combo, rules: "RuleSet") -> list[Combo]:
    """Every combination in ``hand`` that may be played on ``top``."""
    kind = top[0]
    follow_suit = rules.follow_suit
    if kind is SINGLE:
        candidates = hand
        if follow_suit:
            candidates &= _SUIT_LINES[top[2] & 3] | (TWOS_MASK if rules.twos_beat_any_suit else 0)
            follow_suit = False  # the mask above already follows suit
        out = _singles_above(candidates, top[2])
    elif kind is STRAIGHT:
        out = _straights(hand, rules, top[3], top[2])
    elif kind is CONSECUTIVE_PAIRS:
        out = _pair_runs(hand, top[3] // 2, top[2])
    else:
        out = _same_rank_above(hand, _rank_table(kind, rules), top[2])
    if follow_suit and out and kind is not FOUR_OF_A_KIND:
        out = [combo for combo in out if rules.can_beat(combo, top)]
    if top[2] >= 48 or kind is FOUR_OF_A_KIND or kind is CONSECUTIVE_PAIRS:
        out += bombs_beating(hand, top, rules, same_kind=False)
    return out


def bombs_beating(
    hand: int,
    top: Combo,
    rules: "RuleSet",
    *,
    only: Bomb | None = None,
    same_kind: bool = True,
) -> list[Combo]:
    """Bombs in ``hand`` that chop ``top``; ``only`` restricts to one bomb class.

    With ``same_kind=False`` bombs of ``top``'s own kind and size are left out
    (the caller has listed them already as ordinary beating plays).
    """
    target = top.chop_target
    if target is None or hand.bit_count() < 4:
        return []
    out: list[Combo] = []
    for bomb in (Bomb.THREE_PAIRS, Bomb.FOUR_OF_A_KIND, Bomb.FOUR_PAIRS):
        if (only is not None and bomb is not only) or (target, bomb) not in rules.chops:
            continue
        if bomb is Bomb.FOUR_OF_A_KIND:
            candidates = _same_rank_above(hand, _QUAD_TABLE, -1)
        elif not rules.consecutive_pairs:
            continue
        elif bomb is Bomb.THREE_PAIRS:
            candidates = _pair_runs(hand, 3, -1)
        else:
            candidates = _pair_runs(hand, None, -1, min_pairs=4)
        for combo in candidates:
            if not same_kind and combo[0] is top[0] and combo[3] == top[3]:
                continue
            if rules.can_beat(combo, top):
                out.append(combo)
    return out

"""Legal-play generation from card masks, one routine per kind of play on top.

A hand is a 52-bit mask, one 4-bit nibble per rank (bit ``4 * rank + suit``).
Everything here is integer work over that mask plus precomputed tables:

* rank masks (bit ``4r`` says something about rank ``r``): ranks holding at
  least one, two, three or four cards, each a handful of shifts and ANDs;
* runs (straights, consecutive pairs) are the bits surviving ``length - 1``
  shifted ANDs of such a rank mask, so a hand without a run costs two
  operations, and the suit choices of a run are expanded once per start,
  each length extending the one before;
* ready-made :class:`~tienlen.values.Combo` values for every single card and
  every same-rank combination, in tables indexed by a byte of the hand (two
  ranks), so listing them is a few lookups and tuple concatenations;
* beating a single is a mask of the cards above it (and of its suit, when
  suits must be followed).

The plays come out in a fixed order (same-rank combinations rank by rank,
then straights by length and start, then runs of pairs), the order the
engine has always used.

>>> from tienlen.rules import RULESETS
>>> from tienlen.cards import as_mask
>>> from tienlen.combos import classify
>>> south = RULESETS["mien-nam"]
>>> [str(combo) for combo in all_combos(as_mask("3S 3H 4D 5C"), south)]
['3♠', '3♥', '3♠ 3♥', '4♦', '5♣', '3♠ 4♦ 5♣', '3♥ 4♦ 5♣']
>>> [str(combo) for combo in beating_combos(as_mask("4S 9H 2C 9S 9C 9D"), classify("8D", south), south)]
['9♠', '9♣', '9♦', '9♥', '2♣']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from tienlen.values import (
    BOMB_CODES,
    CONSECUTIVE_PAIRS,
    FOUR_OF_A_KIND,
    PAIR,
    SINGLE,
    STRAIGHT,
    TRIPLE,
    TWOS_MASK,
    Bomb,
    Combo,
    ComboKind,
    target_code,
)

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = [
    "all_combos",
    "same_rank_combos",
    "run_combos",
    "beating_combos",
    "bombs_beating",
    "legal_plays_on_turn",
    "leads_with_lowest",
    "finishes_on_two",
    "SINGLES",
    "SAME_RANK_COMBOS",
    "singles_of",
]

_new = tuple.__new__

# ------------------------------------------------------------------ rank masks
RANK_BITS = sum(1 << (4 * rank) for rank in range(13))
"""Bit 4r for every rank r: the low bit of each nibble."""
NO_TWO_RANKS = RANK_BITS & ~(1 << 48)
FULL = (1 << 52) - 1
ABOVE = tuple(FULL & ~((2 << index) - 1) for index in range(52))
"""ABOVE[i]: the cards higher than card i."""
SUIT_LINES = tuple(RANK_BITS << suit for suit in range(4))
"""SUIT_LINES[s]: every card of suit s."""


def ranks_present(hand: int) -> int:
    """Bit 4r set when rank r holds at least one card."""
    folded = hand | (hand >> 1)
    return (folded | (folded >> 2)) & RANK_BITS


def ranks_with_pair(hand: int) -> int:
    """Bit 4r set when rank r holds at least two cards."""
    b, c, d = hand >> 1, hand >> 2, hand >> 3
    return ((hand & (b | c | d)) | (b & (c | d)) | (c & d)) & RANK_BITS


def ranks_with_three(hand: int) -> int:
    """Bit 4r set when rank r holds at least three cards."""
    b, c, d = hand >> 1, hand >> 2, hand >> 3
    return ((hand & b & (c | d)) | (c & d & (hand | b))) & RANK_BITS


def ranks_with_four(hand: int) -> int:
    """Bit 4r set when rank r holds all four cards."""
    return hand & (hand >> 1) & (hand >> 2) & (hand >> 3) & RANK_BITS


# -------------------------------------------------------------- ready-made combos
def _subsets(nibble: int, size: int) -> list[int]:
    """Sub-nibbles of ``size`` cards, ordered by their highest card, then the rest."""
    subs = [sub for sub in range(1, 16) if sub & nibble == sub and sub.bit_count() == size]
    return sorted(subs, key=lambda sub: (sub.bit_length(), sub))


def _make(kind: ComboKind, mask: int) -> Combo:
    return _new(Combo, (kind, mask, mask.bit_length() - 1, mask.bit_count()))


SAME_RANK_COMBOS: dict[int, Combo] = {}
"""Every single, pair, triple and four of a kind, by mask: the one object of each
that every table below holds (so a play's combo can be recognised by identity)."""


def _same_rank_table(kind: ComboKind, size: int, keep=lambda sub: True) -> tuple[tuple[tuple[Combo, ...], ...], ...]:
    """table[rank][nibble]: the combos of ``kind`` inside that rank, lowest first."""
    def made(mask: int) -> Combo:
        return SAME_RANK_COMBOS.setdefault(mask, _make(kind, mask))

    return tuple(
        tuple(tuple(made(sub << (4 * rank)) for sub in _subsets(nibble, size) if keep(sub)) for nibble in range(16))
        for rank in range(13)
    )


SINGLES = tuple(SAME_RANK_COMBOS.setdefault(1 << index, _make(SINGLE, 1 << index)) for index in range(52))
"""The single of each card index."""
_PAIR_TABLE = _same_rank_table(PAIR, 2)
_SAME_COLOUR_PAIR_TABLE = _same_rank_table(PAIR, 2, keep=lambda sub: sub in (0b0011, 0b1100))
_TRIPLE_TABLE = _same_rank_table(TRIPLE, 3)
_QUAD_TABLE = _same_rank_table(FOUR_OF_A_KIND, 4)

def _singles_of_quarter(quarter: int) -> tuple[tuple[Combo, ...], ...]:
    """[v]: the singles, lowest first, of the cards 13q..13q+12 set in the 13 bits v."""
    table: list[tuple[Combo, ...]] = [()]
    for bit in range(13):  # the values with this bit as their highest: the lower ones plus this card
        card = (SINGLES[13 * quarter + bit],)
        table += [lower + card for lower in table]
    return tuple(table)


# Singles by quarter of the deck (13 bits): the singles of a mask are four lookups.
Q0, Q1, Q2, Q3 = (_singles_of_quarter(quarter) for quarter in range(4))
S6 = tuple(tuple(SINGLES[48 + bit] for bit in range(4) if value >> bit & 1) for value in range(16))
"""The single 2s of the 2s' nibble."""


def singles_of(cards: int) -> list[Combo]:
    """The single of every card in the mask ``cards``, lowest first."""
    return [*Q0[cards & 8191], *Q1[cards >> 13 & 8191], *Q2[cards >> 26 & 8191], *Q3[cards >> 39]]


SINGLES_BY_RANK = _same_rank_table(SINGLE, 1)


def _rank_combos(rank: int, nibble: int, pair_table) -> tuple[Combo, ...]:
    """Every same-rank combo inside one rank's nibble: singles, pairs, triples, four."""
    out = SINGLES_BY_RANK[rank][nibble]
    if nibble & (nibble - 1):
        out += pair_table[rank][nibble] + _TRIPLE_TABLE[rank][nibble] + _QUAD_TABLE[rank][nibble]
    return out


def _same_rank_bytes(pair_table) -> tuple[tuple[tuple[Combo, ...], ...], ...]:
    """[k][b]: the same-rank combos of ranks 2k and 2k+1 whose cards are the byte b."""
    return tuple(
        tuple(
            _rank_combos(2 * chunk, value & 0xF, pair_table)
            + (_rank_combos(2 * chunk + 1, value >> 4, pair_table) if chunk < 6 else ())
            for value in range(256 if chunk < 6 else 16)
        )
        for chunk in range(7)
    )


_SAME_RANK_BYTES = _same_rank_bytes(_PAIR_TABLE)
_SAME_RANK_BYTES_NORTH = _same_rank_bytes(_SAME_COLOUR_PAIR_TABLE)

# Per rank and nibble: the shifted one-card / two-card choices that build runs.
_RUN_SINGLES = tuple(tuple(tuple(sub << (4 * rank) for sub in _subsets(nibble, 1)) for nibble in range(16)) for rank in range(13))
_STRAIGHT_ENDS = tuple(
    tuple(tuple((card, card.bit_length() - 1) for card in cards) for cards in by_nibble) for by_nibble in _RUN_SINGLES
)
"""[rank][nibble]: (card, its index) for each card that can end a straight at that rank."""
_RUN_PAIRS = tuple(tuple(tuple(sub << (4 * rank) for sub in _subsets(nibble, 2)) for nibble in range(16)) for rank in range(13))


# ---------------------------------------------------------------- same rank
def _of_rank_above(hand: int, ranks: int, table, min_top: int) -> list[Combo]:
    """Combos from ``table`` (indexed by rank and nibble) in the ranks of the rank
    mask ``ranks`` whose top card is above the card ``min_top``."""
    first = (min_top + 1) >> 2
    if (min_top + 1) & 3:  # min_top's own rank: only combos topped by a higher suit
        out = [combo for combo in table[first][(hand >> (4 * first)) & 0xF] if combo[2] > min_top]
    else:
        out = []
    ranks &= ABOVE[min_top]  # bit 4r survives for the ranks above min_top's
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        rank = (low.bit_length() - 1) >> 2
        out += table[rank][(hand >> (4 * rank)) & 0xF]
    return out


# --------------------------------------------------------------------- runs
def _straights(hand: int, rules: "RuleSet", length: int, min_top: int) -> list[Combo]:
    """Straights of ``length`` cards (every length from 3 when 0) whose top card is
    above ``min_top``: lengths in order, then starts, then suits (lowest first)."""
    folded = hand | (hand >> 1)
    ranks = (folded | (folded >> 2)) & NO_TWO_RANKS
    starts = ranks & (ranks >> 4) & (ranks >> 8)
    if not starts:
        return []
    if rules.follow_suit:
        return _one_suit_straights(hand, length, min_top)
    if not length:
        return _every_straight(hand, ranks, starts)
    for step in range(3, length):
        starts &= ranks >> (4 * step)
    # Only windows whose last rank reaches min_top's rank can beat it.
    first = (min_top >> 2) - length + 1
    if first > 0:
        starts &= -1 << (4 * first)
    table = _THREE_CARD_STRAIGHTS
    out: list[Combo] = []
    while starts:
        low = starts & -starts
        starts ^= low
        shift = low.bit_length() - 1
        window = (hand >> shift) & 0xFFF
        combos = table[shift >> 2][window] or _three_card_straights(shift >> 2, window)
        for size in range(4, length + 1):
            combos = _longer_straights(combos, _STRAIGHT_ENDS[(shift >> 2) + size - 1][(hand >> (shift + 4 * size - 4)) & 0xF], size)
        if shift + 4 * length - 4 <= min_top:  # the last rank is min_top's: higher suits only
            out += [combo for combo in combos if combo[2] > min_top]
        else:
            out += combos
    return out


# Straights of three cards by start rank and the 12 bits of their three ranks,
# kept as they are first met.  The table could grow to 327,680 combos (about
# 35 MB); it stops taking new windows after THREE_CARD_STRAIGHTS_KEPT combos
# (about 3.5 MB), by which time the windows hands actually hold are in it.
_THREE_CARD_STRAIGHTS: list[list[tuple[Combo, ...] | None]] = [[None] * 4096 for _ in range(10)]
THREE_CARD_STRAIGHTS_KEPT = 32_768
_kept = [0]  # combos in the table so far


def _three_card_straights(start: int, bits: int) -> tuple[Combo, ...]:
    low, middle, high = (_RUN_SINGLES[start + step][(bits >> (4 * step)) & 0xF] for step in range(3))
    combos = tuple(_new(Combo, (STRAIGHT, a | b | c, c.bit_length() - 1, 3)) for a in low for b in middle for c in high)
    if _kept[0] < THREE_CARD_STRAIGHTS_KEPT:
        _kept[0] += len(combos)
        _THREE_CARD_STRAIGHTS[start][bits] = combos
    return combos


def _every_straight(hand: int, ranks: int, starts: int) -> list[Combo]:
    """Every straight of ``hand`` (``ranks``: its rank mask without 2s; ``starts``:
    where three ranks in a row begin): by length, then start, then suits.  Each
    start's straights of one length extend those one card shorter."""
    table = _THREE_CARD_STRAIGHTS
    out: list[Combo] = []
    longer = starts & (ranks >> 12)
    growing: dict[int, Sequence[Combo]] = {}
    while starts:
        low = starts & -starts
        starts ^= low
        shift = low.bit_length() - 1
        window = (hand >> shift) & 0xFFF
        combos = table[shift >> 2][window] or _three_card_straights(shift >> 2, window)
        out += combos
        if longer & low:
            growing[shift] = combos
    size = 3
    starts = longer
    while starts:
        end_step = 4 * size
        size += 1
        bits = starts
        while bits:
            low = bits & -bits
            bits ^= low
            shift = low.bit_length() - 1
            end = shift + end_step
            combos = _longer_straights(growing[shift], _STRAIGHT_ENDS[end >> 2][(hand >> end) & 0xF], size)
            growing[shift] = combos
            out += combos
        starts &= ranks >> (4 * size)
    return out


def _longer_straights(shorter: Sequence[Combo], ends: tuple[tuple[int, int], ...], size: int) -> list[Combo]:
    """The straights of ``size`` cards that extend each of ``shorter`` by one of
    ``ends`` ((card, index) pairs of the next rank), in that order."""
    if len(ends) == 1:
        ((card, top),) = ends
        return [_new(Combo, (STRAIGHT, combo[1] | card, top, size)) for combo in shorter]
    return [_new(Combo, (STRAIGHT, combo[1] | card, top, size)) for combo in shorter for card, top in ends]


def _one_suit_straights(hand: int, length: int, min_top: int) -> list[Combo]:
    """Northern straights, all one suit: lengths, then starts, then suits in order."""
    out: list[Combo] = []
    lines = [(hand >> suit) & NO_TWO_RANKS for suit in range(4)]
    windows = [line & (line >> 4) & (line >> 8) for line in lines]
    size = 3
    while True:
        if not length or size == length:
            any_start = windows[0] | windows[1] | windows[2] | windows[3]
            while any_start:
                low = any_start & -any_start
                any_start ^= low
                start = low.bit_length() - 1
                run = sum(1 << (start + 4 * step) for step in range(size))
                for suit in range(4):
                    if windows[suit] & low:
                        mask = run << suit
                        top = mask.bit_length() - 1
                        if top > min_top:
                            out.append(_new(Combo, (STRAIGHT, mask, top, size)))
            if length:
                return out
        size += 1
        if size > 12:
            return out
        windows = [window & (line >> (4 * (size - 1))) for window, line in zip(windows, lines)]
        if not (windows[0] | windows[1] | windows[2] | windows[3]):
            return out


def _run_masks(hand: int, start: int, end: int, choices) -> list[int]:
    """Every mask taking one choice per rank from ``start`` to ``end`` (earlier ranks vary slowest)."""
    masks = [0]
    for rank in range(start, end + 1):
        options = choices[rank][(hand >> (4 * rank)) & 0xF]
        if len(options) == 1:
            option = options[0]
            masks = [mask | option for mask in masks]
        else:
            masks = [mask | option for mask in masks for option in options]
    return masks


def _pair_runs(hand: int, pairs: int, min_top: int, min_pairs: int = 3, start_ranks: int = -1) -> list[Combo]:
    """Runs of ``pairs`` consecutive pairs (every length from ``min_pairs`` when 0)
    whose top card is above ``min_top``, starting at a rank of the rank mask
    ``start_ranks`` (any): lengths, then starts, then suits."""
    ranks = ranks_with_pair(hand) & NO_TWO_RANKS
    starts = ranks & (ranks >> 4) & (ranks >> 8) & start_ranks
    if not starts:
        return []
    lowest = pairs or min_pairs
    for step in range(3, lowest):
        starts &= ranks >> (4 * step)
    out: list[Combo] = []
    count = lowest
    while starts:
        bits = starts
        while bits:
            low = bits & -bits
            bits ^= low
            start = (low.bit_length() - 1) >> 2
            end = start + count - 1
            if 4 * end + 3 <= min_top:
                continue
            for mask in _run_masks(hand, start, end, _RUN_PAIRS):
                top = mask.bit_length() - 1
                if top > min_top:
                    out.append(_new(Combo, (CONSECUTIVE_PAIRS, mask, top, 2 * count)))
        if pairs:
            return out
        starts &= ranks >> (4 * count)
        count += 1
    return out


# ------------------------------------------------------------------ the API
def all_combos(hand: int, rules: "RuleSet") -> list[Combo]:
    """Every combination that can be formed from ``hand`` (a card mask):
    :func:`same_rank_combos`, then :func:`run_combos`.

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.cards import parse_cards, mask_of
    >>> [str(c) for c in all_combos(mask_of(parse_cards("3S 3H 4D")), RULESETS["mien-nam"])]
    ['3♠', '3♥', '3♠ 3♥', '4♦']
    """
    out = same_rank_combos(hand, rules)
    if hand.bit_count() >= 3:
        out += run_combos(hand, rules)
    return out


def same_rank_combos(hand: int, rules: "RuleSet") -> list[Combo]:
    """Every single, pair, triple and four of a kind of ``hand``, rank by rank:
    seven byte lookups of ready-made combos."""
    if rules.follow_suit:
        b0, b1, b2, b3, b4, b5, b6 = _SAME_RANK_BYTES_NORTH
    else:
        b0, b1, b2, b3, b4, b5, b6 = _SAME_RANK_BYTES
    return [
        *b0[hand & 255], *b1[hand >> 8 & 255], *b2[hand >> 16 & 255], *b3[hand >> 24 & 255],
        *b4[hand >> 32 & 255], *b5[hand >> 40 & 255], *b6[hand >> 48],
    ]


def leads_with_lowest(hand: int, rules: "RuleSet") -> list[Combo]:
    """The combinations of ``hand`` that contain its lowest card, in the order
    :func:`all_combos` lists them: the opening lead of a first game, which must
    hold the lowest card dealt.  Only that card's rank, and runs starting there.

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.cards import as_mask
    >>> [str(c) for c in leads_with_lowest(as_mask("3S 3H 4D 5C 5H"), RULESETS["mien-nam"])]
    ['3♠', '3♠ 3♥', '3♠ 4♦ 5♣', '3♠ 4♦ 5♥']
    """
    lowest = hand & -hand
    shift = (lowest.bit_length() - 1) & ~3  # the lowest rank's nibble
    rank_bit = 1 << shift
    same_rank = _SAME_RANK_BYTES_NORTH if rules.follow_suit else _SAME_RANK_BYTES
    chunk = shift >> 3  # the byte table of ranks 2k and 2k+1 holds this rank's nibble first or second
    nibble = (hand >> shift) & 0xF
    byte = nibble if shift & 4 == 0 else nibble << 4
    out = [combo for combo in same_rank[chunk][byte] if combo[1] & lowest]
    folded = hand | (hand >> 1)
    ranks = (folded | (folded >> 2)) & NO_TWO_RANKS
    if not ranks & (ranks >> 4) & (ranks >> 8) & rank_bit:  # no run starts at the lowest rank
        return out
    if rules.follow_suit:
        straights = _one_suit_straights(hand, 0, -1)
    else:
        straights = _every_straight(hand, ranks, rank_bit)
    out += [combo for combo in straights if combo[1] & lowest]
    if rules.consecutive_pairs and nibble & (nibble - 1):
        out += [combo for combo in _pair_runs(hand, 0, -1, start_ranks=rank_bit) if combo[1] & lowest]
    return out


def run_combos(hand: int, rules: "RuleSet") -> list[Combo]:
    """Every straight (by length, start, suits), then every run of pairs, of
    ``hand``.  A hand that has none now never will: its cards only go."""
    # Runs need three ranks in a row below the 2s: two shifted ANDs say whether there are any.
    folded = hand | (hand >> 1)
    ranks = (folded | (folded >> 2)) & NO_TWO_RANKS
    starts = ranks & (ranks >> 4) & (ranks >> 8)
    if not starts:
        return []
    if rules.follow_suit:
        out = _one_suit_straights(hand, 0, -1)
    else:
        out = _every_straight(hand, ranks, starts)
    if rules.consecutive_pairs:
        b, c, d = hand >> 1, hand >> 2, hand >> 3
        pairs = ((hand & (b | c | d)) | (b & (c | d)) | (c & d)) & NO_TWO_RANKS
        if pairs & (pairs >> 4) & (pairs >> 8):
            out += _pair_runs(hand, 0, -1)
    return out


def beating_combos(hand: int, top: Combo, rules: "RuleSet") -> list[Combo]:
    """Every combination in ``hand`` that may be played on ``top``.

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.cards import as_mask
    >>> from tienlen.combos import classify
    >>> north = RULESETS["mien-bac"]
    >>> [str(c) for c in beating_combos(as_mask("9S 10H JH 2C"), classify("8H", north), north)]
    ['10♥', 'J♥', '2♣']
    """
    kind = top[0]
    min_top = top[2]
    if kind is SINGLE:
        if min_top >= 48:  # a 2: only higher 2s, or a bomb
            out = list(S6[(hand & ABOVE[min_top]) >> 48])
            if hand.bit_count() >= 4 and may_hold_bomb(hand):
                out += bombs_beating(hand, top, rules, same_kind=False)
            return out
        cards = hand & ABOVE[min_top]
        if rules.follow_suit:
            cards &= SUIT_LINES[min_top & 3] | (TWOS_MASK if rules.twos_beat_any_suit else 0)
        return [*Q0[cards & 8191], *Q1[cards >> 13 & 8191], *Q2[cards >> 26 & 8191], *Q3[cards >> 39]]
    if kind is PAIR:
        b, c, d = hand >> 1, hand >> 2, hand >> 3
        pairs = ((hand & (b | c | d)) | (b & (c | d)) | (c & d)) & RANK_BITS
        if not pairs >> (min_top & ~3) and min_top < 48:  # no pair of the top's rank or higher, and no 2s to chop
            return []
        if rules.follow_suit:
            out = _of_rank_above(hand, pairs, _SAME_COLOUR_PAIR_TABLE, min_top)
            colour, any_two = min_top & 2, rules.twos_beat_any_suit
            out = [combo for combo in out if combo[2] & 2 == colour or (any_two and combo[2] >= 48)]
        else:
            out = _of_rank_above(hand, pairs, _PAIR_TABLE, min_top)
    elif kind is STRAIGHT:
        out = _straights(hand, rules, top[3], min_top)
        if rules.follow_suit and out:
            suit = min_top & 3
            out = [combo for combo in out if combo[2] & 3 == suit]
    elif kind is TRIPLE:
        out = _of_rank_above(hand, ranks_with_three(hand), _TRIPLE_TABLE, min_top)
        if rules.follow_suit and out:
            suits = top[1] >> (min_top & ~3)
            out = [combo for combo in out if combo[1] >> (combo[2] & ~3) == suits]
    elif kind is CONSECUTIVE_PAIRS:
        out = _pair_runs(hand, top[3] // 2, min_top)
        return out + bombs_beating(hand, top, rules, same_kind=False)
    else:  # four of a kind
        out = _of_rank_above(hand, ranks_with_four(hand), _QUAD_TABLE, min_top)
        return out + bombs_beating(hand, top, rules, same_kind=False)
    if min_top >= 48 and may_hold_bomb(hand):
        out += bombs_beating(hand, top, rules, same_kind=False)
    return out


def may_hold_bomb(hand: int) -> bool:
    """A quick necessary condition for a bomb: a four of a kind, or pairs in three
    ranks in a row (below the 2s).  False stays false as cards leave the hand."""
    b, c, d = hand >> 1, hand >> 2, hand >> 3
    pairs = ((hand & (b | c | d)) | (b & (c | d)) | (c & d)) & NO_TWO_RANKS
    return bool(pairs & (pairs >> 4) & (pairs >> 8)) or bool(hand & b & c & d & RANK_BITS)


_THREE_PAIRS_BIT = 1 << BOMB_CODES[Bomb.THREE_PAIRS]
_FOUR_OF_A_KIND_BIT = 1 << BOMB_CODES[Bomb.FOUR_OF_A_KIND]
_FOUR_PAIRS_BIT = 1 << BOMB_CODES[Bomb.FOUR_PAIRS]


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

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.cards import as_mask
    >>> from tienlen.combos import classify
    >>> south = RULESETS["mien-nam"]
    >>> [str(c) for c in bombs_beating(as_mask("5S 5C 6S 6C 7S 7C 9S 9C 9D 9H"), classify("2H", south), south)]
    ['5♠ 5♣ 6♠ 6♣ 7♠ 7♣', '9♠ 9♣ 9♦ 9♥']
    """
    code = target_code(top)
    if not code or hand.bit_count() < 4:
        return []
    allowed = rules._chop_bits >> (4 * code)  # type: ignore[attr-defined]
    if only is not None:
        allowed &= 1 << BOMB_CODES[Bomb(only)]
    if not allowed & 0xF:
        return []
    # Which bombs the hand holds at all: fours of a kind, and three pairs in a row.
    b, c, d = hand >> 1, hand >> 2, hand >> 3
    quads = hand & b & c & d & RANK_BITS
    pairs = ((hand & (b | c | d)) | (b & (c | d)) | (c & d)) & NO_TWO_RANKS
    runs = pairs & (pairs >> 4) & (pairs >> 8) if rules.consecutive_pairs else 0
    if not (quads and allowed & _FOUR_OF_A_KIND_BIT) and not (runs and allowed & (_THREE_PAIRS_BIT | _FOUR_PAIRS_BIT)):
        return []
    out: list[Combo] = []
    if runs and allowed & _THREE_PAIRS_BIT:
        out += _pair_runs(hand, 3, -1)
    if quads and allowed & _FOUR_OF_A_KIND_BIT:
        while quads:
            low = quads & -quads
            quads ^= low
            out.append(_QUAD_TABLE[(low.bit_length() - 1) >> 2][15][0])
    if runs & (pairs >> 12) and allowed & _FOUR_PAIRS_BIT:
        out += _pair_runs(hand, 0, -1, min_pairs=4)
    if not out:
        return out
    kind, size = top[0], top[3]
    can_beat = rules.can_beat
    return [combo for combo in out if (same_kind or combo[0] is not kind or combo[3] != size) and can_beat(combo, top)]


def finishes_on_two(hand: int, combo: Combo) -> bool:
    """Whether ``combo`` would be the hand's last cards and holds a 2 or is a four of a kind."""
    return combo[1] == hand and (bool(combo[1] & TWOS_MASK) or combo[0] is FOUR_OF_A_KIND)


def legal_plays_on_turn(rules: "RuleSet", hand: int, top: Combo | None, required: int = 0) -> list[Combo]:
    """What a seat holding ``hand`` (a mask) may play on its turn, with ``top``
    on the table (None: leading; ``required``: mask of a card the lead must
    contain).  :meth:`tienlen.game.Game.legal_plays` uses it; AI players use it
    to reason about hands they imagine for the others.

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.cards import as_mask
    >>> from tienlen.combos import classify
    >>> south = RULESETS["mien-nam"]
    >>> [str(c) for c in legal_plays_on_turn(south, as_mask("4S 9H 2C"), classify("8D", south))]
    ['9♥', '2♣']
    """
    if top is None:
        if required and required == hand & -hand:
            plays = leads_with_lowest(hand, rules)
        else:
            plays = all_combos(hand, rules)
            if required:
                plays = [combo for combo in plays if combo[1] & required]
    else:
        plays = beating_combos(hand, top, rules)
    if rules._forbid_finish_on_two:  # type: ignore[attr-defined]
        plays = [combo for combo in plays if not (combo[1] == hand and (combo[1] & TWOS_MASK or combo[0] is FOUR_OF_A_KIND))]
    return plays

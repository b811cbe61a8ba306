"""Today's legal-play generator, frozen as an oracle (copied from ``tienlen/combos.py``,
``tienlen/rules.py`` and ``tienlen/game.py`` at commit 157be28, before the engine
was restructured for speed).

It shares no code with the engine beyond the :class:`~tienlen.combos.Combo`
value (a ``(kind, mask, top, size)`` tuple), :class:`~tienlen.combos.ComboKind`
and the :class:`~tienlen.rules.RuleSet` fields it reads, so the property tests
in ``test_generator_oracle.py`` compare two independent implementations.
Do not "fix" or speed this module up: its value is that it does not change.
"""

from __future__ import annotations

from typing import Iterator

from tienlen.combos import Combo, ComboKind
from tienlen.rules import Bomb, ChopTarget, FinishOnTwo

SINGLE = ComboKind.SINGLE
PAIR = ComboKind.PAIR
TRIPLE = ComboKind.TRIPLE
STRAIGHT = ComboKind.STRAIGHT
CONSECUTIVE_PAIRS = ComboKind.CONSECUTIVE_PAIRS
FOUR_OF_A_KIND = ComboKind.FOUR_OF_A_KIND

TWOS_MASK = 0xF << 48


# ------------------------------------------------------------------ beating
def _bomb(combo):
    kind = combo[0]
    if kind is FOUR_OF_A_KIND:
        return Bomb.FOUR_OF_A_KIND
    if kind is CONSECUTIVE_PAIRS:
        return Bomb.THREE_PAIRS if combo[3] == 6 else Bomb.FOUR_PAIRS
    return None


def _chop_target(combo):
    kind = combo[0]
    if kind is FOUR_OF_A_KIND:
        return ChopTarget.FOUR_OF_A_KIND
    if kind is CONSECUTIVE_PAIRS:
        return ChopTarget.THREE_PAIRS if combo[3] == 6 else ChopTarget.FOUR_PAIRS
    if combo[2] >= 48:
        if kind is SINGLE:
            return ChopTarget.SINGLE_TWO
        if kind is PAIR:
            return ChopTarget.PAIR_OF_TWOS
        if kind is TRIPLE:
            return ChopTarget.THREE_TWOS
    return None


def can_beat(rules, play, top):
    """``RuleSet.can_beat`` as it was."""
    if play[0] is top[0] and play[3] == top[3]:
        if play[2] <= top[2]:
            return False
        if rules.follow_suit and not _follows_suit(rules, play, top):
            return False
        return True
    target = _chop_target(top)
    bomb = _bomb(play)
    if target is None or bomb is None or (target, bomb) not in rules.chops:
        return False
    # A longer run of pairs beats a shorter one, never the other way round.
    return play[0] is not top[0] or play[3] > top[3]


def _follows_suit(rules, play, top):
    """Northern suit-following for two combos of the same kind and size."""
    kind = play[0]
    is_two = play[2] >= 48
    if kind is SINGLE:
        return (play[2] & 3) == (top[2] & 3) or (is_two and rules.twos_beat_any_suit)
    if kind is PAIR:
        return (play[2] & 3) >> 1 == (top[2] & 3) >> 1 or (is_two and rules.twos_beat_any_suit)
    if kind is TRIPLE:
        return (play[1] >> (play[2] & ~3)) == (top[1] >> (top[2] & ~3))
    if kind is STRAIGHT:
        return (play[2] & 3) == (top[2] & 3)
    return True


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


def _rank_table(kind: ComboKind, rules: object) -> list[list[tuple[Combo, ...]]]:
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


def _straights(hand: int, rules: object, length: int | None, min_top: int) -> list[Combo]:
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


def all_combos(hand: int, rules: object) -> list[Combo]:
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


def beating_combos(hand: int, top: Combo, rules: object) -> list[Combo]:
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
        out = [combo for combo in out if can_beat(rules, combo, top)]
    if top[2] >= 48 or kind is FOUR_OF_A_KIND or kind is CONSECUTIVE_PAIRS:
        out += bombs_beating(hand, top, rules, same_kind=False)
    return out


def bombs_beating(
    hand: int,
    top: Combo,
    rules: object,
    *,
    only: Bomb | None = None,
    same_kind: bool = True,
) -> list[Combo]:
    """Bombs in ``hand`` that chop ``top``; ``only`` restricts to one bomb class.

    With ``same_kind=False`` bombs of ``top``'s own kind and size are left out
    (the caller has listed them already as ordinary beating plays).
    """
    target = _chop_target(top)
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
            if can_beat(rules, combo, top):
                out.append(combo)
    return out


# ------------------------------------------------------------ game entry points
def legal_plays_on_turn(rules, hand: int, top, required: int = 0) -> list[Combo]:
    """``tienlen.game.legal_plays_on_turn`` as it was."""
    if top is None:
        plays = all_combos(hand, rules)
        if required:
            plays = [combo for combo in plays if combo[1] & required]
    else:
        plays = beating_combos(hand, top, rules)
    if rules.finish_on_two is FinishOnTwo.FORBIDDEN:
        plays = [combo for combo in plays if not _finishes_on_two(hand, combo)]
    return plays


def _finishes_on_two(hand: int, combo) -> bool:
    return combo[1] == hand and (bool(combo[1] & TWOS_MASK) or combo[0] is FOUR_OF_A_KIND)


def out_of_turn_chops(rules, hand: int, top, seat: int, owner) -> list[Combo]:
    """``Game._out_of_turn_chops`` as it was, for a seat that is not on turn."""
    if top is None or not rules.four_pairs_out_of_turn or seat == owner or hand.bit_count() < 8:
        return []
    return bombs_beating(hand, top, rules, only=Bomb.FOUR_PAIRS)


def legal_plays(game, seat: int) -> list[Combo]:
    """``Game.legal_plays`` as it was, read through the game's public API only."""
    if game.finished or not game.in_play(seat):
        return []
    hand = game.hand_mask(seat)
    if seat != game.turn:
        return out_of_turn_chops(game.rules, hand, game.top, seat, game.top_owner)
    required = game.required_card
    return legal_plays_on_turn(game.rules, hand, game.top, required.mask if required is not None else 0)

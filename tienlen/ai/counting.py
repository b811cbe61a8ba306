"""Card counting: could the cards a seat has not seen still beat a combination?

An AI seat knows its own hand and every card played; everything else (the
*pool*: ``SeatView.unseen``) is somewhere in the other hands or set aside.  A
combination is *boss* when no combination that can be formed from the pool
beats it; the normal player keeps its bosses for taking control and counts
them to know when it can run out.

Checks are existence tests over rank bitmasks (microseconds, no enumeration of
suit choices), and every candidate is finally judged by the rule set's own
:meth:`~tienlen.rules.RuleSet.can_beat`, so suit-following and chop tables come
from the same place as the engine's.

>>> from tienlen.rules import RULESETS
>>> from tienlen.combos import classify
>>> from tienlen.cards import as_mask
>>> south = RULESETS["mien-nam"]
>>> pool_beats(as_mask("5S 6C 7D 2S"), classify("AH", south), south)
True
>>> pool_beats(as_mask("5S 6C 7D"), classify("AH", south), south)
False
>>> pool_beats(as_mask("5S 6C 7D"), classify("3S 4H 5C", south), south)
True
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

from tienlen.combos import (
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
from tienlen.generate import SUIT_LINES, ranks_present, ranks_with_four, ranks_with_pair
from tienlen.rules import Bomb

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

__all__ = ["pool_beats", "single_beat_share", "last_hand_beat_chance", "survival_chance", "make_combo", "rank_counts"]

_NO_TWO_RANKS = sum(1 << (4 * rank) for rank in range(12))
_BOMB_KINDS = {
    Bomb.THREE_PAIRS: (CONSECUTIVE_PAIRS, (3,)),
    Bomb.FOUR_PAIRS: (CONSECUTIVE_PAIRS, (4, 5, 6)),
    Bomb.FOUR_OF_A_KIND: (FOUR_OF_A_KIND, (1,)),
}


def make_combo(kind: ComboKind, mask: int) -> Combo:
    """A :class:`Combo` from a mask already known to form ``kind`` (no checks)."""
    return tuple.__new__(Combo, (kind, mask, mask.bit_length() - 1, mask.bit_count()))


def rank_counts(mask: int) -> list[int]:
    """Cards held per rank (13 entries, 3 first).

    >>> from tienlen.cards import as_mask
    >>> rank_counts(as_mask("3S 3H 2C"))[:2], rank_counts(as_mask("3S 3H 2C"))[12]
    ([2, 0], 1)
    """
    return [((mask >> (4 * rank)) & 0xF).bit_count() for rank in range(13)]


# ------------------------------------------------------------ rank bit tricks
def _window_ends(ranks: int, length: int) -> list[int]:
    """End ranks r of every run of ``length`` ranks r-length+1..r in ``ranks`` (no 2s)."""
    ranks &= _NO_TWO_RANKS
    window = ranks
    for step in range(1, length):
        window &= ranks >> (4 * step)
    ends = []
    while window:
        low = window & -window
        window ^= low
        ends.append(((low.bit_length() - 1) >> 2) + length - 1)
    return ends


def _highest(nibble_mask: int, count: int) -> int:
    """The ``count`` highest cards of a mask (a single rank's cards)."""
    out = 0
    for _ in range(count):
        top = 1 << (nibble_mask.bit_length() - 1)
        out |= top
        nibble_mask ^= top
    return out


def _run_representative(pool: int, end: int, length: int, per_rank: int) -> int:
    """The strongest run ending at rank ``end``: the highest cards of each rank."""
    mask = 0
    for rank in range(end - length + 1, end + 1):
        mask |= _highest(pool & (0xF << (4 * rank)), per_rank)
    return mask


# ------------------------------------------------------------------ queries
def pool_beats(pool: int, combo: Combo, rules: "RuleSet", *, bombs: bool = True) -> bool:
    """Whether some combination formed from ``pool`` may be played on ``combo``.

    With ``bombs=False`` only same-kind beats count (a 2 chopped by a bomb is
    then ignored): that is the sense of "boss" used to plan control.
    """
    if _same_kind_beats(pool, combo, rules):
        return True
    return bombs and combo.chop_target is not None and _bomb_beats(pool, combo, rules)


def _same_kind_beats(pool: int, combo: Combo, rules: "RuleSet") -> bool:
    kind, _, top, size = combo
    if kind is SINGLE:
        if rules.follow_suit:
            pool &= SUIT_LINES[top & 3] | (TWOS_MASK if rules.twos_beat_any_suit else 0)
        return bool(pool >> (top + 1))
    if kind is STRAIGHT:
        return _run_beats(pool, combo, rules, STRAIGHT, size, 1)
    if kind is CONSECUTIVE_PAIRS:
        return _run_beats(pool, combo, rules, CONSECUTIVE_PAIRS, size // 2, 2)
    return _same_rank_beats(pool, combo, rules)


def _same_rank_beats(pool: int, combo: Combo, rules: "RuleSet") -> bool:
    """Pairs, triples and fours: try every same-size group of a rank at or above."""
    kind, _, top, size = combo
    for rank in range(top >> 2, 13):
        nibble_mask = pool & (0xF << (4 * rank))
        if nibble_mask.bit_count() < size:
            continue
        cards = [1 << index for index in range(4 * rank, 4 * rank + 4) if nibble_mask >> index & 1]
        for group in combinations(cards, size):
            candidate = make_combo(kind, sum(group))
            if _valid_group(candidate, rules) and rules.can_beat(candidate, combo):
                return True
    return False


def _valid_group(combo: Combo, rules: "RuleSet") -> bool:
    """Northern pairs must be one colour; everything else of one rank is valid."""
    if combo[0] is not PAIR or not rules.follow_suit:
        return True
    nibble = combo[1] >> ((combo[2]) & ~3)
    return nibble in (0b0011, 0b1100)


def _run_beats(pool: int, combo: Combo, rules: "RuleSet", kind: ComboKind, length: int, per_rank: int) -> bool:
    """Straights / consecutive pairs of ``length`` ranks from the pool that beat ``combo``."""
    if rules.follow_suit:
        lines = [pool & line for line in SUIT_LINES] if kind is STRAIGHT else []
    else:
        lines = [pool]
    for line in lines:
        ranks = ranks_present(line) if per_rank == 1 else ranks_with_pair(line)
        for end in _window_ends(ranks, length):
            if 4 * end + 3 <= combo[2]:
                continue
            candidate = make_combo(kind, _run_representative(line, end, length, per_rank))
            if rules.can_beat(candidate, combo):
                return True
    return False


def _bomb_beats(pool: int, combo: Combo, rules: "RuleSet") -> bool:
    target = combo.chop_target
    for chop_target, bomb in rules.chops:
        if chop_target is not target:
            continue
        kind, lengths = _BOMB_KINDS[bomb]
        if kind is FOUR_OF_A_KIND:
            full = ranks_with_four(pool)
            while full:
                low = full & -full
                full ^= low
                candidate = make_combo(FOUR_OF_A_KIND, 0xF << (low.bit_length() - 1))
                if rules.can_beat(candidate, combo):
                    return True
            continue
        if not rules.consecutive_pairs:
            continue
        pairs = ranks_with_pair(pool)
        for length in lengths:
            for end in _window_ends(pairs, length):
                candidate = make_combo(CONSECUTIVE_PAIRS, _run_representative(pool, end, length, 2))
                if rules.can_beat(candidate, combo):
                    return True
    return False


def single_beat_share(pool: int, combo: Combo, rules: "RuleSet") -> float:
    """Share of the pool's cards that beat a single (0.0 … 1.0): the chance that
    an opponent's last card beats it, if that card were any unseen card.

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.combos import classify
    >>> from tienlen.cards import as_mask
    >>> south = RULESETS["mien-nam"]
    >>> single_beat_share(as_mask("3S 4S KH 2D"), classify("QS", south), south)
    0.5
    """
    total = pool.bit_count()
    if not total:
        return 0.0
    top = combo[2]
    candidates = pool
    if rules.follow_suit:
        candidates &= SUIT_LINES[top & 3] | (TWOS_MASK if rules.twos_beat_any_suit else 0)
    return (candidates >> (top + 1)).bit_count() / total


def last_hand_beat_chance(pool: int, combo: Combo, rules: "RuleSet") -> float:
    """Chance that an opponent whose whole hand has ``combo``'s size (cards
    drawn at random from the pool) can beat ``combo`` with it and go out.

    Singles: the share of beating cards.  Pairs: the share of the pool's
    card pairs that are beating pairs.  Longer combos: a whole hand of 3+
    cards is rarely one beating combination, so a small flat chance when the
    pool can form a beat at all.

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.combos import classify
    >>> from tienlen.cards import as_mask
    >>> south = RULESETS["mien-nam"]
    >>> last_hand_beat_chance(as_mask("3S 4S KH KD"), classify("QS QH", south), south)
    0.16666666666666666
    """
    kind = combo[0]
    if kind is SINGLE:
        return single_beat_share(pool, combo, rules)
    if not _same_kind_beats(pool, combo, rules):
        return 0.0
    if kind is PAIR:
        total = pool.bit_count()
        beating = 0
        for rank in range(combo[2] >> 2, 13):
            nibble_mask = pool & (0xF << (4 * rank))
            cards = [1 << index for index in range(4 * rank, 4 * rank + 4) if nibble_mask >> index & 1]
            for group in combinations(cards, 2):
                candidate = make_combo(PAIR, sum(group))
                if _valid_group(candidate, rules) and rules.can_beat(candidate, combo):
                    beating += 1
        return beating / (total * (total - 1) / 2)
    return 0.1


# ------------------------------------------------------------- probabilities
def survival_chance(
    pool: int,
    combo: Combo,
    rules: "RuleSet",
    opponent_counts: "list[int]",
    *,
    eagerness: float = 0.8,
) -> float:
    """Rough chance that nobody beats ``combo`` with a same-kind play, when the
    pool's cards are spread at random over the opponents' hands (and the cards
    set aside).  ``eagerness`` is the chance that an opponent holding a beat
    uses it.  Bosses survive for sure; bombs on 2s are ignored.

    >>> from tienlen.rules import RULESETS
    >>> from tienlen.combos import classify
    >>> from tienlen.cards import as_mask
    >>> south = RULESETS["mien-nam"]
    >>> survival_chance(as_mask("3S 4S"), classify("2H", south), south, [1, 1])
    1.0
    >>> round(survival_chance(as_mask("AS 4S"), classify("KH", south), south, [1, 1]), 2)
    0.2
    """
    if not opponent_counts or combo[3] > max(opponent_counts):
        return 1.0
    kind = combo[0]
    in_hands = sum(opponent_counts)
    total = pool.bit_count()
    if total == 0 or in_hands == 0:
        return 1.0
    if kind is SINGLE:
        beaters = round(single_beat_share(pool, combo, rules) * total)
        return (1.0 - eagerness * min(1.0, in_hands / total)) ** beaters
    if kind is PAIR or kind is TRIPLE:
        return _group_survival(pool, combo, rules, opponent_counts, total, eagerness)
    return 1.0 - eagerness * 0.6 if _same_kind_beats(pool, combo, rules) else 1.0


def _group_survival(pool: int, combo: Combo, rules: "RuleSet", counts: "list[int]", total: int,
                    eagerness: float) -> float:
    """Pairs / triples: per higher rank, the chance no opponent holds enough of it."""
    size = combo[3]
    chance = 1.0
    for rank in range((combo[2] >> 2) + 1, 13):
        cards = pool & (0xF << (4 * rank))
        if rules.follow_suit and size == 2:
            chance *= _colour_pairs_survival(cards, combo, rules, rank, counts, total, eagerness)
            continue
        held = cards.bit_count()
        if held >= size:
            chance *= 1.0 - eagerness * _some_hand_gets(held, size, counts, total)
    return chance


def _colour_pairs_survival(cards, combo, rules, rank, counts, total, eagerness) -> float:
    """Northern pairs: only a same-colour pair beats (any pair of 2s may, by option)."""
    colour_lines = (0b0011 << (4 * rank), 0b1100 << (4 * rank))
    own_colour = (combo[2] & 3) >> 1
    chance = 1.0
    for colour, line in enumerate(colour_lines):
        if colour != own_colour and not (rank == 12 and rules.twos_beat_any_suit):
            continue
        if cards & line == line:
            chance *= 1.0 - eagerness * _some_hand_gets(2, 2, counts, total)
    return chance


def _some_hand_gets(cards: int, need: int, counts: "list[int]", total: int) -> float:
    """Chance that one opponent holds at least ``need`` of ``cards`` given
    cards spread uniformly over ``total`` places (hands of ``counts``, the rest
    set aside).  Exact for need = 2 (no hand gets two: injective placements);
    for need = 3 the complement is approximated the same way on triples."""
    if need == 2:
        return 1.0 - _at_most_one_each(cards, counts, total)
    # need == 3: chance some hand gets 3+ of the cards, by summing over hands.
    chance = 0.0
    for count in counts:
        chance += _hypergeometric_at_least(cards, need, count, total)
    return min(1.0, chance)


def _at_most_one_each(cards: int, counts: "list[int]", total: int) -> float:
    return _at_most_one_each_cached(cards, tuple(counts), total)


@lru_cache(maxsize=4096)
def _at_most_one_each_cached(cards: int, counts: tuple[int, ...], total: int) -> float:
    """Chance that no hand receives two of ``cards`` specific cards."""
    set_aside = total - sum(counts)
    # e[j]: ways to pick j distinct hands and one place in each.
    e = [1.0] + [0.0] * cards
    for count in counts:
        for j in range(cards, 0, -1):
            e[j] += e[j - 1] * count
    ways = 0.0
    for j in range(cards + 1):
        rest = cards - j
        ways += _choose(cards, j) * e[j] * _factorial(j) * _falling(set_aside, rest)
    return ways / _falling(total, cards)


def _hypergeometric_at_least(cards: int, need: int, count: int, total: int) -> float:
    out = 0.0
    for got in range(need, min(cards, count) + 1):
        out += _choose(cards, got) * _choose(total - cards, count - got) / _choose(total, count)
    return out


def _choose(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


def _falling(n: int, k: int) -> float:
    out = 1.0
    for i in range(k):
        out *= n - i
    return out


def _factorial(n: int) -> float:
    return _falling(n, n)

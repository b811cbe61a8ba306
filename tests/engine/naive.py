"""A deliberately naive, independent reading of docs/rules.md §1–2, used as a
brute-force reference for the engine's classification and generation.

It works on (rank, suit) pairs with sorting and counting, sharing no code with
the engine's bitmask implementation.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

TWO = 12


def naive_kind(cards, *, north: bool):
    """'single', 'pair', 'triple', 'straight', 'pairs', 'quad' or None."""
    ranks = sorted(card.rank for card in cards)
    suits = [card.suit for card in cards]
    size = len(cards)
    counts = Counter(ranks)
    if size == 1:
        return "single"
    if len(counts) == 1:
        if size == 2:
            colours = {suit >= 2 for suit in suits}
            return "pair" if not north or len(colours) == 1 else None
        return {3: "triple", 4: "quad"}[size]
    distinct = sorted(counts)
    consecutive = distinct == list(range(distinct[0], distinct[0] + len(distinct)))
    if size >= 3 and len(distinct) == size and consecutive and TWO not in distinct:
        if north and len(set(suits)) != 1:
            return None
        return "straight"
    if size >= 6 and all(count == 2 for count in counts.values()) and consecutive and TWO not in distinct:
        return None if north else "pairs"
    return None


def _top(cards):
    return max(card.index for card in cards)


def _bomb(kind, size):
    if kind == "quad":
        return "TQ"
    if kind == "pairs":
        return "3DT" if size == 6 else "4DT"
    return None


def _target(kind, cards):
    if kind in ("quad", "pairs"):
        return _bomb(kind, len(cards))
    if all(card.rank == TWO for card in cards):
        return {"single": "2", "pair": "22", "triple": "222"}.get(kind)
    return None


SOUTH_CHOPS = {"2": {"3DT", "TQ", "4DT"}, "22": {"TQ", "4DT"}, "222": {"4DT"}, "3DT": {"TQ", "4DT"}, "TQ": {"4DT"}, "4DT": set()}
NORTH_CHOPS = {"2": {"TQ"}, "22": set(), "222": set(), "TQ": set()}


def naive_can_beat(play, top, *, north: bool) -> bool:
    kind_play, kind_top = naive_kind(play, north=north), naive_kind(top, north=north)
    if kind_play == kind_top and len(play) == len(top):
        higher = _top(play) > _top(top)
        if not north or kind_play == "quad":
            return higher
        top_suit = max(top, key=lambda card: card.index).suit
        play_suit = max(play, key=lambda card: card.index).suit
        is_two = all(card.rank == TWO for card in play)
        if kind_play == "single":
            return higher and (play_suit == top_suit or is_two)
        if kind_play == "pair":
            return higher and ((play_suit >= 2) == (top_suit >= 2) or is_two)
        if kind_play == "triple":
            return higher and sorted(c.suit for c in play) == sorted(c.suit for c in top)
        if kind_play == "straight":
            return higher and play_suit == top_suit
        return higher
    target = _target(kind_top, top)
    bomb = _bomb(kind_play, len(play))
    if target is None or bomb is None:
        return False
    if kind_play == kind_top == "pairs":  # runs of different lengths
        return len(play) > len(top) and bomb in (NORTH_CHOPS if north else SOUTH_CHOPS).get(target, set()) | {"4DT"}
    return bomb in (NORTH_CHOPS if north else SOUTH_CHOPS).get(target, set())


def naive_combos(hand, *, north: bool):
    """Every valid combination of ``hand``, as frozensets of card indices."""
    out = set()
    for size in range(1, len(hand) + 1):
        for subset in combinations(hand, size):
            if naive_kind(subset, north=north):
                out.add(frozenset(card.index for card in subset))
    return out

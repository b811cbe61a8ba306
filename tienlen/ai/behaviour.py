"""How each other seat has played so far, from the public action log: features of the learned scorer.

People and bots do not all play alike: a beginner dumps its lowest card,
passes at random and never holds back a 2; the heuristic leads pairs and runs
from its plan and passes on purpose.  The scorer (``normal+``) can only weigh a
move differently against different players if it sees how they played, so
every decision's context carries a few statistics of each opponent's past
actions (:func:`behaviour`), all of them public (every seat sees every play
and pass).

Leads and follows are told apart from the log alone: a play starts a round
when it is the first, when the previous play was the same seat's (everyone
else passed), or when it could not beat the previous play (another size, or a
lower top card, and no bomb).  A rare lead that happens to beat the last play
of the round before counts as a follow; these are statistics, not rules.

>>> from tienlen import Game, RULESETS
>>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H", "3C 3D KS", "JH QH 4C"])
>>> _ = game.play(0, "3S")
>>> _ = game.play(1, "6D")
>>> _ = game.pass_turn(2)
>>> row = behaviour(game.action_log, 4, [1, 2, 3])
>>> [round(value, 3) for value in row[:10]]  # seat 1 followed 3♠ with 6♦; seat 2 passed on it
[0.0, 0.5, 0.0, 1.0, 0.125, 0.0, 0.5, 0.5, 0.625, 0.0]
"""

from __future__ import annotations

from typing import Sequence

from tienlen.records import Action

__all__ = ["BEHAVIOUR_NAMES", "behaviour"]

PER_SEAT = ("lead_singles", "lead_rank", "pass_share", "pass_rank", "follow_jump")
"""For each opponent (in turn order, three slots): the share of its leads that
were single cards, the mean rank of its leads, the share of its turns while
following that it passed, the mean rank of the single cards it passed on (one
who always beats when it can passes only on high ones), and by how
many ranks its follows beat the play below them.  Means are shrunk towards a
neutral value by one pseudo-observation, so that a seat seen once is not extreme."""
BEHAVIOUR_NAMES = tuple(f"opponent_{slot}_{name}" for slot in range(3) for name in PER_SEAT)

_NEUTRAL_RANK = 6.0
_NEUTRAL_PASS_RANK = 12.0
"""A greedy player passes only on plays it cannot beat (high ones): the prior of one pass."""


class _Seat:
    __slots__ = ("leads", "lead_singles", "lead_ranks", "follows", "jumps", "passes", "single_passes", "pass_ranks")

    def __init__(self) -> None:
        self.leads = self.lead_singles = self.follows = self.passes = self.single_passes = 0
        self.lead_ranks = self.jumps = self.pass_ranks = 0.0

    def features(self) -> list[float]:
        leads, turns = self.leads + 1, self.passes + self.follows + 1
        return [
            self.lead_singles / leads,
            (self.lead_ranks + _NEUTRAL_RANK) / leads / 12.0,
            self.passes / turns,
            (self.pass_ranks + _NEUTRAL_PASS_RANK) / (self.single_passes + 1) / 12.0,
            self.jumps / (self.follows + 1) / 12.0,
        ]


def behaviour(actions: Sequence[Action], players: int, opponents: Sequence[int]) -> list[float]:
    """:data:`BEHAVIOUR_NAMES`, for ``opponents`` (up to three seats, in
    order; missing slots are zeros) from the public ``actions`` so far."""
    seats = [_Seat() for _ in range(players)]
    last_mask = last_seat = -1
    for kind, seat, mask in actions:
        if kind == "play":
            size, top = mask.bit_count(), mask.bit_length() - 1
            record = seats[seat]
            if last_mask < 0 or last_seat == seat or _cannot_follow(mask, size, top, last_mask):
                record.leads += 1
                record.lead_singles += size == 1
                record.lead_ranks += top >> 2
            else:
                record.follows += 1
                record.jumps += max(0, (top >> 2) - ((last_mask.bit_length() - 1) >> 2))
            last_mask, last_seat = mask, seat
        elif kind in ("pass", "timeout") and last_mask >= 0:
            record = seats[seat]
            record.passes += 1
            if last_mask.bit_count() == 1:
                record.single_passes += 1
                record.pass_ranks += (last_mask.bit_length() - 1) >> 2
    row: list[float] = []
    for slot in range(3):
        row += seats[opponents[slot]].features() if slot < len(opponents) else [0.0] * len(PER_SEAT)
    return row


def _cannot_follow(mask: int, size: int, top: int, last_mask: int) -> bool:
    """Whether a play could not have beaten ``last_mask`` as a follow (so it led a new round).
    Only a bomb may follow a play of another size: chopping 2s or a smaller bomb."""
    if size == last_mask.bit_count():
        return top < last_mask.bit_length() - 1
    return not (_is_bomb(mask, size, top) and (last_mask >> 48 or _is_bomb(last_mask, last_mask.bit_count(),
                                                                            last_mask.bit_length() - 1)))


def _is_bomb(mask: int, size: int, top: int) -> bool:
    """Four of a kind, or three or more consecutive pairs (2s excluded)."""
    rank = top >> 2
    if size == 4:
        return (mask >> (4 * rank)) & 0xF == 0xF
    if size < 6 or size % 2 or rank == 12:
        return False
    return all(((mask >> (4 * (rank - step))) & 0xF).bit_count() == 2 for step in range(size // 2))

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
else passed), or when the rules would not let it beat the previous play
(:meth:`~tienlen.rules.RuleSet.can_beat`).  A rare lead that happens to beat
the last play of the round before counts as a follow; these are statistics.

>>> from tienlen import Game, RULESETS
>>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H", "3C 3D KS", "JH QH 4C"])
>>> _ = game.play(0, "3S")
>>> _ = game.play(1, "6D")
>>> _ = game.pass_turn(2)
>>> row = behaviour(game.action_log, game.rules, 4, [1, 2, 3])
>>> [round(value, 3) for value in row[:10]]  # seat 1 followed 3♠ with 6♦; seat 2 passed on it
[0.0, 0.5, 0.0, 1.0, 0.125, 0.0, 0.5, 0.5, 0.625, 0.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from tienlen.combos import Combo, classify
from tienlen.records import Action

if TYPE_CHECKING:
    from tienlen.rules import RuleSet

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


def behaviour(actions: Sequence[Action], rules: "RuleSet", players: int, opponents: Sequence[int]) -> list[float]:
    """:data:`BEHAVIOUR_NAMES`, for ``opponents`` (up to three seats, in
    order; missing slots are zeros) from the public ``actions`` so far."""
    seats = [_Seat() for _ in range(players)]
    last: Combo | None = None
    last_seat = -1
    for kind, seat, mask in actions:
        if kind == "play":
            play = classify(mask, rules)
            record = seats[seat]
            if last is None or last_seat == seat or not rules.can_beat(play, last):
                record.leads += 1
                record.lead_singles += play[3] == 1
                record.lead_ranks += play[2] >> 2
            else:
                record.follows += 1
                record.jumps += max(0, (play[2] >> 2) - (last[2] >> 2))
            last, last_seat = play, seat
        elif kind in ("pass", "timeout") and last is not None:
            record = seats[seat]
            record.passes += 1
            if last[3] == 1:
                record.single_passes += 1
                record.pass_ranks += last[2] >> 2
    row: list[float] = []
    for slot in range(3):
        row += seats[opponents[slot]].features() if slot < len(opponents) else [0.0] * len(PER_SEAT)
    return row

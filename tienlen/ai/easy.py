"""The ``easy`` level: the engine's baseline (lowest legal combo) with some randomness.

It plays like a beginner: usually the lowest play that is legal, sometimes a
random legal play, sometimes a pass although it could beat.  Out of turn it
notices a free 4-đôi-thông chop only half of the time.

:class:`GreedyPlayer` is the same rule without the randomness (always the
lowest legal play, never a voluntary pass, every free chop taken): a plain
"lowest card first" bot, used by the benchmarks as a player that is not ours.

:func:`lowest_policy` is the same rule on a
:class:`~tienlen.ai.situation.Situation`, for play-outs and labels.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Callable, Sequence

from tienlen.combos import Combo

if TYPE_CHECKING:
    from tienlen.ai.situation import Situation
    from tienlen.game import SeatView

__all__ = ["EasyPlayer", "GreedyPlayer", "lowest_key", "lowest_choice", "lowest_policy", "EASY", "GREEDY"]

EASY = (0.15, 0.1, 0.5)
"""``easy``'s chances: (wander, lazy, notice_chop)."""
GREEDY = (0.0, 0.0, 1.0)
"""``greedy``: no randomness."""


def lowest_key(combo: Combo) -> tuple[bool, int, int]:
    """Order of :func:`tienlen.ai.lowest`: bombs last, then by top card, then size."""
    return (combo.bomb is not None, combo[2], combo[3])


def lowest_choice(plays: Sequence[Combo], on_turn: bool, following: bool, rng: random.Random,
                  wander: float, lazy: float, notice_chop: float) -> Combo | None:
    """The lowest legal combo, with a ``wander`` chance of a random one and a
    ``lazy`` chance of passing when following; out of turn, a chop taken with
    chance ``notice_chop``.  (The order of the draws is part of the contract:
    seeded play-outs and labels repeat the same luck.)"""
    if not plays:
        return None
    if not on_turn:
        return min(plays, key=lowest_key) if rng.random() < notice_chop else None
    if following and rng.random() < lazy:
        return None
    if rng.random() < wander:
        return rng.choice(plays)
    return min(plays, key=lowest_key)


def lowest_policy(rng: random.Random, chances: tuple[float, float, float] = EASY) -> "Callable[[Situation], Combo | None]":
    """:func:`lowest_choice` on a Situation, drawing from ``rng`` (``easy`` by
    default; :data:`GREEDY` for the lowest-card bot)."""

    def move(situation: "Situation") -> Combo | None:
        return lowest_choice(situation.legal, situation.on_turn, situation.top is not None, rng, *chances)

    return move


class EasyPlayer:
    """``easy``: lowest legal combo, with a ``wander`` chance of a random legal
    play and a ``lazy`` chance of passing when it could follow.

    >>> from tienlen import Game, RULESETS
    >>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H"])
    >>> EasyPlayer(wander=0.0).choose(game.view(0), random.Random(1))
    Combo(SINGLE, '3S')
    """

    level = "easy"

    def __init__(self, wander: float = EASY[0], lazy: float = EASY[1], notice_chop: float = EASY[2]) -> None:
        self.wander = wander
        self.lazy = lazy
        self.notice_chop = notice_chop

    def choose(self, view: "SeatView", rng: random.Random) -> Combo | None:
        return lowest_choice(view.legal_plays, view.turn == view.seat, view.top is not None, rng,
                             self.wander, self.lazy, self.notice_chop)


class GreedyPlayer(EasyPlayer):
    """Lowest legal combo every time (bombs last), every free chop taken.

    >>> from tienlen import Game, RULESETS
    >>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H"])
    >>> GreedyPlayer().choose(game.view(0), random.Random(1))
    Combo(SINGLE, '3S')
    """

    level = "greedy"

    def __init__(self) -> None:
        super().__init__(*GREEDY)

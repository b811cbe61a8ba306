"""The ``easy`` level: the engine's baseline (lowest legal combo) with some randomness.

It plays like a beginner: usually the lowest play that is legal, sometimes a
random legal play, sometimes a pass although it could beat.  Out of turn it
notices a free 4-đôi-thông chop only half of the time.

:class:`GreedyPlayer` is the same rule without the randomness (always the
lowest legal play, never a voluntary pass, every free chop taken): a plain
"lowest card first" bot, used by the benchmarks as a player that is not ours.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tienlen.combos import Combo

if TYPE_CHECKING:
    from tienlen.game import SeatView

__all__ = ["EasyPlayer", "GreedyPlayer", "lowest_key"]


def lowest_key(combo: Combo) -> tuple[bool, int, int]:
    """Order of :func:`tienlen.ai.lowest`: bombs last, then by top card, then size."""
    return (combo.bomb is not None, combo[2], combo[3])


class EasyPlayer:
    """``easy``: lowest legal combo, with a ``wander`` chance of a random legal
    play and a ``lazy`` chance of passing when it could follow.

    >>> from tienlen import Game, RULESETS
    >>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H"])
    >>> EasyPlayer(wander=0.0).choose(game.view(0), random.Random(1))
    Combo(SINGLE, '3S')
    """

    level = "easy"

    def __init__(self, wander: float = 0.15, lazy: float = 0.1, notice_chop: float = 0.5) -> None:
        self.wander = wander
        self.lazy = lazy
        self.notice_chop = notice_chop

    def choose(self, view: "SeatView", rng: random.Random) -> Combo | None:
        plays = view.legal_plays
        if not plays:
            return None
        if view.turn != view.seat:
            return min(plays, key=lowest_key) if rng.random() < self.notice_chop else None
        if view.top is not None and rng.random() < self.lazy:
            return None
        if rng.random() < self.wander:
            return rng.choice(plays)
        return min(plays, key=lowest_key)


class GreedyPlayer(EasyPlayer):
    """Lowest legal combo every time (bombs last), every free chop taken.

    >>> from tienlen import Game, RULESETS
    >>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H"])
    >>> GreedyPlayer().choose(game.view(0), random.Random(1))
    Combo(SINGLE, '3S')
    """

    level = "greedy"

    def __init__(self) -> None:
        super().__init__(wander=0.0, lazy=0.0, notice_chop=1.0)

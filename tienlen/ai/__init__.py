"""Players that choose plays for a seat.

:func:`lowest` is the baseline: the lowest legal combination, or a pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tienlen.combos import Combo

if TYPE_CHECKING:
    from tienlen.game import Game

__all__ = ["lowest"]


def lowest(game: "Game", seat: int) -> Combo | None:
    """The lowest legal play for ``seat`` on its turn (bombs last), or None to pass.

    >>> from tienlen import Game, RULESETS
    >>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H"])
    >>> lowest(game, 0)
    Combo(SINGLE, '3S')
    """
    if game.turn != seat:
        return None
    plays = game.legal_plays(seat)
    if not plays:
        return None
    return min(plays, key=lambda combo: (combo.bomb is not None, combo.top, combo.size))

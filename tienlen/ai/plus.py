"""The ``normal`` level since issue 23 (``normal+``): the heuristic's options re-ranked by a learned scorer.

On its turn it scores every distinct legal play (and passing, when allowed)
with a model trained on true-deal play-outs (:mod:`tienlen.ai.train`) from
features its seat may see (:mod:`tienlen.ai.features`), and plays the best.
Going out is played at once; out of turn (a 4-đôi-thông chop), and under
rules or table sizes its model was not trained on, it answers as ``normal``
does.  It reads only a :class:`~tienlen.ai.situation.Situation`,
so it also runs inside ``hard``'s play-outs and the labelling play-outs.

The shipped weights are ``weights/normal_plus.npz`` beside this module.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tienlen.ai.features import Decision
from tienlen.ai.model import Model, load
from tienlen.ai.normal import DEFAULT_WEIGHTS, normal_move
from tienlen.ai.situation import Situation
from tienlen.combos import Combo

if TYPE_CHECKING:
    from tienlen.game import SeatView

__all__ = ["NormalPlusPlayer", "plus_move", "ranked_options", "shipped_model", "SHIPPED_WEIGHTS"]

SHIPPED_WEIGHTS = Path(__file__).with_name("weights") / "normal_plus.npz"


@lru_cache(maxsize=1)
def shipped_model() -> Model:
    """The model shipped with the repository (loaded once per process)."""
    return load(SHIPPED_WEIGHTS)


class NormalPlusPlayer:
    """``normal+``: deterministic (``rng`` is unused), like ``normal``."""

    level = "normal+"

    def __init__(self, model: Model | None = None, *, level: str = "normal+") -> None:
        self.model = model if model is not None else shipped_model()
        self.level = level  # "normal" when it plays the bot's normal level

    def choose(self, view: "SeatView", rng: random.Random) -> Combo | None:
        return plus_move(Situation.from_view(view), self.model)


def plus_move(situation: Situation, model: Model) -> Combo | None:
    """The learned scorer's move: a legal combo, or None to pass / decline."""
    legal = situation.legal
    if not legal:
        return None
    if not situation.on_turn or not model.covers(situation.rules.name, situation.players):
        return normal_move(situation, DEFAULT_WEIGHTS)
    if len(legal) == 1 and situation.top is None:
        return legal[0]
    decision = Decision(situation)
    if decision.finishing is not None or len(decision.moves) == 1:
        return decision.moves[decision.finishing or 0]
    values = model.predict(decision.compute_rows())
    return decision.moves[int(np.argmax(values))]


def ranked_options(situation: Situation, model: Model) -> list[tuple[float, Combo | None]]:
    """Every option with the model's value, best first (for ``hard``'s candidates).
    Going out, when possible, comes first with an infinite value."""
    decision = Decision(situation)
    if decision.finishing is not None:
        return [(float("inf"), decision.moves[decision.finishing])]
    values = model.predict(decision.compute_rows())
    order = sorted(range(len(decision.moves)), key=lambda index: (-values[index], index))
    return [(float(values[index]), decision.moves[index]) for index in order]

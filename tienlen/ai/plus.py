"""The ``normal`` level since issue 23 (``normal+``): the heuristic's options re-ranked by a learned scorer.

On its turn it scores every distinct legal play (and passing, when allowed)
with a model trained on true-deal play-outs (:mod:`tienlen.ai.train`) from
features its seat may see (:mod:`tienlen.ai.features`), and plays the best.
Going out is played at once; out of turn (a 4-đôi-thông chop), and under
rules or table sizes where its model does not play, it answers as the
heuristic (``normal`` before issue 23) does.  The shipped model was trained at
4-player mien-nam and plays wherever it was measured to beat the heuristic
(:meth:`~tienlen.ai.model.Model.covers`: every preset and table size but
mien-bac with 2 or 3 players, BENCHMARKS.md, issue 44, fourth step).  There a
scorer trained under those rules and sizes stands in for it (:func:`for_table`,
:data:`RULES_WEIGHTS`; issue 44, fifth step), so every table has a learned
scorer.  It reads only a :class:`~tienlen.ai.situation.Situation`, so it also
runs inside ``hard``'s play-outs and the labelling play-outs.

The shipped weights are ``weights/normal_plus.npz`` and
``weights/normal_plus_mien_bac.npz`` beside this module.  Told
every seat's public AI level (as the bot tells it), it plays a table whose
other seats are all AI of one level with a scorer trained against that level,
where one is shipped (:data:`SPECIALIST_WEIGHTS`); people, and mixed tables,
meet the general scorer.
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
    from collections.abc import Sequence

    from tienlen.game import SeatView

__all__ = ["NormalPlusPlayer", "plus_move", "ranked_options", "shipped_model", "specialist_model", "rules_models",
           "for_table", "plays_at", "load_models", "table_level", "table_scorer", "SHIPPED_WEIGHTS",
           "SPECIALIST_WEIGHTS", "RULES_WEIGHTS"]

SHIPPED_WEIGHTS = Path(__file__).with_name("weights") / "normal_plus.npz"
SPECIALIST_WEIGHTS = {"easy": SHIPPED_WEIGHTS.with_name("normal_plus_vs_easy.npz")}
"""Scorers trained against one level: played when every other seat is an AI of it."""
RULES_WEIGHTS = (SHIPPED_WEIGHTS.with_name("normal_plus_mien_bac.npz"),)
"""Scorers trained under rules and table sizes the general scorer does not cover
(:func:`for_table`): Northern rules with 2 or 3 players."""


@lru_cache(maxsize=1)
def shipped_model() -> Model:
    """The model shipped with the repository (loaded once per process)."""
    return load(SHIPPED_WEIGHTS)


@lru_cache(maxsize=None)
def specialist_model(level: str) -> Model:
    """The scorer shipped for tables whose other seats all play at ``level``."""
    return load(SPECIALIST_WEIGHTS[level])


@lru_cache(maxsize=1)
def rules_models() -> tuple[Model, ...]:
    """The scorers of :data:`RULES_WEIGHTS` (loaded once per process)."""
    return tuple(load(path) for path in RULES_WEIGHTS)


def for_table(model: Model, preset: str, players: int) -> Model:
    """``model`` where it plays (:meth:`~tienlen.ai.model.Model.covers`), else the
    shipped scorer trained under those rules and that table size, if any, else
    ``model`` (which then leaves the move to the heuristic).

    >>> general = shipped_model()
    >>> for_table(general, "iwin", 4) is general
    True
    >>> for_table(general, "mien-bac", 3).covers("mien-bac", 3), general.covers("mien-bac", 3)
    (True, False)
    """
    if model.covers(preset, players):
        return model
    return next((other for other in rules_models() if other.covers(preset, players)), model)


def plays_at(model: Model, preset: str, players: int) -> bool:
    """Whether ``model`` or the rules scorer that stands in for it plays at this table."""
    return for_table(model, preset, players).covers(preset, players)


def load_models() -> None:
    """Load the general scorer, every specialist and the rules scorers now (a bot does it at start-up)."""
    shipped_model()
    for level in SPECIALIST_WEIGHTS:
        specialist_model(level)
    rules_models()


def table_level(levels: "Sequence[str | None]", seat: int) -> str | None:
    """The one public AI level every seat but ``seat`` plays at, or None
    (a person among them, or mixed levels).

    >>> table_level(("easy", None, "easy", "easy"), 1)
    'easy'
    >>> table_level(("easy", None, "normal", "easy"), 1) is None
    True
    >>> table_level(("easy", None, "easy", "easy"), 0) is None
    True
    """
    others = {level for index, level in enumerate(levels) if index != seat}
    return others.pop() if len(others) == 1 else None


class NormalPlusPlayer:
    """``normal+``: deterministic (``rng`` is unused), like ``normal``.

    ``levels`` (every seat's public AI level, None for a person), given here or
    to :meth:`choose`, picks a specialist scorer when every other seat is an
    AI of a level that has one.
    """

    level = "normal+"

    def __init__(self, model: Model | None = None, *, level: str = "normal+",
                 levels: "Sequence[str | None] | None" = None) -> None:
        self.model = model if model is not None else shipped_model()
        self.level = level  # "normal" when it plays the bot's normal level
        self.levels = levels

    def choose(self, view: "SeatView", rng: random.Random,
               levels: "Sequence[str | None] | None" = None) -> Combo | None:
        situation = Situation.from_view(view)
        return plus_move(situation, self.model_for(levels, view.seat, situation))

    def model_for(self, levels: "Sequence[str | None] | None", seat: int,
                  situation: Situation | None = None) -> Model:
        """The specialist for this table's other seats (``levels``, else those
        given at construction) where it covers ``situation``, else the general scorer."""
        return table_scorer(levels or self.levels, seat, self.model, situation)


def table_scorer(levels: "Sequence[str | None] | None", seat: int, general: Model,
                 situation: Situation | None = None) -> Model:
    """The specialist for the one level of every seat but ``seat`` (``levels``:
    each seat's public level), where one is shipped and, given ``situation``,
    covers its rules and table size; else ``general`` (which may cover rules
    that the specialist does not)."""
    opponents = table_level(levels, seat) if levels else None
    if opponents not in SPECIALIST_WEIGHTS:
        return general
    specialist = specialist_model(opponents)
    if situation is not None and not specialist.covers(situation.rules.name, situation.players):
        return general
    return specialist


def plus_move(situation: Situation, model: Model) -> Combo | None:
    """The learned scorer's move: a legal combo, or None to pass / decline."""
    legal = situation.legal
    if not legal:
        return None
    model = for_table(model, situation.rules.name, situation.players)
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
    model = for_table(model, situation.rules.name, situation.players)
    decision = Decision(situation)
    if decision.finishing is not None:
        return [(float("inf"), decision.moves[decision.finishing])]
    values = model.predict(decision.compute_rows())
    order = sorted(range(len(decision.moves)), key=lambda index: (-values[index], index))
    return [(float(values[index]), decision.moves[index]) for index in order]

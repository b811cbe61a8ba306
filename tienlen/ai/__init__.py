"""AI players: they choose a play for one seat from what that seat may know.

Every level implements ``choose(view, rng) -> Combo | None`` over a
:class:`~tienlen.game.SeatView` (None = pass, or decline an out-of-turn
chop) and only ever returns one of ``view.legal_plays``:

* ``easy`` — :class:`~tienlen.ai.easy.EasyPlayer`: lowest legal combo, a little random;
* ``normal`` — :class:`~tienlen.ai.plus.NormalPlusPlayer` ("normal+"): every legal
  option ranked by a small learned scorer (:mod:`tienlen.ai.train`, trained on
  true-deal play-outs) over the heuristic's features (the default for AI seats and
  AFK take-over); told the table's public levels, it meets a table of ``easy``
  AI seats with a scorer trained against them.  Trained at 4-player mien-nam,
  the scorer also plays wherever it was measured to beat the heuristic (every
  preset and table size but mien-bac with 2 or 3 players); there a scorer
  trained under those rules and sizes plays instead;
* ``hard`` — :class:`~tienlen.ai.hard.HardPlayer`: determinized Monte Carlo search
  over the learned scorer's best moves, by expected settlement, within a time budget.

Also for benchmarks: ``heuristic`` — :class:`~tienlen.ai.normal.NormalPlayer`
(hand decomposition, control, card counting, preset-aware money: ``normal``
until issue 23, still the model of the other seats inside ``hard``'s search)
and ``greedy`` (lowest card first).

:func:`decide` is the entry point for worker processes: a module-level
function of picklable arguments that returns a card mask (or None).

The bot calls it through :class:`runtime.ai.AiRunner`: ``easy`` and
``normal`` answer in well under 5 ms in the bot's process (AFK take-over
uses ``normal``); ``hard`` runs in a bounded process pool and falls back to
``normal`` when no worker is free within its budget.  Out of turn,
``decide`` returns the 4-đôi-thông chop to play or None to let it go (see
:func:`tienlen.ai.arena.offer_out_of_turn`).

:func:`lowest` is the original baseline over a whole :class:`~tienlen.game.Game`.

>>> from tienlen import Game, RULESETS
>>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H"])
>>> decide(game.view(0), "normal", seed=1)  # the mask of 3♠ 4♠ 5♠: cards 0, 4, 8
273
>>> LEVELS
('easy', 'normal', 'hard')
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tienlen.ai.arena import Player, play_game
from tienlen.ai.easy import EasyPlayer, GreedyPlayer, lowest_key
from tienlen.ai.hard import DEFAULT_BUDGET_MS, HardPlayer
from tienlen.ai.normal import NormalPlayer
from tienlen.combos import Combo

if TYPE_CHECKING:
    from tienlen.game import Game, SeatView

__all__ = [
    "LEVELS",
    "DEFAULT_LEVEL",
    "DEFAULT_BUDGET_MS",
    "Player",
    "BENCH_LEVELS",
    "EasyPlayer",
    "GreedyPlayer",
    "NormalPlayer",
    "HardPlayer",
    "make_player",
    "decide",
    "play_game",
    "lowest",
]

LEVELS = ("easy", "normal", "hard")
DEFAULT_LEVEL = "normal"
BENCH_LEVELS = ("heuristic", "normal+", "greedy")
"""Players for measurements, not offered to the bot: the hand-written heuristic
(``normal`` before the learned scorer), ``normal+`` (another name of ``normal``)
and a plain lowest-card bot."""


def make_player(level: str = DEFAULT_LEVEL, *, budget_ms: float = DEFAULT_BUDGET_MS) -> Player:
    """A player of ``level`` (one of :data:`LEVELS` or :data:`BENCH_LEVELS`);
    ``budget_ms`` is for ``hard``.

    >>> make_player("hard", budget_ms=50).budget_ms
    50
    """
    if level == "easy":
        return EasyPlayer()
    if level in ("normal", "normal+"):
        from tienlen.ai.plus import NormalPlusPlayer  # needs numpy and the shipped weights

        return NormalPlusPlayer(level=level)
    if level == "hard":
        return HardPlayer(budget_ms)
    if level == "heuristic":
        return NormalPlayer()
    if level == "greedy":
        return GreedyPlayer()
    raise ValueError(f"unknown AI level {level!r}; choose one of {', '.join(LEVELS)}")


_PLAYERS: dict[tuple[str, float], Player] = {}
_TOLD_LEVELS = ("normal", "normal+", "hard")
"""Levels whose players use the table's public levels (``choose(view, rng, levels)``)."""


def decide(view: "SeatView", level: str = DEFAULT_LEVEL, seed: int = 0, budget_ms: int = DEFAULT_BUDGET_MS,
           levels: "tuple[str | None, ...] | None" = None) -> int | None:
    """The mask of the cards ``view``'s seat should play now, or None to pass
    (or to decline an out-of-turn chop).  ``levels``: every seat's public AI
    level (None for a person): ``hard`` models the AI seats by it, and ``normal``
    picks a specialist scorer when every other seat is an AI of one level.

    Pure and picklable, for ``ProcessPoolExecutor.submit(decide, view, level,
    seed, budget_ms, levels)``; the bot then calls ``game.play(seat, mask)``.
    """
    key = (level, float(budget_ms))
    player = _PLAYERS.get(key)
    if player is None:
        player = _PLAYERS[key] = make_player(level, budget_ms=budget_ms)
    if levels is not None and level in _TOLD_LEVELS:
        move = player.choose(view, random.Random(seed), levels)
    else:
        move = player.choose(view, random.Random(seed))
    return None if move is None else move.mask


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
    return min(plays, key=lowest_key)

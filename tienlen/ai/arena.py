"""Playing whole games between AI players: the loop used by tests, the benchmark
and the terminal game.

:func:`play_game` drives a :class:`~tienlen.game.Game` to its end, asking
each seat's player through its :class:`~tienlen.game.SeatView` only, and
offering out-of-turn chops (4 đôi thông) to the other seats after every play,
as the bot does.  ``observe`` sees every decision (for latency measurements
and legality checks).

:func:`play_out` finishes a game with one *policy* per seat (a function of that
seat's :class:`~tienlen.ai.situation.Situation`): the loop of search play-outs
and training labels, where building a full view for every move would cost more
than the move.

>>> from tienlen import Game, RULESETS
>>> from tienlen.ai import make_player
>>> game = Game.deal(RULESETS["mien-nam"], 4, seed=3)
>>> players = [make_player("normal"), make_player("easy"), make_player("easy"), make_player("easy")]
>>> play_game(game, players, seed=3).finished
True
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from tienlen.ai.situation import Situation
from tienlen.combos import Combo

if TYPE_CHECKING:
    from tienlen.game import Game, SeatView

__all__ = ["Player", "Observer", "Policy", "play_game", "play_out", "chop_out_of_turn", "apply_move", "offer_out_of_turn", "MAX_ACTIONS"]

MAX_ACTIONS = 2_000
"""No real game comes close (52 cards, every pass ends a round soon)."""


class Player(Protocol):
    """What every AI level provides."""

    level: str

    def choose(self, view: "SeatView", rng: random.Random) -> Combo | None:
        """A play from ``view.legal_plays``, or None (pass / decline a chop)."""


Observer = Callable[[int, "SeatView", "Combo | None", float], None]
"""Called as ``observe(seat, view, move, seconds)`` after each decision."""
Policy = Callable[[Situation], "Combo | None"]
"""A seat's play from its own knowledge: on its turn, or out of turn (a chop or None)."""


def apply_move(game: "Game", seat: int, move: Combo | None) -> None:
    """Play ``move`` for ``seat``, or pass when it is None."""
    if move is None:
        game.pass_turn(seat)
    else:
        game.play(seat, move)


def _decide(player: "Player", game: "Game", seat: int, rng: random.Random, observe: Observer | None):
    view = game.view(seat)
    start = time.perf_counter()
    move = player.choose(view, rng)
    if observe is not None:
        observe(seat, view, move, time.perf_counter() - start)
    return move


def offer_out_of_turn(
    game: "Game",
    players: Sequence["Player | None"],
    rngs: Sequence[random.Random],
    observe: Observer | None = None,
) -> bool:
    """Ask the seats that may chop out of turn right now, in seat order after
    the top's owner; play the first chop accepted.  Returns whether one was.
    Seats whose player is None (humans) are skipped."""
    top = game.top
    if top is None or top.chop_target is None or not game.rules.four_pairs_out_of_turn:
        return False
    owner = game.top_owner if game.top_owner is not None else 0
    for step in range(1, game.players):
        seat = (owner + step) % game.players
        player = players[seat]
        if player is None or seat == game.turn or not game.legal_plays(seat):
            continue
        move = _decide(player, game, seat, rngs[seat], observe)
        if move is not None:
            game.play(seat, move)
            return True
    return False


def play_game(
    game: "Game",
    players: Sequence["Player"],
    *,
    seed: int = 0,
    observe: Observer | None = None,
    max_actions: int = MAX_ACTIONS,
) -> "Game":
    """Play ``game`` to the end with one player per seat; returns the game.

    Each seat gets its own ``random.Random`` derived from ``seed``.
    """
    rngs = [random.Random(seed * 1_000_003 + seat) for seat in range(game.players)]
    for _ in range(max_actions):
        if game.finished:
            return game
        if offer_out_of_turn(game, players, rngs, observe):
            continue
        seat = game.turn
        assert seat is not None
        apply_move(game, seat, _decide(players[seat], game, seat, rngs[seat], observe))
    if not game.finished:
        raise RuntimeError(f"game did not finish within {max_actions} actions")
    return game


def play_out(game: "Game", policies: Sequence[Policy], max_actions: int = MAX_ACTIONS, *,
             decliner: int | None = None, declined: Combo | None = None) -> "Game":
    """Finish ``game`` with one policy per seat (each seeing only its own
    hand), offering out-of-turn chops as the table does; ``decliner`` is not
    offered a chop on the top ``declined`` again (it let it go)."""
    for _ in range(max_actions):
        if game.finished:
            return game
        skip = decliner if declined is not None and game.top is declined else None
        if game.rules.four_pairs_out_of_turn and chop_out_of_turn(game, policies, skip):
            continue
        seat = game.turn
        assert seat is not None
        if game.top is not None and not game.legal_plays(seat):
            game.pass_turn(seat)  # nothing beats the top: no need to think
            continue
        apply_move(game, seat, policies[seat](Situation.from_game(game, seat)))
    raise RuntimeError("play-out did not finish")


def chop_out_of_turn(game: "Game", policies: Sequence[Policy], skip: int | None = None) -> bool:
    """Offer the seats that may chop out of turn now (in seat order after the
    top's owner, ``skip`` aside) to their policies; play the first chop taken."""
    top = game.top
    if top is None or top.chop_target is None:
        return False
    owner = game.top_owner if game.top_owner is not None else 0
    for step in range(1, game.players):
        seat = (owner + step) % game.players
        if seat == game.turn or seat == skip or not game.legal_plays(seat):
            continue
        move = policies[seat](Situation.from_game(game, seat))
        if move is not None:
            game.play(seat, move)
            return True
    return False

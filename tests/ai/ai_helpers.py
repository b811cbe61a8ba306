"""Shared helpers for the AI tests: fast players of every level, a legality
checker, and a driver that mixes AI moves with time-outs and leaves."""

from __future__ import annotations

import random

from tienlen import RULESETS, Game
from tienlen.ai import EasyPlayer, HardPlayer, NormalPlayer
from tienlen.ai.arena import apply_move, offer_out_of_turn

PRESETS = sorted(RULESETS)


def trained_only(model):
    """``model`` without the settings it was measured to transfer to: it covers
    only 4-player mien-nam, where it was trained."""
    import dataclasses

    return dataclasses.replace(model, info={"presets": ["mien-nam"], "players": [4]})


def without_rules_scorers(monkeypatch) -> None:
    """Take away the scorers trained for the rules the general one does not cover
    (:data:`tienlen.ai.plus.RULES_WEIGHTS`): there the heuristic then decides, as before them."""
    import tienlen.ai.plus as plus

    monkeypatch.setattr(plus, "rules_models", lambda: ())


def fast_players() -> dict[str, object]:
    """One player per level (``normal`` is the learned scorer), the heuristic,
    and ``hard`` with and without the learned scorer and with the opponent model
    and two chains; ``hard`` searches a few deterministic worlds."""
    from tienlen.ai.plus import NormalPlusPlayer

    return {
        "easy": EasyPlayer(),
        "normal": NormalPlusPlayer(level="normal"),
        "hard": HardPlayer(samples=2, width=3, burn_in_steps=10, thinning=2, scorer="shipped", search_chops=True),
        "heuristic": NormalPlayer(),
        "hard-heuristic": HardPlayer(samples=2, width=3, burn_in_steps=10, thinning=2, scorer=None),
        "hard-typed": HardPlayer(samples=2, width=3, burn_in_steps=10, thinning=2, types="heuristic:1,easy:1,greedy:1",
                                 chains=2, batch=2),
    }


class CheckedPlayer:
    """Wraps a player and asserts every answer is one the engine allows."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.level = inner.level
        self.decisions = 0

    def choose(self, view, rng):
        move = self.inner.choose(view, rng)
        self.decisions += 1
        on_turn = view.turn == view.seat
        if move is None:
            assert not on_turn or view.top is not None, "passed while leading"
        else:
            assert move in view.legal_plays, f"{self.level} chose {move!r}, not a legal play"
        return move


def new_game(preset: str, players: int, seed: int, first_game: bool = True) -> Game:
    previous = None if first_game else seed % players
    return Game.deal(RULESETS[preset], players, seed, first_game=first_game, previous_winner=previous)


def play_with_accidents(game: Game, players, seed: int, accident_rate: float = 0.03, max_actions: int = 2000) -> Game:
    """Play to the end, now and then replacing a move by a time-out or a
    leave (so the AI meets logs with those actions)."""
    rng = random.Random(seed)
    rngs = [random.Random(seed * 31 + seat) for seat in range(game.players)]
    for _ in range(max_actions):
        if game.finished:
            return game
        if offer_out_of_turn(game, players, rngs):
            continue
        seat = game.turn
        roll = rng.random()
        if roll < accident_rate / 4:
            game.leave(seat)
        elif roll < accident_rate:
            game.timeout(seat)
        else:
            apply_move(game, seat, players[seat].choose(game.view(seat), rngs[seat]))
    raise AssertionError("the game did not finish")

"""Helpers for the docs/rules.md specification tests (tests/engine/test_spec_*.py).

Every scenario is built by hand with ``Game(rules, hands)`` so each test is
exact, and driven through the public API only.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tienlen import RULESETS, Game, IllegalPlayError, RuleSet, classify

SOUTH = ("mien-nam", "iwin")
ALL = ("mien-nam", "iwin", "mien-bac")

PASS = "pass"
TIMEOUT = "timeout"
LEAVE = "leave"


def ruleset(preset: "str | RuleSet", **changes) -> RuleSet:
    """A preset by name (or a RuleSet), with optional field changes."""
    rules = RULESETS[preset] if isinstance(preset, str) else preset
    return replace(rules, **changes) if changes else rules


def new_game(preset, hands, *, options=None, **kwargs) -> Game:
    """``Game(ruleset(preset, **options), hands, **kwargs)``."""
    return Game(ruleset(preset, **(options or {})), hands, **kwargs)


def combo(preset, text):
    return classify(text, ruleset(preset))


def beats(preset, play: str, top: str) -> bool:
    """``rules.can_beat(classify(play), classify(top))``."""
    rules = ruleset(preset)
    return rules.can_beat(classify(play, rules), classify(top, rules))


def act(game: Game, seat: int, move: str):
    """One move: "pass", "timeout", "leave" or cards as text."""
    if move == PASS:
        return game.pass_turn(seat)
    if move == TIMEOUT:
        return game.timeout(seat)
    if move == LEAVE:
        return game.leave(seat)
    return game.play(seat, move)


def run(game: Game, moves):
    """Apply ``[(seat, move), ...]`` in order; returns the list of outcomes."""
    return [act(game, seat, move) for seat, move in moves]


def refused(game: Game, seat: int, move: str) -> str:
    """Assert that ``move`` is refused without changing the game; returns the error code."""
    before = game.to_json()
    with pytest.raises(IllegalPlayError) as info:
        act(game, seat, move)
    assert game.to_json() == before
    return info.value.code


def payments(game: Game) -> list[tuple[int, int, int, str]]:
    """Every payment as (payer, payee, units, reason), sorted."""
    return sorted((p.payer, p.payee, p.units, p.reason.value) for p in game.payments())


def net(game: Game) -> dict[int, int]:
    settlement = game.settlement()
    assert sum(settlement.values()) == 0
    return settlement


def later_game(preset, hands, winner=0, **kwargs) -> Game:
    """A later game (not the first) led by ``winner``."""
    return new_game(preset, hands, first_game=False, previous_winner=winner, **kwargs)


def chop_game(preset, target: str, bomb: str, **kwargs) -> Game:
    """A whole 4-player game with one chop: seat 3 leads ``target``, seat 0 plays ``bomb`` on it.

    Round 1: 3S 4S 5S 6S (everyone plays a card, so nobody is frozen), seat 3 wins.
    Round 2: seat 3 leads ``target``, seat 0 plays ``bomb``, all pass.
    Round 3: seat 0 plays 9S and goes out, seat 1 10S (2nd), seat 2 JS (3rd); seat 3
    is left with QS.  Places [0, 1, 2, 3].  ``target`` and ``bomb`` must avoid the
    spades 3 4 5 6 9 10 J Q.
    """
    game = later_game(preset, ["3S " + bomb + " 9S", "4S 10S", "5S JS", "6S " + target + " QS"], **kwargs)
    run(game, [
        (0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, PASS), (1, PASS), (2, PASS),
        (3, target), (0, bomb), (1, PASS), (2, PASS), (3, PASS),
        (0, "9S"), (1, "10S"), (2, "JS"),
    ])
    assert game.finished and game.places == [0, 1, 2, 3]
    return game

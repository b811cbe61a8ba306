"""What ``Game.play`` and ``Game.pass_turn`` return.

A listed play on turn takes the game's fast path, and the commonest
outcomes (a single, pair, triple or four played with the round going on; a
pass that ends the round) are made once and shared.  Whatever path it took,
an action's outcome and the state after it must be what the general path
gives for the same cards: each play below is also made from a copy of the
game with the cards as a list (classified again, the general path).
"""

import random

import pytest

from tienlen import RULESETS, Game
from tienlen.cards import cards_of
from tienlen.records import Action, Outcome


def state(game: Game):
    return (game.turn, game.top, game.finished, [game.hand_mask(seat) for seat in range(game.players)],
            game.passed, game.places, list(game.actions))


@pytest.mark.parametrize("preset", sorted(RULESETS))
def test_outcomes_match_the_general_path(preset):
    rules, rng = RULESETS[preset], random.Random(preset)
    checked_plays = checked_round_ends = 0
    for seed in range(60):
        game = Game.deal(rules, 4, seed)
        while not game.finished:
            seat = game.turn
            plays = game.legal_plays(seat)
            if plays and (game.top is None or rng.random() < 0.6):
                combo = rng.choice(plays)
                twin = game.copy()
                outcome = game.play(seat, combo)
                assert outcome == twin.play(seat, cards_of(combo.mask))
                assert outcome.action == Action("play", seat, combo.mask) and outcome.combo == combo
                assert state(game) == state(twin)
                checked_plays += 1
            else:
                outcome = game.pass_turn(seat)
                round_over = game.top is None and not game.finished
                if round_over:
                    checked_round_ends += 1
                if not outcome.stuck:
                    assert outcome == Outcome(Action("pass", seat), round_over=round_over,
                                              leader=game.turn if round_over else None, finished=game.finished)
    assert checked_plays > 500 and checked_round_ends > 100

"""The rating model: OpenSkill's own numbers, AI seats as fixed references, and
the finishing order a game rates (a leaver last, an instant win's losers tied)."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from tests.engine.test_replay import instant_win_game, random_game
from tienlen.ratings import AI_REFERENCES, Rating, rate, ranks


def test_ratings_move_as_openskill_says_for_a_known_order():
    model = PlackettLuce()
    players = [Rating(mu=30.0, sigma=5.0), Rating(), Rating(mu=20.0, sigma=3.0), Rating()]
    order = [3, 1, 4, 2]
    after = rate([(rating, rank, False) for rating, rank in zip(players, order)])
    expected = model.rate([[model.rating(mu=r.mu, sigma=r.sigma)] for r in players], ranks=order)
    for mine, theirs in zip(after, expected):
        assert mine.mu == pytest.approx(theirs[0].mu) and mine.sigma == pytest.approx(theirs[0].sigma)


def test_an_ai_reference_never_moves_and_still_rates_the_humans():
    hard = AI_REFERENCES["hard"]
    after = rate([(Rating(), 2, False), (hard, 1, True), (Rating(), 3, False)])
    assert after[1] == hard
    assert after[0].mu > after[2].mu  # second place over third, with the AI first


def test_a_new_player_shows_a_thousand():
    assert Rating().shown == 1000


def test_a_leaver_ranks_last():
    game = random_game("mien-nam", 4, seed=5, leave=True)
    leaver = game.left[0]
    assert ranks(game)[leaver] == 4


def test_an_instant_win_ranks_the_winner_first_and_everyone_else_second():
    game = instant_win_game()
    order = ranks(game)
    assert order[game.instant_win.seat] == 1
    assert sorted(order) == [1, 2, 2, 2]

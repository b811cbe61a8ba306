"""The ``hard`` search's own parts: its budget clock, and keeping the
heuristic's choice unless the sampled worlds clearly say otherwise."""

import random
import time

from tests.ai.ai_helpers import trained_only
from tienlen import Game, RULESETS
from tienlen.ai import HardPlayer, NormalPlayer
from tienlen.ai.arena import apply_move
from tienlen.ai.hard import _clearly_better
from tienlen.ai.situation import Situation


def _midgame(seed: int, actions: int = 8) -> Game:
    game = Game.deal(RULESETS["mien-nam"], 4, seed)
    player = NormalPlayer()
    for _ in range(actions):
        apply_move(game, game.turn, player.choose(game.view(game.turn), random.Random(0)))
    return game


def test_a_clearly_better_candidate_is_ahead_by_more_than_z_standard_errors():
    assert _clearly_better([2.0, 3.0, 2.0, 3.0], [0.0, 1.0, 0.0, 1.0], 1.0)  # +2 every world
    assert not _clearly_better([3.0, -3.0, 3.0, -2.0], [0.0, 0.0, 0.0, 0.0], 1.0)  # noise
    assert not _clearly_better([5.0], [0.0], 0.0)  # one world is no evidence


def test_the_budget_can_be_counted_in_cpu_time():
    game = _midgame(4)
    player = HardPlayer(40, clock=time.process_time)
    start = time.process_time()
    move = player.choose(game.view(game.turn), random.Random(1))
    assert time.process_time() - start < 0.5
    assert move is None or move in game.legal_plays(game.turn)


def test_search_is_deterministic_with_a_fixed_number_of_worlds():
    for seed in range(3):
        game = _midgame(seed)
        view = game.view(game.turn)
        first = HardPlayer(samples=4, burn_in_steps=20, thinning=2).choose(view, random.Random(seed))
        second = HardPlayer(samples=4, burn_in_steps=20, thinning=2).choose(view, random.Random(seed))
        assert first == second
        assert first is None or first in view.legal_plays


def test_with_the_learned_scorer_candidates_come_from_every_legal_option():
    from tienlen.ai.plus import ranked_options, shipped_model
    from tienlen.ai.situation import Situation

    for seed in range(3):
        game = _midgame(seed)
        situation = Situation.from_game(game, game.turn)
        player = HardPlayer(samples=2, burn_in_steps=10, thinning=2, scorer="shipped")
        assert player._rank(situation) == ranked_options(situation, shipped_model())
        first = player.choose(game.view(game.turn), random.Random(seed))
        again = HardPlayer(samples=2, burn_in_steps=10, thinning=2, scorer="shipped").choose(
            game.view(game.turn), random.Random(seed))
        assert first == again and (first is None or first in game.legal_plays(game.turn))


def test_an_out_of_turn_chop_is_searched_against_letting_it_go():
    # Seat 2 may chop the 2♥ out of turn with four consecutive pairs; taking it
    # wins the chop money and the lead, which the searched worlds must show.
    game = Game(RULESETS["mien-nam"], ["2H 9C JC", "6D 7D 8D 10H", "3S 3C 4S 4C 5S 5C 6S 6C KH"],
                first_game=False, previous_winner=0)
    game.play(0, "2H")
    view = game.view(2)
    player = HardPlayer(samples=4, burn_in_steps=10, thinning=2, search_chops=True, scorer=None)
    move = player.choose(view, random.Random(0))
    assert player.last_worlds == 4
    assert move is not None and move.bomb is not None
    # with the scorer, only where it plays (trained on 4 players, measured to transfer to 3)
    player = HardPlayer(samples=4, burn_in_steps=10, thinning=2, search_chops=True)
    assert player.choose(view, random.Random(0)) == move and player.last_worlds == 4
    # a scorer that does not cover 3 players leaves the answer to the heuristic
    from tienlen.ai.plus import shipped_model

    player = HardPlayer(samples=4, burn_in_steps=10, thinning=2, search_chops=True, scorer=trained_only(shipped_model()))
    assert player.choose(view, random.Random(0)) == move and player.last_worlds == 0


def test_the_scorer_prior_is_weighed_against_the_searched_evidence():
    from tienlen.ai.hard import _shrunk_best

    noisy = [[0.0, 0.0, 0.0, 0.0], [3.0, -2.0, 3.0, -2.0], [0.0, 1.0, 0.0, 1.0]]  # 1 is +0.5 ± 1.25
    priors = [0.0, -1.0, 0.2]
    assert _shrunk_best([0, 1, 2], noisy, priors, 0.5, None) == 2  # little evidence: the scorer's values decide
    clear = [[0.0] * 8, [2.0, 2.1, 1.9, 2.0, 2.0, 2.1, 1.9, 2.0], [0.0] * 8]
    assert _shrunk_best([0, 1, 2], clear, priors, 0.5, None) == 1  # clear evidence overrules the scorer
    assert _shrunk_best([0, 1, 2], clear, [0.0, -50.0, 0.0], 0.01, None) == 0  # ... unless it is very sure


def test_a_first_place_bonus_adds_to_the_play_outs_where_the_seat_finished_first():
    from tienlen.ai.hard import rollout

    player, plain = HardPlayer(samples=2, first_bonus=1.5), HardPlayer(samples=2)
    firsts = 0
    for seed in range(8):
        game = rollout(Game.deal(RULESETS["mien-nam"], 4, seed))
        assert game.finished
        for seat in range(4):
            first = game.places[0] == seat
            firsts += first
            assert plain._value(game, seat) == game.settlement()[seat]
            assert player._value(game, seat) == game.settlement()[seat] + (1.5 if first else 0.0)
    assert firsts == 8


def test_depth_searches_the_seats_next_own_turn_inside_the_play_out_and_plays_the_best_option():
    from tienlen.ai.arena import play_out

    player = HardPlayer(samples=2, inner_moves=1, inner_width=2, types=None)
    searched = 0
    for seed in range(6):
        game = _midgame(seed, actions=5)
        seat = game.turn
        hero = player._hero_policy(game)
        policy = player._nested(game, seat, hero, None)
        situation = Situation.from_game(game, seat)
        ranked = player._rank(situation)
        move = policy(situation)
        if len(ranked) == 1 or ranked[0][0] == float("inf"):
            assert move is ranked[0][1]
            continue
        searched += 1
        options = player._candidates(ranked, 2)
        values = []
        for option in options:  # what the search must have compared: each option finished in the same world
            finished = game.copy()
            apply_move(finished, seat, option)
            values.append(player._value(play_out(finished, player._policies(game, seat, None)), seat))
        assert move is options[values.index(max(values))]
        assert policy(situation) == hero(situation)  # one searched turn, then the scorer's play
    assert searched >= 4


def test_hard_with_depth_picks_a_legal_move():
    for seed in range(3):
        game = _midgame(seed)
        move = HardPlayer(samples=2, burn_in_steps=20, inner_moves=1).choose(game.view(game.turn), random.Random(seed))
        assert move is None or move in game.legal_plays(game.turn)

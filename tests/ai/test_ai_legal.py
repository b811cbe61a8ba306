"""Every level only ever answers with a play the engine listed (or a pass
where passing is allowed), over random games of every preset and table size,
including logs with time-outs, leaves and out-of-turn chops."""

import pickle
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ai.ai_helpers import PRESETS, CheckedPlayer, fast_players, new_game, play_with_accidents
from tienlen import RULESETS, Game
from tienlen.ai import LEVELS, decide, lowest, make_player

PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
tables = st.tuples(
    st.sampled_from(PRESETS),
    st.integers(min_value=2, max_value=4),
    st.integers(min_value=0, max_value=2**32),
    st.booleans(),
    st.lists(st.sampled_from(LEVELS + ("heuristic", "hard-heuristic")), min_size=4, max_size=4),
)


@PROPERTY
@given(table=tables)
def test_every_level_answers_only_legal_plays(table):
    preset, count, seed, first_game, levels = table
    game = new_game(preset, count, seed, first_game)
    players = [CheckedPlayer(fast_players()[level]) for level in levels[:count]]
    play_with_accidents(game, players, seed)
    assert game.finished
    assert sum(player.decisions for player in players) > 0 or game.instant_win is not None


@settings(max_examples=15, deadline=None, derandomize=True)
@given(preset=st.sampled_from(PRESETS), seed=st.integers(min_value=0, max_value=2**32))
def test_decide_returns_the_mask_of_a_legal_play(preset, seed):
    game = Game.deal(RULESETS[preset], 4, seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 30)):
        if game.finished:
            return
        move = lowest(game, game.turn)
        game.play(game.turn, move) if move is not None else game.pass_turn(game.turn)
    if game.finished:
        return
    view = game.view(game.turn)
    for level in ("easy", "normal", "hard"):
        mask = decide(view, level, seed=seed, budget_ms=20)
        if mask is None:
            assert view.top is not None
        else:
            assert mask in {combo.mask for combo in view.legal_plays}


def test_seat_views_survive_pickling_for_worker_processes():
    game = Game.deal(RULESETS["iwin"], 4, seed=5)
    for _ in range(12):
        move = lowest(game, game.turn)
        game.play(game.turn, move) if move is not None else game.pass_turn(game.turn)
    view = game.view(game.turn)
    copy = pickle.loads(pickle.dumps(view))
    assert copy == view
    assert decide(copy, "normal", seed=3) == decide(view, "normal", seed=3)


def test_unknown_level_is_refused():
    try:
        make_player("grandmaster")
    except ValueError as error:
        assert "grandmaster" in str(error)
    else:  # pragma: no cover
        raise AssertionError("an unknown level was accepted")

"""Game.copy is independent and exact; a Game pickles (its state is slots)."""

import pickle
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen import RULESETS, Game

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _state(game):
    return (
        [game.hand_mask(seat) for seat in range(game.players)],
        game.turn, game.top, game.top_owner, game.passed, game.places, game.finished, game.cong,
        game.chops, game.actions, game.round_number, game.left, game.penalised, game.passed_with_play,
        [game.has_played(seat) for seat in range(game.players)],
        [game.in_play(seat) for seat in range(game.players)],
        game.required_card, game.last_holder,
    )


def _step(game, rng):
    seat = game.turn
    plays = game.legal_plays(seat)
    if game.top is not None and (not plays or rng.random() < 0.3):
        game.pass_turn(seat)
    else:
        game.play(seat, rng.choice(plays))


@SETTINGS
@given(preset=st.sampled_from(sorted(RULESETS)), players=st.integers(2, 4), seed=st.integers(0, 2**32), cut=st.integers(0, 60))
def test_copy_is_exact_and_independent(preset, players, seed, cut):
    rng = random.Random(seed)
    game = Game.deal(RULESETS[preset], players, seed)
    for _ in range(cut):
        if game.finished:
            break
        _step(game, rng)
    twin = game.copy()
    frozen = pickle.loads(pickle.dumps(game))
    assert _state(twin) == _state(game) == _state(frozen)
    assert twin.to_json() == game.to_json() == frozen.to_json()
    before = _state(game)
    twin_rng = random.Random(seed + 1)
    while not twin.finished:
        _step(twin, twin_rng)
    assert _state(game) == before  # the original did not move
    frozen_rng = random.Random(seed + 1)
    while not frozen.finished:
        _step(frozen, frozen_rng)
    assert _state(frozen) == _state(twin)  # same moves from the same state, same end
    assert frozen.settlement() == twin.settlement()

"""How the other seats have played (``tienlen.ai.behaviour``): public statistics the scorer reads."""

import random

import numpy as np
import pytest
from tienlen import RULESETS, Game
from tienlen.ai.arena import apply_move
from tienlen.ai.behaviour import BEHAVIOUR_NAMES, PER_SEAT, behaviour
from tienlen.ai.easy import GREEDY, lowest_policy
from tienlen.ai.features import CONTEXT_NAMES, FEATURES, Decision, describe
from tienlen.ai.model import Model, load
from tienlen.ai.normal import normal_move
from tienlen.ai.situation import Situation
from tienlen.ai.train import fit_mlp, main as train_main, split


def _seat(row: list[float], slot: int) -> dict[str, float]:
    return dict(zip(PER_SEAT, row[slot * len(PER_SEAT):(slot + 1) * len(PER_SEAT)]))


def test_leads_follows_and_passes_are_told_apart_from_the_log():
    game = Game(RULESETS["mien-nam"], ["3S 4S 5S 6S 9H KD", "6D 7D 8D 9D 2H 2D", "3C 3D KS AS AD", "JH QH 4C 4D 5C"])
    for seat, play in [(0, "3S 4S 5S"), (1, "6D 7D 8D"), (2, None), (3, None), (0, None),
                       (1, "9D"), (2, "KS"), (3, None), (0, None), (1, "2H"), (2, None)]:
        game.play(seat, play) if play else game.pass_turn(seat)
    row = behaviour(game.action_log, game.rules, 4, [1, 2, 3])
    one, two, three = _seat(row, 0), _seat(row, 1), _seat(row, 2)
    # seat 1 followed the run, then led 9♦ when the round came back to it, then followed K♠ with 2♥
    assert one["lead_singles"] == 1 / 2 and one["lead_rank"] == (6 + 6) / 2 / 12  # 9♦, and the prior
    assert one["pass_share"] == 0 and one["follow_jump"] == (3 + 2) / 3 / 12  # 8♦ over 5♠, 2♥ over K♠
    # seat 2 passed on the run, followed 9♦ with K♠, passed on 2♥
    assert two["pass_share"] == 2 / 4 and two["pass_rank"] == (12 + 12) / 2 / 12  # passes on singles only
    assert three["pass_share"] == 2 / 3 and three["pass_rank"] == (10 + 12) / 2 / 12 and three["lead_singles"] == 0


def test_a_bomb_after_a_two_is_a_chop_not_a_lead():
    game = Game(RULESETS["mien-nam"], ["2S 9C", "3S 3C 4S 4C 5S 5C 9D", "KD KH", "JH QH"], first_game=False,
                previous_winner=0)
    game.play(0, "2S")
    game.play(1, "3S 3C 4S 4C 5S 5C")
    row = behaviour(game.action_log, game.rules, 4, [1, 2, 3])
    assert _seat(row, 0)["lead_singles"] == 0 and _seat(row, 0)["lead_rank"] == 6 / 12  # no lead seen
    assert _seat(row, 0)["follow_jump"] == 0  # a chop beats by kind, not by rank


def test_a_greedy_seat_looks_greedy_and_a_heuristic_seat_does_not():
    """Over whole games, the lowest-card bot leads singles and passes only on high plays."""
    greedy_rows, heuristic_rows = [], []
    for deal in range(30):
        game = Game.deal(RULESETS["mien-nam"], 4, deal)
        greedy = lowest_policy(random.Random(deal), GREEDY)
        policies = [normal_move, greedy, normal_move, normal_move]
        while not game.finished and len(game.actions) < 60:
            seat = game.turn
            if game.top is not None and not game.legal_plays(seat):
                game.pass_turn(seat)
                continue
            apply_move(game, seat, policies[seat](Situation.from_game(game, seat)))
        row = behaviour(game.action_log, game.rules, 4, [1, 2, 3])
        greedy_rows.append(_seat(row, 0))
        heuristic_rows.append(_seat(row, 1))
    mean = lambda rows, name: float(np.mean([row[name] for row in rows]))
    assert mean(greedy_rows, "lead_singles") > mean(heuristic_rows, "lead_singles")
    assert mean(greedy_rows, "pass_rank") > mean(heuristic_rows, "pass_rank")


def test_the_features_carry_the_behaviour_of_the_opponents_in_turn_order():
    game = Game.deal(RULESETS["mien-nam"], 4, 11)
    for _ in range(12):
        apply_move(game, game.turn, normal_move(Situation.from_game(game, game.turn)))
    seat = game.turn
    situation = Situation.from_game(game, seat)
    assert Situation.from_view(game.view(seat)).actions == tuple(situation.actions)
    row = Decision(situation).compute_rows()[0]
    named = describe(row)
    expected = behaviour(game.action_log, game.rules, 4, situation.opponents())
    assert [named[name] for name in BEHAVIOUR_NAMES] == expected
    assert CONTEXT_NAMES[-len(BEHAVIOUR_NAMES):] == BEHAVIOUR_NAMES  # added at the end: older models read a prefix


def test_a_model_of_the_first_features_reads_todays_rows(tmp_path):
    rng = np.random.default_rng(3)
    sizes = rng.integers(2, 5, 200)
    rows = rng.random((sizes.sum(), FEATURES)).astype(np.float32)
    data = {"rows": rows[:, :72], "values": (3.0 * rows[:, 5]).astype(np.float32),
            "groups": np.repeat(np.arange(200), sizes), "normal_choice": np.zeros(len(rows), dtype=bool)}
    data["normal_choice"][np.cumsum(sizes) - sizes] = True
    training, validation = split(data)
    model = fit_mlp(training, validation, hidden=4, epochs=2, batch=32)
    model.save(tmp_path / "old.npz")
    old = load(tmp_path / "old.npz")
    assert old.features == 72
    assert np.allclose(old.predict(rows), old.predict(rows[:, :72]))
    wider = Model("mlp", np.zeros(FEATURES + 1), np.ones(FEATURES + 1), model.weights, features=FEATURES + 1)
    wider.save(tmp_path / "future.npz")
    with pytest.raises(ValueError, match="features"):
        load(tmp_path / "future.npz")


def test_the_trainer_can_fit_on_the_first_features_only(tmp_path):
    weights = tmp_path / "prefix.npz"
    assert train_main(["all", "--seeds", "300:305", "--hidden", "4", "--epochs", "1", "--features", "72",
                       "--out", str(weights)]) == 0
    assert load(weights).features == 72


def test_models_on_other_data_and_fewer_features_combine_into_one_that_predicts_their_mean(tmp_path):
    rng = np.random.default_rng(8)
    sizes = rng.integers(2, 5, 150)
    rows = rng.random((sizes.sum(), FEATURES)).astype(np.float32)
    groups = np.repeat(np.arange(150), sizes)
    choice = np.zeros(len(rows), dtype=bool)
    choice[np.cumsum(sizes) - sizes] = True
    full = {"rows": rows, "values": (2.0 * rows[:, 3]).astype(np.float32), "groups": groups, "normal_choice": choice}
    prefix = dict(full, rows=rows[:, :72], values=(1.0 * rows[:, 9]).astype(np.float32))
    models = [fit_mlp(*split(full), hidden=(5, 3), epochs=2, batch=16),  # of one depth: the merge needs it
              fit_mlp(*split(prefix), hidden=(4, 3), epochs=2, batch=16)]
    for number, model in enumerate(models):
        model.save(tmp_path / f"{number}.npz")
    assert train_main(["combine", "--weights", str(tmp_path / "0.npz"), str(tmp_path / "1.npz"),
                       "--out", str(tmp_path / "both.npz")]) == 0
    both = load(tmp_path / "both.npz")
    assert both.features == FEATURES and both.weights["w1"].shape == (FEATURES, 9)
    assert np.allclose(both.predict(rows), (models[0].predict(rows) + models[1].predict(rows)) / 2)
    assert [part["features"] for part in both.info["combined"]] == [FEATURES, 72]


def test_a_loaded_model_plays_with_one_blas_thread():
    from threadpoolctl import threadpool_info

    from tienlen.ai.plus import SHIPPED_WEIGHTS

    load(SHIPPED_WEIGHTS)
    assert all(pool["num_threads"] == 1 for pool in threadpool_info() if pool["user_api"] == "blas")

"""The Deep Monte-Carlo self-play trainer (issue 44): episodes, gradients, checkpoints.

Tiny networks and a few episodes, so that the whole file runs in a few seconds."""

import random
from dataclasses import replace

import numpy as np
import pytest
from tienlen import RULESETS, Game
from tienlen.ai import play_game
from tienlen.ai.features import FEATURES
from tienlen.ai.model import load, mlp_forward
from tienlen.ai.plus import NormalPlusPlayer
from tienlen.ai.selfplay.__main__ import main as selfplay_main
from tienlen.ai.selfplay.dmc import CHECKPOINT, Config, Trainer, backward, command_line, parse_pool, run
from tienlen.ai.selfplay.episodes import (ORACLE_INPUTS, VALUE_INPUTS, Batch, draw_seats, play_episode,
                                          play_episodes, value_input)
from tienlen.ai.train import _initial

from tests.ai.ai_helpers import CheckedPlayer

TINY = Config(seed=3, init="fresh:8", episodes=3, critic_hidden=8, batch=32, epochs=1, warmup=1,
              snapshot_every=1, snapshots=2, keep_every=1, epsilon=0.1)
POOL = parse_pool(TINY.pool)


def _tiny_trainer(config: Config = TINY) -> Trainer:
    return Trainer.start(config)


def test_every_recorded_decision_carries_its_seats_real_return():
    trainer = _tiny_trainer()
    batch = Batch()
    games = [play_episode("mien-nam", 3, episode, trainer.scorer, trainer.normal, [], batch, learner_share=1.0,
                          pool=POOL, oracle=True, first_bonus=0.5) for episode in range(3)]
    data = batch.arrays(oracle=True)
    assert len(data["returns"]) > 10
    assert data["rows"].shape == (len(data["returns"]), FEATURES)
    assert data["values"].shape == (len(data["returns"]), VALUE_INPUTS + ORACLE_INPUTS)
    for episode, seat, value in zip(data["episodes"], data["seats"], data["returns"]):
        game = games[episode]
        bonus = 0.5 if game.places[0] == seat else 0.0
        assert value == game.settlement()[seat] + bonus
    assert set(data["seats"].tolist()) == {0, 1, 2, 3}  # every seat was the learner
    assert len(batch.outcomes) == 12


def test_episodes_are_the_same_for_the_same_seed_and_number_only():
    trainer = _tiny_trainer()
    options = {"pool": POOL, "epsilon": 0.2, "oracle": False}
    first = play_episodes("mien-nam", 3, range(2), trainer.scorer, trainer.normal, [], **options).arrays(False)
    again = play_episodes("mien-nam", 3, range(2), trainer.scorer, trainer.normal, [], **options).arrays(False)
    other = play_episodes("mien-nam", 4, range(2), trainer.scorer, trainer.normal, [], **options).arrays(False)
    assert first["values"].shape[1] == VALUE_INPUTS
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
    assert first["rows"].shape != other["rows"].shape or not np.array_equal(first["rows"], other["rows"])


def test_the_oracle_inputs_are_the_other_hands_in_turn_order():
    game = Game(RULESETS["mien-nam"], ["3S 4S", "5S 5H 6D", "2H", "KC KD KH KS"])
    row = [0.0] * FEATURES
    inputs = value_input(row, game, 1, oracle=True)
    own, others = inputs[VALUE_INPUTS - 13:VALUE_INPUTS], inputs[VALUE_INPUTS:]
    assert own[2] == 0.5 and own[3] == 0.25 and sum(own) == 0.75  # 5S 5H, 6D (ranks from 3)
    assert others[12] == 0.25 and sum(others[:13]) == 0.25  # seat 2: 2H
    assert others[13 + 10] == 1.0  # seat 3: four kings
    assert others[26 + 0] == 0.25 and others[26 + 1] == 0.25  # seat 0: 3S 4S
    assert len(value_input(row, game, 1, oracle=False)) == VALUE_INPUTS


def test_every_table_has_a_learner_and_pool_kinds_only():
    rng = random.Random(5)
    for _ in range(300):
        seats = draw_seats(rng, 4, 0.1, POOL, snapshots=2)
        assert "learner" in seats
        assert {seat.partition(":")[0] for seat in seats} <= {"learner", "snapshot", "normal", "heuristic", "easy",
                                                              "greedy"}
    assert all("snapshot" not in seat for seat in draw_seats(random.Random(1), 4, 0.0, [("snapshot", 1.0)], 0))


def test_backward_is_the_gradient_of_the_output():
    rng = np.random.default_rng(2)
    weights = _initial(5, (4, 3), rng)
    weights["bias"] = np.array([0.3])
    x = rng.normal(size=(7, 5))
    target = rng.normal(size=7)

    def loss(w):
        return float(np.sum((mlp_forward(w, x)[-1] + w["bias"][0] - target) ** 2))

    activations = mlp_forward(weights, x)
    delta = 2.0 * (activations[-1] + weights["bias"][0] - target)
    gradients = backward(weights, activations, delta)
    assert set(gradients) == set(weights)
    for name, value in weights.items():
        index = tuple(0 for _ in value.shape)
        bumped = {key: array.copy() for key, array in weights.items()}
        bumped[name][index] += 1e-6
        numeric = (loss(bumped) - loss(weights)) / 1e-6
        assert gradients[name][index] == pytest.approx(numeric, rel=1e-3, abs=1e-4), name


def test_warm_up_trains_the_critic_alone_then_the_scorer_and_the_error_falls():
    trainer = _tiny_trainer(replace(TINY, episodes=6, epochs=3))
    start = {name: value.copy() for name, value in trainer.scorer.weights.items()}
    line = trainer.step()
    assert not line["scorer_trained"]
    for name, value in start.items():
        np.testing.assert_array_equal(trainer.scorer.weights[name], value)
    assert line["mse_after"] < line["mse_before"]
    line = trainer.step()
    assert line["scorer_trained"]
    assert any(not np.array_equal(trainer.scorer.weights[name], value) for name, value in start.items())
    assert len(trainer.snapshots) == 2  # the warm start, then one a step, the last two kept


def test_a_run_resumed_from_its_checkpoint_equals_one_made_in_one_go(tmp_path):
    whole = run(tmp_path / "whole", TINY, iterations=3, log=lambda text: None)
    run(tmp_path / "chunks", TINY, iterations=1, log=lambda text: None)
    resumed = run(tmp_path / "chunks", None, iterations=3, log=lambda text: None)
    assert resumed.iteration == whole.iteration == 3
    for ours, theirs in ((resumed.scorer.weights, whole.scorer.weights), (resumed.critic, whole.critic),
                         *zip(resumed.snapshots, whole.snapshots)):
        assert ours.keys() == theirs.keys()
        for name in ours:
            np.testing.assert_array_equal(ours[name], theirs[name])
    assert resumed.adam.steps == whole.adam.steps
    strip = lambda log: [{key: value for key, value in line.items() if "seconds" not in key} for line in log]
    assert strip(resumed.log) == strip(whole.log)
    assert sorted(path.name for path in (tmp_path / "chunks" / "curve").iterdir()) == [
        "iteration-0000.npz", "iteration-0001.npz", "iteration-0002.npz", "iteration-0003.npz"]


def test_the_exported_scorer_plays_legal_games_and_names_its_command(tmp_path):
    run(tmp_path / "run", TINY, iterations=1, log=lambda text: None)
    assert selfplay_main(["export", "--run", str(tmp_path / "run"), "--out", str(tmp_path / "model.npz")]) == 0
    model = load(tmp_path / "model.npz")
    info = model.info["selfplay"]
    assert info["iteration"] == 1 and info["games"] == 3
    assert "--seed 3" in info["command"] and "--iterations 1" in info["command"]
    assert model.covers("mien-nam", 4)
    players = [CheckedPlayer(NormalPlusPlayer(model)) for _ in range(4)]
    game = play_game(Game.deal(RULESETS["mien-nam"], 4, seed=11), players, seed=11)
    assert game.finished and sum(player.decisions for player in players) > 10


def test_the_command_line_resumes_and_refuses_other_settings(tmp_path):
    out = str(tmp_path / "run")
    base = ["train", "--out", out, "--seed", "3", "--init", "fresh:8", "--episodes", "2", "--critic-hidden", "8",
            "--warmup", "0", "--no-oracle"]
    assert selfplay_main(base + ["--iterations", "1"]) == 0
    assert selfplay_main(["train", "--out", out, "--iterations", "2"]) == 0
    assert Trainer.resume(out).iteration == 2
    assert not Trainer.resume(out).config.oracle
    with pytest.raises(SystemExit, match="other settings"):
        selfplay_main(["train", "--out", out, "--seed", "4", "--iterations", "3"])
    assert (tmp_path / "run" / CHECKPOINT).exists()
    assert command_line(Trainer.resume(out).config, 2).startswith("python -m tienlen.ai.selfplay train --seed 3")


def test_the_curve_bench_measures_snapshots_against_todays_normal(tmp_path, capsys):
    import importlib.util
    import json
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "bench_selfplay.py"
    spec = importlib.util.spec_from_file_location("bench_selfplay_under_test", path)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    run(tmp_path / "run", replace(TINY, init="shipped"), iterations=0, log=lambda text: None)
    out = tmp_path / "curve.json"
    assert bench.main(["--run", str(tmp_path / "run"), "--games", "8", "--json", str(out)]) == 0
    assert "| iteration-0000.npz | 0 | 3 × normal | 8 (2) | 25.0 % ± 0.0 | +0.00 ± 0.00 |" in capsys.readouterr().out
    summary = json.loads(out.read_text())[0]
    assert summary["training_games"] == 0 and summary["first_rate"] == 0.25  # the warm start is today's normal

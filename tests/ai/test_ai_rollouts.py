"""Paired rollout labels for policy iteration (issue 44, second step): tiny networks, a few deals."""

import json

import numpy as np

from tienlen.ai.selfplay.__main__ import main as selfplay_main
from tienlen.ai.selfplay.dmc import _scorer_from
from tienlen.ai.selfplay.rollouts import hero_seat, label_deals, label_game
from tienlen.ai.labels import LabelSet
from tienlen.ai.train import load_labels

HERO = _scorer_from("fresh:8", 1)
OTHERS = _scorer_from("fresh:8", 2)


def _groups(labels: LabelSet) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    data = labels.arrays()
    return [(data["rows"][data["groups"] == group], data["values"][data["groups"] == group],
             data["firsts"][data["groups"] == group]) for group in range(labels.decisions)]


def test_the_option_the_hero_took_is_labelled_with_what_the_game_paid_it():
    checked = 0
    for deal in range(5):
        labels = LabelSet()
        game = label_game("mien-nam", deal, HERO, OTHERS, labels, per_game=6)
        seat = hero_seat(deal)
        for rows, values, firsts in _groups(labels):
            taken = int(np.argmax(HERO.predict(rows)))  # the hero's own choice, continued as in the game
            assert values[taken] == game.settlement()[seat]
            assert firsts[taken] == (game.places[0] == seat)
            checked += 1
    assert checked >= 5


def test_options_of_a_decision_differ_and_labels_repeat_for_the_same_deals():
    first, done = label_deals("mien-nam", range(10, 14), HERO, OTHERS, per_game=6)
    again, _ = label_deals("mien-nam", range(10, 14), HERO, OTHERS, per_game=6)
    assert done == 4 and first.decisions > 3
    for name, value in first.arrays().items():
        np.testing.assert_array_equal(value, again.arrays()[name])
    assert any(len(set(values.tolist())) > 1 for _, values, _ in _groups(first))


def test_a_time_limit_stops_early_and_the_file_names_the_seeds_done(tmp_path):
    labels, done = label_deals("mien-nam", range(5), HERO, OTHERS, stop=lambda: True)
    assert done == 0 and labels.decisions == 0
    out = tmp_path / "r.npz"
    assert selfplay_main(["label", "--hero", "fresh:8", "--others", "fresh:8", "--seeds", "20:23",
                          "--per-game", "6", "--out", str(out)]) == 0
    data = load_labels([str(out)])
    assert len(data["values"]) == len(data["rows"]) == len(data["groups"]) > 0
    with np.load(out) as stored:
        meta = json.loads(str(stored["meta"]))
    assert meta["seeds"] == "20:23" and meta["decisions"] == data["groups"].max() + 1


def test_the_label_curve_bench_fits_growing_shares_on_one_held_out_set(tmp_path, capsys):
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "bench_labels.py"
    spec = importlib.util.spec_from_file_location("bench_labels_under_test", path)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    out = tmp_path / "r.npz"
    assert selfplay_main(["label", "--hero", "fresh:8", "--others", "fresh:8", "--seeds", "30:40",
                          "--per-game", "8", "--out", str(out)]) == 0
    data = load_labels([str(out)])
    half = bench.first_decisions(data, 0.5)
    assert half["groups"].max() + 1 == round((data["groups"].max() + 1) / 2)
    np.testing.assert_array_equal(half["values"], data["values"][:len(half["values"])])
    assert bench.main(["--data", str(out), "--shares", "0.5,1", "--members", "1", "--epochs", "1"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert len(lines) == 4 and lines[1].startswith("| normal_plus.npz | — |")
    assert lines[2].startswith("| fit on 0.5 of the training decisions |")

"""bench/bench_ai.py's experiment options: weight overrides, per-game results, paired comparison."""

import importlib.util
import json
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "bench" / "bench_ai.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_ai_under_test", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_paired_runs_on_the_same_deals(tmp_path, capsys):
    bench = _bench()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert bench.main(["--pairing", "normal-easy", "--games", "8", "--json", str(first)]) == 0
    assert bench.main(["--pairing", "normal-easy", "--games", "8", "--normal", "danger=4.0",
                       "--json", str(second)]) == 0
    summary = json.loads(second.read_text())[0]
    assert summary["normal_weights"] == {"danger": 4.0}
    assert len(summary["per_game"]) == 8
    capsys.readouterr()
    assert bench.main(["--compare", str(first), str(first)]) == 0
    assert "8 games (2 deals), B - A: first place +0.0" in capsys.readouterr().out


def test_the_oracle_bound_sees_the_true_deal_and_picks_what_plays_out_best():
    """The bound's search: in the true deal, the candidate it picks finishes
    (under the arena's policies) at least as well as every other candidate."""
    from tienlen import RULESETS, Game
    from tienlen.ai.arena import apply_move
    from tienlen.ai.normal import normal_move, rank_moves
    from tienlen.ai.situation import Situation

    bench = _bench()
    oracle = bench.Oracle("normal", width=3)
    searched = 0
    for seed in range(6):
        game = Game.deal(RULESETS["mien-nam"], 4, seed)
        for _ in range(6):  # past the opening lead, into a position with choices
            apply_move(game, game.turn, normal_move(Situation.from_game(game, game.turn)))
        oracle.game = game
        seat = game.turn
        view = game.view(seat)
        actions = len(game.actions)
        move = oracle.choose(view, None)
        assert move is None or move in view.legal_plays
        ranked = rank_moves(Situation.from_view(view))
        candidates = [option for _, option in ranked[:3]]
        if len(candidates) > 1 and move in candidates:
            searched += 1
            assert oracle._value(seat, move) == max(oracle._value(seat, option) for option in candidates)
        assert len(game.actions) == actions  # the search plays on copies only
    assert searched

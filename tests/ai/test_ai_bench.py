"""bench/bench_ai.py's experiment options: weight overrides, per-game results, paired comparison."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

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


def test_runs_on_other_seeds_pool_into_one_interval_over_their_deals(tmp_path, capsys):
    bench = _bench()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert bench.main(["--pairing", "normal-easy", "--games", "8", "--seed", "3", "--json", str(first)]) == 0
    assert bench.main(["--pairing", "normal-easy", "--games", "4", "--seed", "4", "--json", str(second)]) == 0
    games = json.loads(first.read_text())[0]["per_game"] + json.loads(second.read_text())[0]["per_game"]
    capsys.readouterr()
    assert bench.main(["--pool", str(first), f"{second}@0"]) == 0
    out = capsys.readouterr().out
    firsts = sum(place == 0 for _, _, place, _ in games)
    assert out.startswith(f"12 games (3 deals): first place {100 * firsts / 12:.1f} % ± ")
    assert f"units {sum(units for *_, units in games) / 12:+.3f} ± " in out
    with pytest.raises(ValueError):  # the same deals twice would count as more evidence than they are
        bench.main(["--pool", str(first), str(first)])


@pytest.mark.parametrize("ranking", ["heuristic", "scorer"])
def test_the_oracle_bound_sees_the_true_deal_and_picks_what_plays_out_best(ranking):
    """The bound's search: in the true deal, the candidate it picks finishes
    (under the arena's policies) at least as well as every other candidate
    of its ranking (the heuristic's, or the learned scorer's as ``hard`` ranks)."""
    from tienlen import RULESETS, Game
    from tienlen.ai.arena import apply_move
    from tienlen.ai.normal import normal_move, rank_moves
    from tienlen.ai.plus import ranked_options, shipped_model
    from tienlen.ai.situation import Situation

    bench = _bench()
    oracle = bench.Oracle("normal", width=3, ranking=ranking)
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
        situation = Situation.from_view(view)
        ranked = ranked_options(situation, shipped_model()) if ranking == "scorer" else rank_moves(situation)
        candidates = [option for _, option in ranked[:3]]
        if len(candidates) > 1 and move in candidates:
            searched += 1
            assert oracle._value(seat, move) == max(oracle._value(seat, option) for option in candidates)
        assert len(game.actions) == actions  # the search plays on copies only
    assert searched


def test_any_pairing_of_levels_runs_and_the_plus_hero_takes_other_weights(tmp_path):
    bench = _bench()
    assert bench.levels_of("plus-greedy") == ("normal+", "greedy")
    assert bench.levels_of("hard-normal") == ("hard", "normal")
    from tienlen.ai.plus import SHIPPED_WEIGHTS

    out = tmp_path / "p.json"
    assert bench.main(["--pairing", "plus-greedy", "--games", "4", "--plus-weights", str(SHIPPED_WEIGHTS),
                       "--json", str(out)]) == 0
    summary = json.loads(out.read_text())[0]
    assert summary["plus_weights"] == SHIPPED_WEIGHTS.name and len(summary["per_game"]) == 4


def test_the_normal_hero_can_be_told_the_other_seats_level_as_the_bot_tells_it(tmp_path):
    bench = _bench()
    job = bench.Job(0, "normal", "easy", "mien-nam", 4, 1, 300, plus_levels=True)
    assert bench._make("normal", job, hero=True).levels == ("easy",) * 4
    assert bench._make("normal", job).levels is None  # the other seats are not told
    hard = bench.Job(0, "hard", "easy", "mien-nam", 4, 1, 20, (("levels", "public"),))
    assert bench._make("hard", hard, hero=True).levels == ("easy",) * 4  # --hard levels=public, the same way
    out = tmp_path / "l.json"
    assert bench.main(["--pairing", "normal-easy", "--games", "4", "--plus-levels", "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["plus_levels"] is True


def test_the_sequential_test_stops_when_the_evidence_is_clear():
    bench = _bench()

    def results(units_by_deal):
        return [bench.GameResult(4 * deal + seat, deal, seat, False, 0, units[seat])
                for deal, units in enumerate(units_by_deal) for seat in range(4)]

    better = results([[2, 1, 2, 0], [2, 2, 1, 1], [0, 1, 2, 1]] * 10)  # +1.25 a deal on average
    sprt = bench.Sprt(0.0, 0.2, players=4)
    assert sprt.decided(better) and sprt.verdict["accepted"] == "H1"
    level = results([[1, -1, 1, -1], [1, 1, 0, -1], [0, 0, -1, 0]] * 10)  # 0 on average
    sprt = bench.Sprt(0.0, 0.5, players=4)
    assert sprt.decided(level) and sprt.verdict["accepted"] == "H0"
    assert not bench.Sprt(0.0, 0.2, players=4).decided(better[:40])  # too few deals yet


def _positions_bench():
    spec = importlib.util.spec_from_file_location("bench_positions_under_test", _PATH.with_name("bench_positions.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_position_bank_values_moves_in_the_true_deal_and_scores_a_variant(tmp_path, capsys):
    bench = _positions_bench()
    bank = tmp_path / "bank.pkl"
    assert bench.main(["build", "--opponents", "greedy", "--deals", "3", "--out", str(bank)]) == 0
    import pickle

    meta, positions = pickle.loads(bank.read_bytes())
    assert positions and meta["opponents"] == "greedy"
    position = positions[0]
    assert position.types[position.seat] == "hero" and position.scorer_choice in position.values
    view = position.game.view(position.seat)
    for mask, value in position.values.items():
        move = next((combo for combo in view.legal_plays if combo.mask == mask), None)
        assert value == bench.true_value(position.game, position.seat, move, position.types, 1)
    out = tmp_path / "s.json"
    assert bench.main(["score", "--bank", str(bank), "--budget-ms", "5", "--hard", "batch=2", "--variant", "",
                       "--variant", "budget_ms=8 chains=2", "--json", str(out)]) == 0
    first, second = json.loads(out.read_text())["variants"]
    assert first["positions"] == len(positions) and first["hard_options"] == {"batch": 2}
    assert second["budget_ms"] == 8 and second["hard_options"] == {"batch": 2, "chains": 2}
    assert all(row[4] >= row[2] for row in first["per_position"])  # the best is at least the chosen
    capsys.readouterr()
    assert bench.main(["compare", str(out), str(out)]) == 0
    assert "base - base: +0.0000" in capsys.readouterr().out


def test_variants_play_the_same_games_in_turn_and_are_compared_paired(tmp_path, capsys):
    bench = _bench()
    out = tmp_path / "v.json"
    assert bench.main(["--pairing", "hard-greedy", "--games", "4", "--budget-ms", "5", "--hard", "clock=cpu",
                       "--variant", "", "--variant", "types=greedy:1", "--json", str(out)]) == 0
    base, typed = json.loads(out.read_text())
    assert (base["variant"], typed["variant"]) == ("base", "types=greedy:1")
    assert typed["hard_options"] == {"clock": "cpu", "types": "greedy:1"}
    assert [game[:2] for game in base["per_game"]] == [game[:2] for game in typed["per_game"]]
    assert "paired, types=greedy:1 - base: 4 games (1 deals)" in capsys.readouterr().out

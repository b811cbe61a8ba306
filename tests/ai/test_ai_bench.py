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

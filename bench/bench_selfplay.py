"""The learning curve of a self-play run (issue 44): its scorer snapshots against fixed tables.

Every ``curve/iteration-NNNN.npz`` of a run (:mod:`tienlen.ai.selfplay`), or the
weights files given, plays ``bench_ai.py``'s duplicate-deal arena as the
``normal+`` hero against three copies of each ``--against`` level (default:
today's ``normal``), on the same deals for every snapshot (``--seed``).  Against
today's ``normal`` the warm start is today's ``normal`` itself, so it scores
exactly 25 % and 0 units: every later point is a paired comparison with it.

Usage::

    nice -n 19 python bench/bench_selfplay.py --run RUN --games 2000 --every 20
    nice -n 19 python bench/bench_selfplay.py --weights a.npz b.npz --against normal,heuristic,easy --games 2000

Prints a markdown table (training games, first place and units with 95 %
intervals over deals); ``--json FILE`` keeps the summaries.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench.bench_ai import run_pairing  # noqa: E402
from tienlen.ai.model import load  # noqa: E402


def curve_files(run: str, every: int) -> list[Path]:
    files = sorted((Path(run) / "curve").glob("iteration-*.npz"))
    picked = [path for path in files if int(path.stem.split("-")[1]) % every == 0]
    if files and files[-1] not in picked:
        picked.append(files[-1])
    return picked


def arena_args(weights: str, games: int, seed: int, rules: str) -> argparse.Namespace:
    return argparse.Namespace(rules=rules, players=4, seed=seed, budget_ms=300.0, games=games, workers=1, hard=[],
                              variant=[], normal=[], plus_weights=weights, plus_levels=False, sprt=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", help="a self-play run's directory (its curve/ snapshots)")
    parser.add_argument("--weights", nargs="*", default=[], help="weights files to measure (instead of, or with, --run)")
    parser.add_argument("--every", type=int, default=10, help="only snapshots at multiples of this iteration (and the last)")
    parser.add_argument("--against", default="normal", help="comma-separated levels of the three other seats")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="mien-nam")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    files = (curve_files(args.run, args.every) if args.run else []) + [Path(path) for path in args.weights]
    rows, summaries = [], []
    for path in files:
        info = load(path).info.get("selfplay", {})
        for level in args.against.split(","):
            summary = run_pairing(f"plus-{level}", arena_args(str(path), args.games, args.seed, args.rules))
            summary.update({"weights": path.name, "iteration": info.get("iteration"), "training_games": info.get("games")})
            summary.pop("per_game", None) if not args.json else None
            summaries.append(summary)
            rows.append(f"| {path.name} | {info.get('games', '')} | 3 × {level} | {summary['games']} ({summary['deals']}) "
                        f"| {100 * summary['first_rate']:.1f} % ± {100 * summary['first_ci95']:.1f} "
                        f"| {summary['mean_units']:+.2f} ± {summary['units_ci95']:.2f} |")
            print(rows[-1], file=sys.stderr, flush=True)
    print("| scorer | training games | against | games (deals) | first place | units / game |")
    print("|---|---:|---|---:|---:|---:|")
    print("\n".join(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(summaries, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Engine cost in CPU instructions a random game, counted by valgrind's callgrind.

Wall-clock figures on a shared machine swing by a quarter between runs; the
number of instructions a game costs does not (same binary, same seeds, same
``PYTHONHASHSEED``).  This script runs itself under ``valgrind --tool=callgrind``
twice: 300 warm-up games then 300 games, and 300 warm-up games then 600; the
difference, divided by 300, is the cost of one game with start-up and warm-up
taken out.  The games are random 4-player games, each action uniform over
``legal_plays`` (plus passing with ``--pass``), like ``bench_engine.py``'s loop.

    python bench/engine_instructions.py [--pass] [--path <another checkout>]

Needs valgrind (on the project machines). ``--path`` counts the ``tienlen``
package of another directory (e.g. a ``git archive`` of an older commit), so
before and after come from one harness.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys

WARM_UP = 300


def play_games(count: int, seed: int, with_pass: bool) -> None:
    from tienlen import RULESETS, Game

    rules, rng = RULESETS["mien-nam"], random.Random(seed)
    for index in range(count):
        game = Game.deal(rules, 4, seed * 100_000 + index)
        while not game.finished:
            seat = game.turn
            plays = game.legal_plays(seat)
            choices = len(plays) + (1 if with_pass and game.top is not None else 0)
            pick = rng.randrange(choices) if choices else -1
            if 0 <= pick < len(plays):
                game.play(seat, plays[pick])
            else:
                game.pass_turn(seat)


def instructions(path: str, games: int, with_pass: bool) -> int:
    """Instructions of a whole run of this script's child mode under callgrind."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               "--child", str(games), "--path", path] + (["--pass"] if with_pass else [])
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"},
                            check=True)
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--pass", dest="with_pass", action="store_true", help="passing is one more choice")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        sys.path.insert(0, os.path.abspath(args.path))
        play_games(WARM_UP, 1, args.with_pass)
        play_games(args.child, 2, args.with_pass)
        return
    short = instructions(args.path, 300, args.with_pass)
    long = instructions(args.path, 600, args.with_pass)
    mode = "uniform + pass" if args.with_pass else "uniform"
    print(f"{os.path.abspath(args.path)}: {(long - short) // 300:,} instructions a random game ({mode})")


if __name__ == "__main__":
    main()

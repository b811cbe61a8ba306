"""Engine cost in CPU instructions a random game, counted by valgrind's callgrind.

Wall-clock figures on a shared machine swing by a quarter between runs; the
number of instructions a game costs does not (same binary, same seeds, same
``PYTHONHASHSEED``).  This script runs itself under ``valgrind --tool=callgrind``
twice: 300 warm-up games then 300 games, and 300 warm-up games then 600; the
difference, divided by 300, is the cost of one game with start-up and warm-up
taken out.  The games are ``bench_engine.py``'s: random 4-player games, each
action uniform over ``legal_plays`` (plus passing with ``--pass``), through the
same loop.

    python bench/engine_instructions.py [--pass] [--path <another checkout>]

Needs valgrind (on the project machines). ``--path`` counts the ``tienlen``
package of another directory (e.g. a ``git archive`` of an older commit), so
before and after come from one harness.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

WARM_UP = 300


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
        from bench_engine import engine_generator, games_per_second  # imports the engine of --path

        games_per_second(engine_generator, WARM_UP, args.with_pass, seed=1)
        games_per_second(engine_generator, args.child, args.with_pass, seed=2)
        return
    short = instructions(args.path, 300, args.with_pass)
    long = instructions(args.path, 600, args.with_pass)
    mode = "uniform + pass" if args.with_pass else "uniform"
    print(f"{os.path.abspath(args.path)}: {(long - short) // 300:,} instructions a random game ({mode})")


if __name__ == "__main__":
    main()

"""Benchmark of the pictures: render time (cold and warm cache) and encoded size.

Run from the repository root:

    .venv/bin/python bench/bench_render.py [--renders 300] [--seed 7]

"First call" is each row's first render; for the first row that is a cold
process (fonts loaded, card sprites drawn), later rows reuse what earlier rows
cached.  "Warm" renders use new random cards each time, the steady state of
a running bot (every card sprite is drawn once per process).  The target from issue 7 is a 13-card hand
in under 20 ms and under 200 KB; a replay step and a profile, under 25 ms and 250 KB.  Prints a markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import PIL  # noqa: E402

import render  # noqa: E402
from tienlen.cards import Card  # noqa: E402

DECK = [Card.from_index(index) for index in range(52)]
NAMES = ["Nguyễn Văn Tường", "Minh 🔥", "Trần Thị Bảo Ngọc", "alex"]


def _timed(make_png: Callable[[], bytes]) -> tuple[float, int]:
    start = time.perf_counter()
    png = make_png()
    return (time.perf_counter() - start) * 1000, len(png)


def _measure(label: str, make_one: Callable[[random.Random], Callable[[], bytes]],
             renders: int, rng: random.Random) -> dict[str, object]:
    first_ms, _ = _timed(make_one(rng))
    times, sizes = [], []
    for _ in range(renders):
        elapsed, size = _timed(make_one(rng))
        times.append(elapsed)
        sizes.append(size)
    times.sort()
    return {
        "what": label,
        "first": first_ms,
        "median": statistics.median(times),
        "p99": times[min(len(times) - 1, round(0.99 * len(times)))],
        "max KB": max(sizes) / 1024,
        "median KB": statistics.median(sizes) / 1024,
    }


def _hand(size: int, with_state: bool = False) -> Callable[[random.Random], Callable[[], bytes]]:
    def make(rng: random.Random) -> Callable[[], bytes]:
        cards = rng.sample(DECK, size)
        if not with_state:
            return lambda: render.render_hand(cards)
        selected = set(rng.sample(cards, 3))
        playable = set(rng.sample(cards, size // 2)) | selected
        return lambda: render.render_hand(cards, selected=selected, playable=playable)
    return make


def _play(size: int) -> Callable[[random.Random], Callable[[], bytes]]:
    def make(rng: random.Random) -> Callable[[], bytes]:
        cards = rng.sample(DECK, size)
        return lambda: render.render_play(cards, caption="Nguyễn Văn Tường — sảnh")
    return make


def _final(rng: random.Random) -> Callable[[], bytes]:
    hands = rng.sample(DECK, 39)
    rows = [(NAMES[0], [])] + [(NAMES[seat], hands[13 * (seat - 1):13 * seat][: rng.randint(1, 13)])
                              for seat in range(1, 4)]
    return lambda: render.render_final_hands(rows)


def _replay(rng: random.Random) -> Callable[[], bytes]:
    deck = rng.sample(DECK, 52)
    top = deck[:rng.randint(1, 6)]
    rest, seats = deck[len(top):], []
    for seat in range(4):
        count = rng.randint(0, 13)
        seats.append(render.ReplaySeat(NAMES[seat], rest[:count], rng.choice(["", "passed", "1st"]),
                                       acting=seat == 1))
        rest = rest[count:]
    return lambda: render.render_replay_step(seats, top=top, caption="12/48 · Minh 🔥: 7♠ 8♠ 9♠")


def _profile(rng: random.Random) -> Callable[[], bytes]:
    ratings, balances = [1500], [10_000]
    for _ in range(49):
        ratings.append(ratings[-1] + rng.randint(-40, 40))
        balances.append(balances[-1] + rng.randint(-2_000, 2_000))
    balances[rng.randrange(50)] = None  # a game whose balance is not known
    lines = [("Games", "50"), ("First places", "14 (28%)"), ("Chops made", "6"), ("Chops suffered", "3"),
             ("Best game", "+4,200"), ("Rating", f"{ratings[-1]:,}"), ("Peak", f"{max(ratings):,}")]
    return lambda: render.render_profile(name=NAMES[0], ratings=ratings, balances=balances, lines=lines,
                                         rating_title="Rating (last 50 games)", balance_title="Chips",
                                         empty_text="No rated games yet")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=300, help="warm renders per row (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = [
        _measure("hand, 13 cards", _hand(13), args.renders, rng),
        _measure("hand, 13 cards, selected + dimmed", _hand(13, True), args.renders, rng),
        _measure("hand, 1 card", _hand(1), args.renders, rng),
        _measure("play, 5 cards + caption", _play(5), args.renders, rng),
        _measure("play, 13 cards + caption", _play(13), args.renders, rng),
        _measure("final hands, 4 players", _final, args.renders, rng),
        _measure("replay step (4 seats)", _replay, args.renders, rng),
        _measure("profile (50 games)", _profile, args.renders, rng),
    ]
    print(f"Pillow {PIL.__version__}, {args.renders} warm renders per row\n")
    print("| picture | first call ms | warm median ms | warm p99 ms | median KB | max KB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(f"| {row['what']} | {row['first']:.1f} | {row['median']:.2f} | {row['p99']:.2f} "
              f"| {row['median KB']:.1f} | {row['max KB']:.1f} |")


if __name__ == "__main__":
    main()

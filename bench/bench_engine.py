"""Engine speed: legal-play generation and whole random games per second.

Compares the engine's bitmask generator with a straightforward reference
(``itertools.combinations`` over the hand, each set classified) in the same
run.  Usage::

    python bench/bench_engine.py [--runs 5] [--games 2000] [--positions 4000]
    python bench/bench_engine.py --no-reference --path ../old-checkout   # another checkout's engine

Prints a markdown table of medians over the runs (single process), with the
load average before and after.  The loop that plays the random games costs
time of its own (a random draw and a few reads and calls an action); it is
measured by replaying the same games, recorded, through the same loop over a
do-nothing engine that returns the recorded answers (:class:`Replay`), and the
games/s of the engine's own work are given with that cost taken out.  ``--path`` benchmarks the ``tienlen`` package
of another directory (an older commit, e.g. from ``git archive``) with this
same script, so before/after figures come from one harness.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from itertools import combinations

if "--path" in sys.argv:  # before the engine is imported
    sys.path.insert(0, os.path.abspath(sys.argv[sys.argv.index("--path") + 1]))
else:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tienlen import RULESETS, Game, IllegalPlayError, classify  # noqa: E402
from tienlen.cards import cards_of  # noqa: E402


def reference_legal_plays(game: Game, seat: int) -> list:
    """Every subset of the hand, classified and checked, the obvious way."""
    if game.turn != seat:
        return []
    hand = cards_of(game.hand_mask(seat))
    rules, top, required = game.rules, game.top, game.required_card
    plays = []
    for size in range(1, len(hand) + 1):
        for subset in combinations(hand, size):
            try:
                combo = classify(list(subset), rules)
            except IllegalPlayError:
                continue
            if top is None:
                if required is None or required in subset:
                    plays.append(combo)
            elif rules.can_beat(combo, top):
                plays.append(combo)
    return plays


def play_random_game(rules, players, seed, rng, generator, with_pass, deal=Game.deal):
    game = deal(rules, players, seed)
    actions = 0
    while not game.finished:
        seat = game.turn
        plays = generator(game, seat)
        choices = len(plays) + (1 if with_pass and game.top is not None else 0)
        pick = rng.randrange(choices) if choices else -1
        if 0 <= pick < len(plays):
            game.play(seat, plays[pick])
        else:
            game.pass_turn(seat)
        actions += 1
    return actions


def games_per_second(generator, games, with_pass, seed=0, preset="mien-nam", deal=Game.deal):
    """Whole random 4-player games per second, and actions per game."""
    rng = random.Random(seed)
    rules = RULESETS[preset]
    start = time.perf_counter()
    actions = 0
    for index in range(games):
        actions += play_random_game(rules, 4, seed * 100_000 + index, rng, generator, with_pass, deal)
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / games


class Replay:
    """A stand-in for a game that replays a recorded one: the same turn, top and
    legal plays at every step, and nothing else.  Run through the same loop as
    the engine, it measures what the benchmark loop itself costs a game."""

    __slots__ = ("turn", "top", "finished", "_steps", "_at")

    def __init__(self, steps):
        self._steps = steps  # (turn, top, legal plays) before each action
        self._at = 0
        self.turn, self.top, _ = steps[0] if steps else (None, None, None)
        self.finished = not steps  # an instant win ends a game at the deal

    def legal_plays(self, seat):
        return self._steps[self._at][2]

    def play(self, seat, combo):
        self._advance()

    def pass_turn(self, seat):
        self._advance()

    def _advance(self):
        self._at += 1
        if self._at == len(self._steps):
            self.finished = True
        else:
            self.turn, self.top, _ = self._steps[self._at]


def loop_cost_per_game(games, with_pass, seed=0, preset="mien-nam"):
    """Seconds a game that the benchmark loop costs on its own: the same games,
    recorded with the engine, replayed by :class:`Replay` through the same loop
    with the same random choices."""
    recorded: dict[int, list] = {}

    def recording_deal(rules, players, game_seed):
        recorded[game_seed] = []
        return Game.deal(rules, players, game_seed)

    def recording_generator(game, seat):
        plays = game.legal_plays(seat)
        recorded[game.seed].append((game.turn, game.top, plays))
        return plays

    games_per_second(recording_generator, games, with_pass, seed, preset, deal=recording_deal)
    replay = lambda rules, players, game_seed: Replay(recorded[game_seed])  # noqa: E731
    rate, _ = games_per_second(engine_generator, games, with_pass, seed, preset, deal=replay)
    return 1 / rate


def sample_positions(count, seed=1, preset="mien-nam"):
    """Positions met in random 4-player games (copies of the game, seat on turn)."""
    rng = random.Random(seed)
    rules = RULESETS[preset]
    positions = []
    index = 0
    while len(positions) < count:
        game = Game.deal(rules, 4, seed * 1_000_000 + index)
        index += 1
        while not game.finished and len(positions) < count:
            if rng.random() < 0.3:
                positions.append(game.copy())
            seat = game.turn
            plays = game.legal_plays(seat)
            if game.top is not None and (not plays or rng.random() < 0.4):
                game.pass_turn(seat)
            else:
                game.play(seat, rng.choice(plays))
    return positions


def fresh_leads(count, seed=2, preset="mien-nam"):
    """Fresh 13-card hands on lead, any play allowed (a later game)."""
    rules = RULESETS[preset]
    games = (Game.deal(rules, 4, seed * 1_000_000 + i, first_game=False, previous_winner=i % 4) for i in range(2 * count))
    return [game for game in games if not game.finished][:count]  # an instant win ends a game at the deal


def time_calls(generator, positions):
    """Per-call wall time in microseconds for each position."""
    timings = []
    clock = time.perf_counter_ns
    for game in positions:
        seat = game.turn
        start = clock()
        generator(game, seat)
        timings.append((clock() - start) / 1000)
    return timings


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def engine_generator(game, seat):
    return game.legal_plays(seat)


def run_once(args, include_reference):
    row = {}
    positions = sample_positions(args.positions, preset=args.preset)
    leads = fresh_leads(args.leads, preset=args.preset)
    for name, generator, scale in (("engine", engine_generator, 1), ("reference", reference_legal_plays, 20)):
        if name == "reference" and not include_reference:
            continue
        subset = positions[: max(50, len(positions) // scale)]
        timings = time_calls(generator, subset)
        lead_timings = time_calls(generator, leads[: max(20, len(leads) // scale)])
        games = max(5, args.games // (scale * 5))
        uniform, actions = games_per_second(generator, games, with_pass=False, preset=args.preset)
        with_pass, actions_pass = games_per_second(generator, games, with_pass=True, preset=args.preset)
        loop = loop_cost_per_game(games, with_pass=True, preset=args.preset) if name == "engine" else 0.0
        row[name] = dict(
            loop_us=loop * 1e6,
            engine_only=1 / (1 / with_pass - loop),
            median=statistics.median(timings),
            p99=percentile(timings, 0.99),
            lead_median=statistics.median(lead_timings),
            lead_p99=percentile(lead_timings, 0.99),
            uniform=uniform,
            actions=actions,
            uniform_actions=uniform * actions,
            with_pass=with_pass,
            actions_pass=actions_pass,
            with_pass_actions=with_pass * actions_pass,
        )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--positions", type=int, default=4000)
    parser.add_argument("--leads", type=int, default=1000)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--preset", default="mien-nam", choices=sorted(RULESETS))
    parser.add_argument("--path", help="directory holding the tienlen package to benchmark (default: this checkout)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    runs = [run_once(args, not args.no_reference) for _ in range(args.runs)]
    load_after = os.getloadavg()[0]
    names = list(runs[0])
    metrics = [
        ("legal_plays, random-game positions: median µs", "median", "{:.1f}"),
        ("legal_plays, random-game positions: p99 µs", "p99", "{:.1f}"),
        ("legal_plays, fresh 13-card lead: median µs", "lead_median", "{:.1f}"),
        ("legal_plays, fresh 13-card lead: p99 µs", "lead_p99", "{:.1f}"),
        ("random games/s (uniform over legal_plays, pass only when none)", "uniform", "{:,.0f}"),
        ("  actions per game", "actions", "{:.0f}"),
        ("  actions/s", "uniform_actions", "{:,.0f}"),
        ("random games/s (uniform over legal_plays + pass)", "with_pass", "{:,.0f}"),
        ("  actions per game", "actions_pass", "{:.0f}"),
        ("  actions/s", "with_pass_actions", "{:,.0f}"),
        ("  the same loop over a do-nothing engine (recorded answers): µs a game", "loop_us", "{:.0f}"),
        ("  games/s of the engine's own work (that cost taken out)", "engine_only", "{:,.0f}"),
    ]
    engine = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["tienlen"].__file__)))
    print(f"Medians of {args.runs} runs, 4 players, {args.preset}, Python {sys.version.split()[0]}, engine in {engine}")
    print(f"Load average (1 min) {load_before:.2f} before, {load_after:.2f} after, {os.cpu_count()} CPUs\n")
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, key, fmt in metrics:
        cells = [fmt.format(statistics.median(run[name][key] for run in runs)) for name in names]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

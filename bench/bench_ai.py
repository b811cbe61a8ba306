"""AI strength and speed: arenas between levels, with confidence intervals.

Pairings (one "hero" level against copies of another; any ``HERO-OTHER`` of
``easy``, ``normal``, ``hard``, ``heuristic``, ``plus`` (= ``normal+`` = ``normal``),
``greedy`` and ``oracle``)::

    normal-easy      normal vs 3 x easy        target: first place >= 78 %
    hard-heuristic   hard vs 3 x heuristic     target: first place >= 55 %, mean settlement >= +1.5 bet units
                                               (issue 23's goal: the heuristic was ``normal`` then)
    hard-normal      hard vs 3 x normal        (``normal`` is the learned scorer since issue 23)
    oracle-normal, oracle-easy                 bounds: hard's one-ply search seeing every hand (:class:`Oracle`)

Each deal is played once per seat with the hero in that seat (seat rotation,
"duplicate" style: the hero meets the same cards from every side), with fixed
seeds, so a run is reproducible apart from the wall-clock budget of ``hard``.
Confidence intervals (95 %) are computed over deals (the mean of a deal's
rotations is one sample), which accounts for the rotations sharing cards.

Decision latency is measured per level around ``player.choose(view, rng)``
(the view is built before the clock starts), as wall-clock time and as the
process's CPU time (on a shared machine the wall clock also counts time spent
waiting for a core).  For ``hard`` the table also shows the decisions that
actually searched (forced moves and going out answer at once).

Usage::

    nice -n 10 python bench/bench_ai.py --pairing normal-easy --games 2000
    nice -n 10 python bench/bench_ai.py --pairing hard-normal --games 2000 --budget-ms 300 --workers 2
    python bench/bench_ai.py --pairing normal-easy --games 20000 --workers 2 --plus-levels   # told the seats' level

Comparing variants on a busy machine: count ``hard``'s budget in CPU time and
pair the per-game results of two ``--json`` files (same ``--seed``, same deals)::

    python bench/bench_ai.py --pairing hard-normal --games 200 --budget-ms 100 --hard clock=cpu --json a.json
    python bench/bench_ai.py --pairing hard-normal --games 200 --budget-ms 100 --hard clock=cpu \
        --hard thinning=4 --json b.json
    python bench/bench_ai.py --compare a.json b.json
    python bench/bench_ai.py --pool c1.json c2.json runs.json@1   # runs on other seeds as one (FILE@N: a variant)

The bound of ``hard``'s method (``--hard width=N``, ``--hard rollouts=N`` set the
oracle's candidates and its games per candidate; ``easy`` is random, so use
several against it)::

    python bench/bench_ai.py --pairing oracle-normal --games 2000
    python bench/bench_ai.py --pairing oracle-easy --games 400 --hard width=99 --hard rollouts=8
    python bench/bench_ai.py --pairing oracle-normal --games 200 --hard depth=2 --workers 2   # plans its own later moves too
    python bench/bench_ai.py --pairing oracle-normal --games 400 --hard depth=2 --hard inner_moves=1 --hard inner_width=2
    python bench/bench_ai.py --pairing oracle-heuristic --games 2000 --hard ranking=scorer   # hard's candidates now
    python bench/bench_ai.py --pairing oracle-normal --games 400 --hard ranking=scorer --hard model=heuristic
        # every hand visible, but the other seats played out as the heuristic: a wrong opponent model alone

Variants under the same load: ``--variant`` (repeatable) plays each variant on the
same games, taking turns game by game, and prints each against the first, paired
(on a busy machine even a CPU-time budget buys fewer worlds, so separate runs
made at different times are not comparable)::

    nice -n 19 python bench/bench_ai.py --pairing hard-heuristic --games 400 --hard clock=cpu \
        --variant "" --variant "types=None" --json ab.json   # hard against itself without the opponent model
    nice -n 19 python bench/bench_ai.py --pairing hard-heuristic --games 400 --hard clock=cpu \
        --variant "" --variant "scorer=old.npz" --variant "first_bonus=1"   # other scorer weights; a first-place bonus
    python bench/bench_ai.py --pairing hard-normal --games 400 --hard clock=cpu \
        --variant "" --variant "levels=public"   # hard told the other seats' level, as the bot tells it

Prints a markdown table; ``--json FILE`` also writes the raw summary.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tienlen import RULESETS, Game  # noqa: E402
from tienlen.ai import make_player, play_game  # noqa: E402

PAIRINGS = {
    "normal-easy": ("normal", "easy"),
    "hard-normal": ("hard", "normal"),
    "normal-normal": ("normal", "normal"),
    "easy-easy": ("easy", "easy"),
    "oracle-normal": ("oracle", "normal"),
    "oracle-easy": ("oracle", "easy"),
}
ALIASES = {"plus": "normal+"}
"""Any ``HERO-OTHER`` pairing of levels is accepted (``plus`` = ``normal+``,
``greedy`` = lowest card first), e.g. ``plus-normal``, ``hard-greedy``."""
TARGETS = {
    "normal-easy": "first >= 78 %",
    "hard-heuristic": "first >= 55 %, units >= +1.5",
    "plus-easy": "first >= 78 %",
    "oracle-normal": "(a bound, not a player)",
    "oracle-easy": "(a bound, not a player)",
}


def levels_of(pairing: str) -> tuple[str, str]:
    """(hero level, other level) of a pairing name."""
    if pairing in PAIRINGS:
        return PAIRINGS[pairing]
    hero, _, other = pairing.partition("-")
    return ALIASES.get(hero, hero), ALIASES.get(other, other)


@dataclass
class GameResult:
    index: int
    deal: int
    hero: int
    first: bool
    place: int
    units: int
    latencies: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """Per level: (wall, CPU) seconds of every decision."""
    searched: list[tuple[float, float]] = field(default_factory=list)
    worlds: list[int] = field(default_factory=list)
    variant: int = 0
    """Which ``--variant`` played the hero (0 without variants)."""


@dataclass(frozen=True)
class Job:
    index: int
    hero_level: str
    other_level: str
    preset: str
    players: int
    seed: int
    budget_ms: float
    hard_options: tuple = ()
    """Keyword overrides for ``HardPlayer`` (``--hard name=value``), for experiments."""
    normal_weights: tuple = ()
    """Overrides of ``normal``'s :class:`~tienlen.ai.normal.Weights` (``--normal name=value``)."""
    plus_weights: str | None = None
    """Weights file of the ``normal+`` hero (``--plus-weights``; default: the shipped ones)."""
    plus_levels: bool = False
    """Whether the ``normal`` hero is told the other seats' public level (``--plus-levels``)."""
    variant: int = 0


class Timed:
    """Measures a player's decisions: wall clock and this process's CPU time."""

    def __init__(self, inner, result: GameResult) -> None:
        self.inner = inner
        self.level = inner.level
        self.result = result

    def choose(self, view, rng):
        wall, cpu = time.perf_counter(), time.process_time()
        move = self.inner.choose(view, rng)
        sample = (time.perf_counter() - wall, time.process_time() - cpu)
        self.result.latencies.setdefault(self.level, []).append(sample)
        worlds = getattr(self.inner, "last_worlds", 0)
        if worlds:
            self.result.searched.append(sample)
            self.result.worlds.append(worlds)
        return move


class Oracle:
    """A bound, never a player: the ``hard`` search's one-ply comparison made
    with **every hand visible**.  Each candidate (the normal heuristic's best
    ``width`` plus pass, as ``hard`` picks them) is played in the true deal and
    the game finished by the arena's own policies (the hero's later moves by
    ``normal``, the others by their real level; ``rollouts`` games each, as
    ``easy`` is random), keeping the best mean settlement.  What it reaches is
    what ``hard``'s method could reach if it guessed the hidden cards
    perfectly: a ceiling for more worlds, better inference or a faster engine.
    """

    level = "oracle"

    def __init__(self, other_level: str, *, width: int = 5, rollouts: int = 1, depth: int = 1,
                 inner_width: int | None = None, inner_moves: int | None = None, ranking: str = "heuristic",
                 model: str | None = None) -> None:
        self.other_level = other_level
        self.model = model or other_level
        """Who plays the other seats in the play-outs: their real level (exact), or
        another level (a wrong opponent model, as ``hard``'s worlds may have)."""
        self.width = width
        self.ranking = ranking
        """Whose best ``width`` moves are the candidates: "heuristic" (``hard`` before
        issue 23) or "scorer" (the learned scorer's, as ``hard`` picks them now)."""
        self.rollouts = rollouts
        self.depth = depth
        """1: the hero's later moves in a play-out are ``normal``'s; 2: they are
        this oracle's at depth 1 (a search that also plans its own next moves)."""
        self.inner_width = inner_width or width
        self.inner_moves = inner_moves
        """At depth 2: how many of the hero's later moves a play-out searches (None: all), then ``normal``."""
        self.searches_left: int | None = None
        """This oracle's own remaining searched moves (set on an inner oracle; None: no limit)."""
        self.game = None  # the true game, set by play_one

    def choose(self, view, rng):
        from tienlen.ai.normal import FINISH, normal_move, rank_moves
        from tienlen.ai.plus import plus_move, ranked_options, shipped_model
        from tienlen.ai.situation import Situation

        situation = Situation.from_view(view)
        if not situation.legal:
            return None
        if not situation.on_turn or self.searches_left == 0:  # not searched: the level it stands for
            return plus_move(situation, shipped_model()) if self.ranking == "scorer" else normal_move(situation)
        ranked = ranked_options(situation, shipped_model()) if self.ranking == "scorer" else rank_moves(situation)
        if len(ranked) == 1 or ranked[0][0] >= FINISH:
            return ranked[0][1]
        if self.searches_left is not None:
            self.searches_left -= 1
        candidates = [move for _, move in ranked[: self.width]]
        if None not in candidates and any(move is None for _, move in ranked):
            candidates.append(None)
        return max(candidates, key=lambda move: self._value(view.seat, move))

    def _value(self, seat: int, move) -> float:
        from tienlen.ai.arena import apply_move

        total = 0.0
        for index in range(self.rollouts):
            game = self.game.copy()
            apply_move(game, seat, move)
            players = [make_player(self.model) for _ in range(game.players)]
            if self.depth > 1:
                inner = Oracle(self.other_level, width=self.inner_width, rollouts=self.rollouts, depth=self.depth - 1,
                               ranking=self.ranking, model=self.model)
                inner.searches_left = self.inner_moves
                inner.game = game  # the play-out's own game, as it goes
                players[seat] = inner
            else:
                players[seat] = make_player("normal")
            play_game(game, players, seed=index)
            total += game.settlement()[seat]
        return total / self.rollouts


def _public_levels(job: Job) -> tuple[str, ...]:
    """Every seat's public AI level, as the bot tells an AI seat (the hero's own is not read)."""
    return (job.other_level,) * job.players


def _make(level: str, job: Job, hero: bool = False):
    if level in ("normal", "normal+") and hero and (job.plus_weights or job.plus_levels):
        from tienlen.ai.model import load
        from tienlen.ai.plus import NormalPlusPlayer
        levels = _public_levels(job) if job.plus_levels else None
        return NormalPlusPlayer(load(job.plus_weights) if job.plus_weights else None, level=level, levels=levels)
    if level == "oracle":
        options = dict(job.hard_options)
        inner = {name: int(options[name]) for name in ("inner_width", "inner_moves") if name in options}
        return Oracle(job.other_level, width=int(options.get("width", 5)), rollouts=int(options.get("rollouts", 1)),
                      depth=int(options.get("depth", 1)), ranking=str(options.get("ranking", "heuristic")),
                      model=options.get("model"), **inner)
    if level == "hard" and job.hard_options:
        from tienlen.ai import HardPlayer
        options = dict(job.hard_options)
        if options.get("clock") == "cpu":  # budget in CPU time: comparable runs on a busy machine
            options["clock"] = time.process_time
        if options.get("levels") == "public":
            options["levels"] = _public_levels(job)
        return HardPlayer(job.budget_ms, **options)
    if level == "normal" and job.normal_weights:
        from dataclasses import replace

        from tienlen.ai import NormalPlayer
        from tienlen.ai.normal import DEFAULT_WEIGHTS
        return NormalPlayer(replace(DEFAULT_WEIGHTS, **dict(job.normal_weights)))
    return make_player(level, budget_ms=job.budget_ms)


def play_one(job: Job) -> GameResult:
    """One arena game: the hero level in seat ``index % players``."""
    deal = job.seed * 1_000_000 + job.index // job.players
    hero = job.index % job.players
    game = Game.deal(RULESETS[job.preset], job.players, deal)
    result = GameResult(job.index, deal, hero, False, 0, 0, variant=job.variant)
    players = [Timed(_make(job.other_level, job), result) for _ in range(job.players)]
    players[hero] = Timed(_make(job.hero_level, job, hero=True), result)
    if isinstance(players[hero].inner, Oracle):
        players[hero].inner.game = game  # it sees every hand: a bound, not a player
    play_game(game, players, seed=job.index)
    result.place = game.places.index(hero)
    result.first = result.place == 0
    result.units = game.settlement()[hero]
    return result


# ------------------------------------------------------------------ statistics
def clustered_mean(values_by_deal: dict[int, list[float]]) -> tuple[float, float]:
    """Mean and 95 % half-width, one sample per deal (mean of its rotations)."""
    samples = [sum(values) / len(values) for values in values_by_deal.values()]
    mean = sum(samples) / len(samples)
    if len(samples) < 2:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(samples) / math.sqrt(len(samples))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]


def _latency(samples: list[tuple[float, float]]) -> dict:
    walls = [wall for wall, _ in samples]
    cpus = [cpu for _, cpu in samples]
    return {
        "decisions": len(samples),
        "p50_ms": 1000 * percentile(walls, 0.5),
        "p99_ms": 1000 * percentile(walls, 0.99),
        "max_ms": 1000 * max(walls) if walls else float("nan"),
        "cpu_p50_ms": 1000 * percentile(cpus, 0.5),
        "cpu_p99_ms": 1000 * percentile(cpus, 0.99),
    }


def summarise(pairing: str, results: list[GameResult], settings: dict) -> dict:
    firsts: dict[int, list[float]] = {}
    units: dict[int, list[float]] = {}
    latencies: dict[str, list[tuple[float, float]]] = {}
    searched: list[tuple[float, float]] = []
    worlds: list[int] = []
    for result in results:
        firsts.setdefault(result.deal, []).append(float(result.first))
        units.setdefault(result.deal, []).append(float(result.units))
        for level, values in result.latencies.items():
            latencies.setdefault(level, []).extend(values)
        searched += result.searched
        worlds += result.worlds
    first, first_ci = clustered_mean(firsts)
    mean_units, units_ci = clustered_mean(units)
    latency = {level: _latency(values) for level, values in sorted(latencies.items())}
    if searched:
        latency["hard (searched)"] = _latency(searched)
        latency["hard (searched)"]["worlds_p50"] = percentile([float(w) for w in worlds], 0.5)
    places = {}
    for result in results:
        places[result.place] = places.get(result.place, 0) + 1
    return {
        "pairing": pairing,
        "games": len(results),
        "deals": len(firsts),
        "first_rate": first,
        "first_ci95": first_ci,
        "mean_units": mean_units,
        "units_ci95": units_ci,
        "places": {place + 1: count for place, count in sorted(places.items())},
        "target": TARGETS.get(pairing, ""),
        "latency": latency,
        "per_game": [(r.index, r.deal, r.place, r.units) for r in sorted(results, key=lambda r: r.index)],
        **settings,
    }


# ------------------------------------------------------------------ SPRT
class Sprt:
    """Early stopping: a sequential probability ratio test on the hero's mean
    bet units per deal (the mean of a deal's seat rotations), normal
    approximation with the variance estimated so far (as engine testers do).

    H0: the mean is ``null`` (e.g. 0: no better than the three others when they
    are the baseline); H1: it is ``null + delta``.  With alpha = beta = 0.05 a
    run stops when the log-likelihood ratio leaves [log(1/19), log(19)]; at
    least ``min_deals`` complete deals are played first.
    """

    def __init__(self, null: float, delta: float, *, players: int, min_deals: int = 25) -> None:
        self.null, self.delta, self.players, self.min_deals = null, delta, players, min_deals
        self.verdict: dict | None = None

    def _deal_means(self, results: list["GameResult"]) -> list[float]:
        by_deal: dict[int, list[float]] = {}
        for result in results:
            by_deal.setdefault(result.deal, []).append(float(result.units))
        return [sum(units) / len(units) for units in by_deal.values() if len(units) == self.players]

    def decided(self, results: list["GameResult"]) -> bool:
        means = self._deal_means(results)
        if len(means) < self.min_deals or len(results) % self.players:
            return False
        variance = statistics.variance(means) or 1e-9
        h1 = self.null + self.delta
        llr = sum((h1 - self.null) / variance * (mean - (self.null + h1) / 2) for mean in means)
        bound = math.log(19)
        if abs(llr) < bound:
            return False
        self.verdict = {"accepted": "H1" if llr > 0 else "H0", "llr": round(llr, 2), "deals": len(means),
                        "null": self.null, "delta": self.delta}
        return True

    def complete_deals(self, results: list["GameResult"]) -> list["GameResult"]:
        """Only deals with every rotation played (the statistics need whole deals)."""
        counts: dict[int, int] = {}
        for result in results:
            counts[result.deal] = counts.get(result.deal, 0) + 1
        return [result for result in results if counts[result.deal] == self.players]


# ------------------------------------------------------------------------ run
def variant_options(args: argparse.Namespace) -> list[tuple[str, tuple]]:
    """(name, ``HardPlayer`` overrides) per ``--variant`` ("NAME=VALUE ...", on
    top of ``--hard``); without ``--variant``, ``--hard`` alone."""
    common = dict(_option(text) for text in args.hard)
    return [(text or "base", tuple({**common, **dict(_option(part) for part in text.split())}.items()))
            for text in args.variant or [""]]


def run_pairing(pairing: str, args: argparse.Namespace) -> dict | list[dict]:
    """One pairing's summary; with several ``--variant``, one per variant:
    their games take turns (game by game on the same deals), so that the
    machine's load falls on all of them alike."""
    hero_level, other_level = levels_of(pairing)
    variants = variant_options(args)
    jobs = [
        Job(index, hero_level, other_level, args.rules, args.players, args.seed, args.budget_ms,
            options, tuple(_option(text) for text in args.normal), args.plus_weights, args.plus_levels, variant)
        for index in range(args.games)
        for variant, (_, options) in enumerate(variants)
    ]
    sprt = Sprt(*args.sprt, players=args.players) if args.sprt else None
    start = time.perf_counter()
    results: list[GameResult] = []
    if args.workers > 1:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            for result in pool.imap_unordered(play_one, jobs, chunksize=1):
                results.append(result)
                _progress(pairing, results, len(jobs), start)
                if sprt is not None and sprt.decided(results):
                    pool.terminate()
                    break
    else:
        for job in jobs:
            results.append(play_one(job))
            _progress(pairing, results, len(jobs), start)
            if sprt is not None and sprt.decided(results):
                break
    if sprt is not None:
        results = sprt.complete_deals(results)
    wall = time.perf_counter() - start
    settings = {
        "rules": args.rules,
        "players": args.players,
        "seed": args.seed,
        "budget_ms": args.budget_ms,
        "workers": args.workers,
        "wall_s": wall,
        "normal_weights": dict(_option(text) for text in args.normal),
        "plus_weights": os.path.basename(args.plus_weights) if args.plus_weights else None,
        "plus_levels": args.plus_levels,
        "sprt": sprt.verdict if sprt is not None else None,
    }
    summaries = [
        summarise(pairing if len(variants) == 1 else f"{pairing} [{name}]",
                  [result for result in results if result.variant == number],
                  {**settings, "variant": name, "hard_options": dict(options)})
        for number, (name, options) in enumerate(variants)
    ]
    return summaries[0] if len(variants) == 1 else summaries


def _option(text: str) -> tuple[str, object]:
    name, _, value = text.partition("=")
    for convert in (int, float):
        try:
            return name, convert(value)
        except ValueError:
            pass
    return name, {"None": None, "True": True, "False": False}.get(value, value)


def _progress(pairing: str, results: list[GameResult], total: int, start: float) -> None:
    done = len(results)
    if done % 100 and done != total:
        return
    rate = sum(result.first for result in results) / done
    elapsed = time.perf_counter() - start
    print(f"  {pairing}: {done}/{total} games, first {rate:.3f}, {elapsed:.0f} s", file=sys.stderr, flush=True)


def markdown(summaries: list[dict]) -> str:
    lines = [
        "| pairing | games (deals) | first place (95 % CI) | mean bet units / game (95 % CI) | target | rules | budget | workers | wall |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s['pairing']} | {s['games']} ({s['deals']}) | {100 * s['first_rate']:.1f} % ± {100 * s['first_ci95']:.1f} "
            f"| {s['mean_units']:+.2f} ± {s['units_ci95']:.2f} | {s['target']} | {s['rules']}, {s['players']}p "
            f"| {s['budget_ms']:g} ms | {s['workers']} | {s['wall_s']:.0f} s |"
        )
    lines += ["", "| pairing | level | decisions | wall p50 | wall p99 | wall max | CPU p50 | CPU p99 | notes |",
              "|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        for level, stats in s["latency"].items():
            notes = f"worlds/decision p50 {stats['worlds_p50']:.0f}" if "worlds_p50" in stats else ""
            lines.append(
                f"| {s['pairing']} | {level} | {stats['decisions']} | {stats['p50_ms']:.3f} ms | {stats['p99_ms']:.3f} ms "
                f"| {stats['max_ms']:.1f} ms | {stats['cpu_p50_ms']:.3f} ms | {stats['cpu_p99_ms']:.3f} ms | {notes} |"
            )
    lines.append("")
    for s in summaries:
        places = ", ".join(f"{place}: {count}" for place, count in s["places"].items())
        lines.append(f"- {s['pairing']}: hero places (1 = first) {places}")
    return "\n".join(lines)


def compare(first: str, second: str) -> str:
    """Paired differences (second - first) in first place and units, one
    sample per deal over the games both runs played (the first summary of each file)."""
    with open(first, encoding="utf-8") as handle:
        a = json.load(handle)[0]
    with open(second, encoding="utf-8") as handle:
        b = json.load(handle)[0]
    return paired(a, b)


def pool(paths: list[str]) -> str:
    """One interval over several ``--json`` runs on distinct deals (e.g. chunks
    of a long run with different ``--seed``): every game's place and units, one
    sample per deal.  ``FILE@N`` takes the file's N-th summary (a ``--variant``)."""
    firsts: dict[int, list[float]] = {}
    units: dict[int, list[float]] = {}
    places: dict[int, int] = {}
    for text in paths:
        path, _, number = text.partition("@")
        with open(path, encoding="utf-8") as handle:
            summary = json.load(handle)[int(number or 0)]
        for _, deal, place, settled in summary["per_game"]:
            if deal in firsts and len(firsts[deal]) >= summary["players"]:
                raise ValueError(f"deal {deal} is in more than one run: pool runs on distinct deals")
            firsts.setdefault(deal, []).append(float(place == 0))
            units.setdefault(deal, []).append(float(settled))
            places[place + 1] = places.get(place + 1, 0) + 1
    games = sum(places.values())
    first, first_ci = clustered_mean(firsts)
    mean_units, units_ci = clustered_mean(units)
    counts = ", ".join(f"{place}: {count}" for place, count in sorted(places.items()))
    return (f"{games} games ({len(firsts)} deals): first place {100 * first:.1f} % ± {100 * first_ci:.1f}, "
            f"units {mean_units:+.3f} ± {units_ci:.3f} (95 % CI over deals); places {counts}")


def paired(summary_a: dict, summary_b: dict) -> str:
    """B - A, game by game on the games both played."""
    a = {index: (deal, place, units) for index, deal, place, units in summary_a["per_game"]}
    b = {index: (deal, place, units) for index, deal, place, units in summary_b["per_game"]}
    firsts: dict[int, list[float]] = {}
    units: dict[int, list[float]] = {}
    for index in sorted(set(a) & set(b)):
        deal = a[index][0]
        firsts.setdefault(deal, []).append(float(b[index][1] == 0) - float(a[index][1] == 0))
        units.setdefault(deal, []).append(float(b[index][2] - a[index][2]))
    games = sum(len(values) for values in firsts.values())
    first, first_ci = clustered_mean(firsts)
    mean_units, units_ci = clustered_mean(units)
    return (f"{games} games ({len(firsts)} deals), B - A: first place {100 * first:+.1f} ± {100 * first_ci:.1f} points, "
            f"units {mean_units:+.3f} ± {units_ci:.3f} (95 % CI over deals)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairing", default="both",
                        help="HERO-OTHER levels (easy, normal, plus = normal+, hard, greedy, oracle), "
                             "or both = normal-easy and hard-normal")
    parser.add_argument("--games", type=int, default=2000, help="games per pairing (a multiple of --players)")
    parser.add_argument("--rules", default="mien-nam", choices=sorted(RULESETS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--budget-ms", type=float, default=300, help="hard: thinking time per decision")
    parser.add_argument("--workers", type=int, default=1, help="processes (the machine has 2 cores: use at most 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the summaries (with every game's place and units) to this file")
    parser.add_argument("--hard", action="append", default=[], metavar="NAME=VALUE",
                        help="override a HardPlayer setting (experiments), e.g. --hard width=4; "
                             "--hard clock=cpu counts the budget in CPU time (for comparisons on a busy machine)")
    parser.add_argument("--variant", action="append", default=[], metavar='"NAME=VALUE ..."',
                        help="a hard variant (overrides on top of --hard), repeatable: the variants play the same "
                             "deals, taking turns game by game, and are compared paired with the first")
    parser.add_argument("--normal", action="append", default=[], metavar="NAME=VALUE",
                        help="override a weight of the normal heuristic (experiments; every normal seat)")
    parser.add_argument("--plus-weights", help="weights file for the normal+ hero (default: the shipped ones)")
    parser.add_argument("--plus-levels", action="store_true",
                        help="tell the normal hero every seat's public level, as the bot does (it then plays a "
                             "specialist scorer where one is shipped for the other seats' level)")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("NULL", "DELTA"),
                        help="stop early once a sequential test on the hero's mean units per deal decides "
                             "between NULL and NULL + DELTA (alpha = beta = 5 %%)")
    parser.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"),
                        help="only compare two --json runs game by game (same seed and games)")
    parser.add_argument("--pool", nargs="+", metavar="FILE[@N]",
                        help="only pool --json runs on distinct deals (other seeds) into one interval")
    args = parser.parse_args(argv)
    if args.sprt and len(args.variant) > 1:
        parser.error("--sprt tests one hero: use it without several --variant")
    if args.compare:
        print(compare(*args.compare))
        return 0
    if args.pool:
        print(pool(args.pool))
        return 0
    pairings = ["normal-easy", "hard-normal"] if args.pairing == "both" else [args.pairing]
    summaries = []
    for pairing in pairings:
        found = run_pairing(pairing, args)
        summaries += found if isinstance(found, list) else [found]
    print(markdown(summaries))
    if args.variant and len(args.variant) > 1:
        for other in summaries[1:]:
            print(f"- paired, {other['variant']} - {summaries[0]['variant']}: {paired(summaries[0], other)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(summaries, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Screening ``hard``'s variants on a fixed bank of positions, judged in the true deal.

An arena needs about 2,000 games to resolve 2 points of first place.  A
cheaper first screen: a *bank* of the hero's real decisions (positions from
games of ``normal`` against three opponents of a given type), and for each
position the **true value** of every candidate move: the move played in the
true deal and the game finished by the arena's policies (the hero's later
moves by the learned scorer, the others by their real type; random types over
``--rollouts`` seeded play-outs).  Against deterministic opponents this value
is exact.  A variant of ``hard`` then decides each position from its seat's
view only, within its CPU budget, and scores the true value of what it chose:

* ``gain`` — chosen minus the scorer's own choice (what the search adds, in
  bet units per decision);
* ``regret`` — the best candidate minus the chosen one;
* paired comparisons of variants position by position (``compare``).

Several ``--variant`` of one ``score`` run take turns position by position, so
a busy machine slows them alike: on a loaded machine even a CPU-time budget
buys fewer worlds (shared caches), so runs made at different times are not
comparable, only variants of one run are.

95 % intervals are over deals (a deal's positions are one sample).  Moves
outside the bank's candidates (a wider search) are valued on the spot, the
same way.

Usage::

    python bench/bench_positions.py build --opponents heuristic --deals 300 --out bank-h.pkl
    python bench/bench_positions.py build --opponents easy --deals 300 --rollouts 8 --out bank-e.pkl
    nice -n 19 python bench/bench_positions.py score --bank bank-h.pkl --budget-ms 300 \
        --variant "" --variant "batch=5" --variant "budget_ms=1200" --json runs.json
    python bench/bench_positions.py compare runs.json            # each variant minus the first
    python bench/bench_positions.py diagnose --bank bank-h.pkl --worlds 40 --batch 5 [--hard chains=4]

Banks use deals ``seed * 1,000,000 + n`` with ``--seed`` 7 by default, apart
from the arenas' ``--seed 1``.  Any ``--hard NAME=VALUE`` of ``bench_ai.py``
applies (``clock`` is always CPU time here).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import pickle
import random
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from bench_ai import _option, clustered_mean  # noqa: E402
from tienlen import RULESETS, Game  # noqa: E402
from tienlen.ai import HardPlayer  # noqa: E402
from tienlen.ai.arena import Policy, apply_move, chop_out_of_turn, play_out  # noqa: E402
from tienlen.ai.opponents import TYPES, policy_for  # noqa: E402
from tienlen.ai.plus import plus_move, ranked_options, shipped_model  # noqa: E402
from tienlen.ai.situation import Situation  # noqa: E402

CANDIDATES = 5
"""The bank values the scorer's best this many options plus pass (``hard``'s own candidates)."""
SHARE = 0.5
"""Share of the hero's searched decisions kept in the bank (spreads it over more deals)."""


@dataclass
class Position:
    deal: int
    seat: int
    game: Game
    """The true game at the decision (every hand): the hero sees only its view."""
    types: tuple[str, ...]
    """Each seat's real type ("hero" for the hero's seat)."""
    values: dict
    """Candidate mask (0 = pass) -> true value in bet units."""
    scorer_choice: int


def _policies(types: tuple[str, ...], seed: int) -> list[Policy]:
    model = shipped_model()
    return [(lambda situation: plus_move(situation, model)) if kind == "hero" else policy_for(kind, seed * 31 + seat)
            for seat, kind in enumerate(types)]


def true_value(game: Game, seat: int, move, types: tuple[str, ...], rollouts: int) -> float:
    """Mean settlement of ``seat`` after ``move`` in the true deal, finished by
    the real policies (the same seeds for every move: paired)."""
    total = 0.0
    for index in range(rollouts):
        world = game.copy()
        apply_move(world, seat, move)
        play_out(world, _policies(types, index))
        total += world.settlement()[seat]
    return total / rollouts


def _mask(move) -> int:
    return 0 if move is None else move.mask


def build(args: argparse.Namespace) -> list[Position]:
    """Play ``--deals`` games of ``normal`` (the hero, in seat ``deal % 4``)
    against three opponents of ``--opponents`` and keep about half of its
    decisions that ``hard`` would search."""
    rules = RULESETS[args.rules]
    model = shipped_model()
    bank: list[Position] = []
    for number in range(args.deals):
        deal = args.seed * 1_000_000 + number
        hero = number % 4
        types = tuple("hero" if seat == hero else args.opponents for seat in range(4))
        game = Game.deal(rules, 4, deal)
        policies = _policies(types, deal)
        chooser = random.Random(f"bank:{deal}")
        while not game.finished:
            if game.rules.four_pairs_out_of_turn and chop_out_of_turn(game, policies):
                continue
            seat = game.turn
            situation = Situation.from_game(game, seat)
            if game.top is not None and not situation.legal:
                game.pass_turn(seat)
                continue
            if seat == hero and chooser.random() < SHARE:
                _keep(bank, game, situation, types, deal, args.rollouts)
            apply_move(game, seat, policies[seat](situation))
        if (number + 1) % 50 == 0:
            print(f"  deal {number + 1}/{args.deals}: {len(bank)} positions", file=sys.stderr, flush=True)
    return bank


def _keep(bank: list[Position], game: Game, situation: Situation, types, deal: int, rollouts: int) -> None:
    ranked = ranked_options(situation, shipped_model())
    if len(ranked) < 2 or ranked[0][0] == float("inf"):
        return  # forced or going out: hard does not search
    moves = [move for _, move in ranked[:CANDIDATES]]
    if None not in moves and any(move is None for _, move in ranked):
        moves.append(None)
    values = {_mask(move): true_value(game, situation.seat, move, types, rollouts) for move in moves}
    bank.append(Position(deal, situation.seat, game.copy(), types, values, _mask(moves[0])))


def variants_of(args: argparse.Namespace) -> list[tuple[str, float, dict]]:
    """(name, budget in ms, HardPlayer options) per ``--variant`` ("NAME=VALUE
    NAME=VALUE", ``budget_ms=`` included), on top of the common ``--hard``
    options; no ``--variant``: the common options alone."""
    common = dict(_option(text) for text in args.hard)
    out = []
    for text in args.variant or [""]:
        options = {**common, **dict(_option(part) for part in text.split())}
        budget = float(options.pop("budget_ms", args.budget_ms))
        out.append((text or "base", budget, options))
    return out


def score(args: argparse.Namespace) -> dict:
    """Decide every position with each ``hard`` variant and value its choices.
    The variants take turns position by position, so that a busy machine
    slows them all alike (CPU time per world still depends on the load)."""
    with open(args.bank, "rb") as handle:
        meta, bank = pickle.load(handle)
    if args.limit:
        bank = bank[: args.limit]
    variants = variants_of(args)
    rows: list[list[tuple]] = [[] for _ in variants]
    started = time.perf_counter()
    for index, position in enumerate(bank):
        view = position.game.view(position.seat)
        for number, (_, budget, options) in enumerate(variants):
            if options.get("levels") == "public":  # told the other seats' level, as the bot tells it
                options = {**options, "levels": _public_levels(position.types)}
            player = HardPlayer(budget, clock=time.process_time, **options)
            move = player.choose(view, random.Random(index))
            chosen = _mask(move)
            if chosen not in position.values:
                position.values[chosen] = true_value(position.game, position.seat, move, position.types,
                                                     meta["rollouts"])
            values = position.values
            rows[number].append((index, position.deal, values[chosen], values[position.scorer_choice],
                                 max(values.values()), player.last_worlds))
        if (index + 1) % 200 == 0:
            print(f"  {index + 1}/{len(bank)} positions, {time.perf_counter() - started:.0f} s", file=sys.stderr,
                  flush=True)
    settings = {"bank": os.path.basename(args.bank), **meta}
    return {"variants": [summarise(variant_rows, {**settings, "variant": name, "budget_ms": budget,
                                                  "hard_options": options})
                         for variant_rows, (name, budget, options) in zip(rows, variants)]}


def _public_levels(types: tuple[str, ...]) -> tuple[str | None, ...]:
    """The level the bot would show for each seat of a bank's position (the
    ``scorer`` type is the ``normal`` level; the hero's own seat: None)."""
    return tuple(None if kind == "hero" else {"scorer": "normal"}.get(kind, kind) for kind in types)


def summarise(rows: list[tuple], settings: dict) -> dict:
    gains: dict[int, list[float]] = {}
    regrets: dict[int, list[float]] = {}
    for _, deal, chosen, scorer, best, _ in rows:
        gains.setdefault(deal, []).append(chosen - scorer)
        regrets.setdefault(deal, []).append(best - chosen)
    # Per deal, the sum over its positions: a deal is one sample; divide by
    # the mean number of positions for a per-decision figure.
    per_deal = len(rows) / len(gains)
    gain, gain_ci = clustered_sum(gains, per_deal)
    regret, regret_ci = clustered_sum(regrets, per_deal)
    worlds = sorted(row[5] for row in rows)
    return {"positions": len(rows), "deals": len(gains), "gain": gain, "gain_ci95": gain_ci, "regret": regret,
            "regret_ci95": regret_ci, "changed": sum(row[2] != row[3] for row in rows),
            "worlds_p50": worlds[len(worlds) // 2] if worlds else 0, "per_position": rows, **settings}


def clustered_sum(values_by_deal: dict[int, list[float]], per_deal: float) -> tuple[float, float]:
    """Mean per position and its 95 % half-width, with deals as the samples."""
    totals = {deal: [sum(values) / per_deal] for deal, values in values_by_deal.items()}
    return clustered_mean(totals)


def paired(a: dict, b: dict) -> str:
    """B's chosen value minus A's, position by position (same bank)."""
    first = {row[0]: row for row in a["per_position"]}
    second = {row[0]: row for row in b["per_position"]}
    common = sorted(set(first) & set(second))
    differences: dict[int, list[float]] = {}
    for index in common:
        differences.setdefault(first[index][1], []).append(second[index][2] - first[index][2])
    mean, ci = clustered_sum(differences, len(common) / len(differences))
    return (f"{b['variant']} - {a['variant']}: {mean:+.4f} ± {ci:.4f} units per decision "
            f"({len(common)} positions, {len(differences)} deals, 95 % CI over deals)")


def compare(first: str, second: str | None = None) -> str:
    """Every variant of ``first`` against its first one; with ``second``, the
    first variant of ``second`` against the first of ``first``."""
    with open(first, encoding="utf-8") as handle:
        a = json.load(handle)["variants"]
    if second is None:
        return "\n".join(paired(a[0], other) for other in a[1:])
    with open(second, encoding="utf-8") as handle:
        b = json.load(handle)["variants"]
    return paired(a[0], b[0])


def report(summary: dict) -> str:
    return (f"{summary['variant']}: {summary['positions']} positions ({summary['deals']} deals), "
            f"{summary['opponents']} opponents, {summary['budget_ms']:g} ms CPU: gain over the scorer "
            f"{summary['gain']:+.4f} ± {summary['gain_ci95']:.4f}, regret {summary['regret']:.4f} ± "
            f"{summary['regret_ci95']:.4f} units per decision; changed {summary['changed']}; "
            f"worlds p50 {summary['worlds_p50']}")


def diagnose(args: argparse.Namespace) -> dict:
    """How alike are consecutive worlds of one chain?  At each of the first
    ``--limit`` positions, ``--worlds`` worlds of one chain (``hard``'s burn-in
    and thinning) are played out for every candidate: the hidden cards that
    changed between consecutive worlds, the autocorrelation of the paired
    differences (each candidate minus the first) at lags 1-3, and the ratio
    of the batch-means standard error (batches of ``--batch``) to the plain
    one.  A ratio r means the worlds are worth 1/r^2 as many independent ones.
    With ``--hard chains=K`` also the ratio with each chain as one cluster
    (above 1 when a chain stays in its own corner of the deals for long)."""
    from tienlen.ai.hard import _paired
    from tienlen.ai.sampling import SET_ASIDE, WorldBuilder

    with open(args.bank, "rb") as handle:
        _, bank = pickle.load(handle)
    options = dict(_option(text) for text in args.hard)
    public = options.pop("levels", None) == "public"
    changed, lags, ratios, between, shares = [], {1: [], 2: [], 3: []}, [], [], []
    for index, position in enumerate(bank[: args.limit]):
        view = position.game.view(position.seat)
        player = HardPlayer(samples=args.worlds, **options)
        situation = Situation.from_view(view)
        candidates = player._candidates(player._rank(situation), player.width)
        builder = WorldBuilder(view)
        opponents = player._opponents(situation, _public_levels(position.types) if public else None)
        worlds = player._deals(view, builder, random.Random(index), 0.0, opponents)
        rows, origins, previous = [], [], None
        for hands, group, kinds in itertools.islice(worlds, args.worlds):
            world = builder.build(hands)
            if world is None:
                continue
            values = player._evaluate(world, position.seat, candidates, None, kinds)
            rows.append([value - values[0] for value in values[1:]])
            origins.append(group[0] if isinstance(group, tuple) else group)
            if previous is not None:
                changed.append(sum((previous[seat] ^ hands[seat]).bit_count() for seat in hands if seat != SET_ASIDE) / 2)
            previous = hands
        if player.last_chain is None or len(rows) < 2 * args.batch:
            continue  # uniform worlds (nobody decided yet) are independent anyway
        if args.importance:
            shares.append(_importance_share(builder, player.last_chain.model, args.importance, index))
        for column in zip(*rows):
            for lag in lags:
                if (value := _autocorrelation(column, lag)) is not None:
                    lags[lag].append(value)
            plain = _paired(list(column), [0.0] * len(column))[1]
            batched = _paired(list(column), [0.0] * len(column), [i // args.batch for i in range(len(column))])[1]
            if plain > 0:
                ratios.append(batched / plain)
                if player.chains > 1:  # each chain one cluster: does a chain stay in its own corner?
                    between.append(_paired(list(column), [0.0] * len(column), origins)[1] / plain)
    mean = lambda values: sum(values) / len(values) if values else float("nan")  # noqa: E731
    ratios.sort()
    return {"positions": min(args.limit, len(bank)), "worlds": args.worlds, "options": options,
            "cards_changed_per_world": mean(changed), "autocorrelation": {lag: mean(v) for lag, v in lags.items()},
            "batch": args.batch, "se_ratio_median": ratios[len(ratios) // 2] if ratios else float("nan"),
            "se_ratio_mean": mean(ratios), "comparisons": len(ratios),
            "chain_cluster_se_ratio_median": sorted(between)[len(between) // 2] if between else None,
            "chain_cluster_se_ratio_mean": mean(between) if between else None,
            "importance_ess_share_median": sorted(shares)[len(shares) // 2] if shares else None}


def _importance_share(builder, model, deals: int, seed: int) -> float:
    """Effective sample size of ``deals`` uniform deals weighted by the
    likelihood of the other seats' decisions, as a share of ``deals``: what
    independent deals reweighted by likelihood would be worth."""
    from tienlen.ai.sampling import SET_ASIDE

    rng = random.Random(seed)
    logs = []
    for _ in range(deals):
        hands = builder.random_hands(rng)
        if hands is None or builder.build(hands) is None:
            continue
        logs.append(sum(model.seat_log_likelihood(seat, hand) for seat, hand in hands.items() if seat != SET_ASIDE))
    finite = [value for value in logs if value > float("-inf")]
    if not finite:
        return 0.0
    best = max(finite)
    weights = [math.exp(value - best) for value in finite]
    return sum(weights) ** 2 / sum(weight * weight for weight in weights) / deals


def _autocorrelation(values, lag: int) -> float | None:
    count = len(values)
    mean = sum(values) / count
    variance = sum((value - mean) ** 2 for value in values)
    if variance == 0 or count <= lag + 2:
        return None
    return sum((values[i] - mean) * (values[i + lag] - mean) for i in range(count - lag)) / variance


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="play the bank's games and value its positions")
    make.add_argument("--opponents", default="heuristic", choices=sorted(TYPES))
    make.add_argument("--deals", type=int, default=300)
    make.add_argument("--seed", type=int, default=7)
    make.add_argument("--rules", default="mien-nam", choices=sorted(RULESETS))
    make.add_argument("--rollouts", type=int, default=1, help="play-outs per candidate (use several for easy)")
    make.add_argument("--out", required=True)
    run = commands.add_parser("score", help="decide every position with a hard variant")
    run.add_argument("--bank", required=True)
    run.add_argument("--budget-ms", type=float, default=300)
    run.add_argument("--hard", action="append", default=[], metavar="NAME=VALUE", help="options of every variant")
    run.add_argument("--variant", action="append", default=[], metavar='"NAME=VALUE ..."',
                     help="a variant (its options, budget_ms= included), repeatable; they take turns per position")
    run.add_argument("--limit", type=int, default=0, help="only the first N positions")
    run.add_argument("--json")
    look = commands.add_parser("diagnose", help="how alike consecutive worlds of one chain are")
    look.add_argument("--bank", required=True)
    look.add_argument("--limit", type=int, default=100)
    look.add_argument("--worlds", type=int, default=40)
    look.add_argument("--batch", type=int, default=5)
    look.add_argument("--importance", type=int, default=0,
                      help="also: the effective share of this many uniform deals weighted by likelihood")
    look.add_argument("--hard", action="append", default=[], metavar="NAME=VALUE")
    pair = commands.add_parser("compare", help="paired difference of two score runs")
    pair.add_argument("first")
    pair.add_argument("second", nargs="?")
    args = parser.parse_args(argv)
    if args.command == "build":
        bank = build(args)
        meta = {"opponents": args.opponents, "bank_deals": args.deals, "seed": args.seed, "rules": args.rules,
                "rollouts": args.rollouts}
        with open(args.out, "wb") as handle:
            pickle.dump((meta, bank), handle)
        print(f"{len(bank)} positions from {args.deals} deals -> {args.out}")
    elif args.command == "score":
        summary = score(args)
        print("\n".join(report(variant) for variant in summary["variants"]))
        if len(summary["variants"]) > 1:
            print("\n".join(paired(summary["variants"][0], other) for other in summary["variants"][1:]))
        if args.json:
            with open(args.json, "w", encoding="utf-8") as handle:
                json.dump(summary, handle, indent=1)
    elif args.command == "diagnose":
        print(json.dumps(diagnose(args), indent=1))
    else:
        print(compare(args.first, args.second))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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
* paired comparisons of two variants position by position (``--compare``).

95 % intervals are over deals (a deal's positions are one sample).  Moves
outside the bank's candidates (a wider search) are valued on the spot, the
same way.

Usage::

    python bench/bench_positions.py build --opponents heuristic --deals 300 --out bank-h.pkl
    python bench/bench_positions.py build --opponents easy --deals 300 --rollouts 8 --out bank-e.pkl
    nice -n 19 python bench/bench_positions.py score --bank bank-h.pkl --budget-ms 300 --json base.json
    nice -n 19 python bench/bench_positions.py score --bank bank-h.pkl --budget-ms 300 --hard batch=3 --json b.json
    python bench/bench_positions.py compare base.json b.json

Banks use deals ``seed * 1,000,000 + n`` with ``--seed`` 7 by default, apart
from the arenas' ``--seed 1``.  Any ``--hard NAME=VALUE`` of ``bench_ai.py``
applies (``clock`` is always CPU time here).
"""

from __future__ import annotations

import argparse
import json
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


def score(args: argparse.Namespace) -> dict:
    """Decide every position with a ``hard`` variant and value its choices."""
    with open(args.bank, "rb") as handle:
        meta, bank = pickle.load(handle)
    if args.limit:
        bank = bank[: args.limit]
    options = dict(_option(text) for text in args.hard)
    options["clock"] = time.process_time
    rows = []
    started = time.perf_counter()
    for index, position in enumerate(bank):
        player = HardPlayer(args.budget_ms, **options)
        view = position.game.view(position.seat)
        move = player.choose(view, random.Random(index))
        chosen = _mask(move)
        if chosen not in position.values:
            position.values[chosen] = true_value(position.game, position.seat, move, position.types, meta["rollouts"])
        values = position.values
        rows.append((index, position.deal, values[chosen], values[position.scorer_choice], max(values.values()),
                     player.last_worlds))
        if (index + 1) % 200 == 0:
            print(f"  {index + 1}/{len(bank)} positions, {time.perf_counter() - started:.0f} s", file=sys.stderr,
                  flush=True)
    return summarise(rows, {"bank": os.path.basename(args.bank), **meta, "budget_ms": args.budget_ms,
                            "hard_options": {k: v for k, v in options.items() if k != "clock"}})


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


def compare(first: str, second: str) -> str:
    """Paired: B's chosen value minus A's, position by position (same bank)."""
    with open(first, encoding="utf-8") as handle:
        a = {row[0]: row for row in json.load(handle)["per_position"]}
    with open(second, encoding="utf-8") as handle:
        b = {row[0]: row for row in json.load(handle)["per_position"]}
    common = sorted(set(a) & set(b))
    differences: dict[int, list[float]] = {}
    for index in common:
        differences.setdefault(a[index][1], []).append(b[index][2] - a[index][2])
    mean, ci = clustered_sum(differences, len(common) / len(differences))
    return (f"{len(common)} positions ({len(differences)} deals), B - A: {mean:+.4f} ± {ci:.4f} units per "
            f"decision (95 % CI over deals)")


def report(summary: dict) -> str:
    return (f"{summary['positions']} positions ({summary['deals']} deals), {summary['opponents']} opponents, "
            f"{summary['budget_ms']:g} ms CPU, options {summary['hard_options']}: gain over the scorer "
            f"{summary['gain']:+.4f} ± {summary['gain_ci95']:.4f}, regret {summary['regret']:.4f} ± "
            f"{summary['regret_ci95']:.4f} units per decision; changed {summary['changed']}; "
            f"worlds p50 {summary['worlds_p50']}")


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
    run.add_argument("--hard", action="append", default=[], metavar="NAME=VALUE")
    run.add_argument("--limit", type=int, default=0, help="only the first N positions")
    run.add_argument("--json")
    pair = commands.add_parser("compare", help="paired difference of two score runs")
    pair.add_argument("first")
    pair.add_argument("second")
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
        print(report(summary))
        if args.json:
            with open(args.json, "w", encoding="utf-8") as handle:
                json.dump(summary, handle, indent=1)
    else:
        print(compare(args.first, args.second))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

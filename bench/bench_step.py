"""The cost of one move through the runtime, without the database or Discord.

    python bench/bench_step.py [--games 200] [--repeat 5]

Four human seats play random legal moves (or pass) to the end of each game.
Measured per move, in microseconds of this process's CPU:

* ``step``: :func:`runtime.steps.apply` alone, the pure step built on a
  copy of the table and its game (``Game.copy`` is about 1 µs of it);
* ``service``: :meth:`runtime.service.TableService.play` end to end (lock,
  step, commit, keep, schedule, publish) with a store that commits at once
  and a notifier that does nothing, so what is left is the runtime's own
  work around the step.

Each figure is the median over ``--repeat`` runs of ``--games`` games.
``--instructions`` counts instead the CPU instructions of a move through
the service under valgrind's callgrind (steady where a shared machine's
clock is not): two runs of different lengths, the difference divided by
the difference in moves, so start-up and imports cancel out.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from runtime import steps  # noqa: E402
from runtime.records import Payout, Receipt  # noqa: E402
from runtime.server_settings import ServerSettings  # noqa: E402
from runtime.service import TableService  # noqa: E402
from runtime.settings import Settings  # noqa: E402

CHANNEL, GUILD = 1, 2
USERS = (11, 12, 13, 14)


def _instant_commit(channel_id, guild_id, records):
    """What the store would answer, at once: the new game's id, an empty payout."""
    kinds = {type(record).__name__ for record in records}
    game_id = 1 if "CreateGame" in kinds else None
    stored = asyncio.get_running_loop().create_future()
    stored.set_result(Receipt(game_id=game_id, payout=Payout(game_id=1, lines={}) if "SettleGame" in kinds else None))
    return stored


async def _rich(guild_id, user_id, *, starting_chips):
    return 10**9


async def _noted(game_id):
    return None


async def _defaults(guild_id, settings):
    return ServerSettings.defaults(guild_id, settings)


def service() -> TableService:
    settings = Settings(ai_delay_seconds=10**6, deal_seed=1, idle_minutes=10**6)
    tables = TableService(None, settings)  # type: ignore[arg-type]
    tables.store.submit = _instant_commit  # type: ignore[method-assign]
    tables.store.balance = _rich  # type: ignore[method-assign]
    tables.outbox._mark_posted = _noted
    tables.store.server_settings = _defaults  # type: ignore[method-assign]
    return tables


async def games(count: int, seed: int, *, time_step: bool = True) -> tuple[float, float, int]:
    """(seconds in service.play, seconds in steps.apply, moves) over ``count`` games."""
    tables = service()
    rng = random.Random(seed)
    await tables.create_table(channel_id=CHANNEL, guild_id=GUILD, user_id=USERS[0], name="p0", turn_seconds=120)
    for n, user in enumerate(USERS[1:], start=1):
        await tables.join(CHANNEL, user, f"p{n}")
    service_time = step_time = 0.0
    moves = 0
    clock = time.process_time
    for number in range(count):
        if number == 0:
            await tables.start_game(CHANNEL, USERS[0])
        else:
            await tables.next_game(CHANNEL, USERS[0])
        while True:
            state = tables.state(CHANNEL)
            game = state.game
            if game is None or game.finished:
                break
            seat = game.turn
            user = state.table.game_seats[seat].user_id
            plays = game.legal_plays(seat)
            choice = rng.randrange(len(plays) + (1 if game.can_pass(seat) else 0))
            command = steps.Play(user_id=user, cards=plays[choice]) if choice < len(plays) else steps.Pass(user_id=user)
            if time_step:
                context = tables._context()
                started = clock()
                steps.apply(state, command, context)
                step_time += clock() - started
            started = clock()
            if isinstance(command, steps.Play):
                await tables.play(CHANNEL, user, command.cards)
            else:
                await tables.pass_turn(CHANNEL, user)
            service_time += clock() - started
            moves += 1
        while tables.state(CHANNEL).game is not None:  # the table moves on to the next game
            await asyncio.sleep(0)
    await tables.close()
    return service_time, step_time, moves


def instructions(games_count: int) -> tuple[int, int]:
    """(instructions, moves) of a run of ``games_count`` games in a child under callgrind."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               "--child", str(games_count)]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"},
                            check=True)
    moves = int(re.search(r"moves (\d+)", result.stdout).group(1))
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1)), moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        _, _, moves = asyncio.run(games(args.child, seed=1, time_step=False))
        print(f"moves {moves}")
        return
    if args.instructions:
        short, short_moves = instructions(args.games // 4)
        long, long_moves = instructions(args.games)
        print(f"service (TableService.play): {(long - short) / (long_moves - short_moves):,.0f} instructions a move "
              f"({long_moves - short_moves} moves)")
        return
    service_us, step_us = [], []
    moves = 0
    for run in range(args.repeat):
        service_seconds, step_seconds, moves = asyncio.run(games(args.games, seed=run))
        service_us.append(1e6 * service_seconds / moves)
        step_us.append(1e6 * step_seconds / moves)
    print(f"{args.games} games ({moves} moves) a run, {args.repeat} runs, CPU time per move (median, min-max):")
    print(f"  step (steps.apply):          {statistics.median(step_us):7.1f} µs  "
          f"({min(step_us):.1f}-{max(step_us):.1f})")
    print(f"  service (TableService.play): {statistics.median(service_us):7.1f} µs  "
          f"({min(service_us):.1f}-{max(service_us):.1f})")


if __name__ == "__main__":
    main()

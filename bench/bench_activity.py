"""The Activity under load: how soon a move made in one client reaches the other clients of its table.

    python bench/bench_activity.py [--tables 1 10 25] [--seconds 20] [--no-rate-limits]

One bot, in this process, with its Activity server, against the fake Discord (also in this process).
Each table (its own channel) has four people, each signed in to the Activity over a real WebSocket on
loopback; whoever is on turn plays their lowest quick play at once (or passes), the host deals the next
game, so every table plays without pause while the bot also edits the table messages and DM hands of
every move (the fake's rate limits on, time-compressed as in the tests, unless ``--no-rate-limits``).

Reported per size: moves per second; for each play, the time from the mover's ``send`` to each other
client's receipt of the table showing it (p50, p99, max; the clients share the event loop with the bot,
so this includes the clients' own JSON parsing); the table frame's size on the wire (mean, max); and the
process's CPU seconds per move (bot, fake Discord and clients together: an upper bound on the bot's share).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from activity.settings import ActivitySettings  # noqa: E402
from runtime.settings import Settings  # noqa: E402
from tests.fakediscord import FakeDiscord  # noqa: E402
from tests.fakediscord.activities import CLIENT_SECRET  # noqa: E402
from tests.fakediscord.plugin import fixture_rate_limits  # noqa: E402
from tests.fakediscord.ratelimits import RateLimits  # noqa: E402
from tests.fakediscord.runner import BotHandle  # noqa: E402


class Player:
    def __init__(self, run: "Run", table: int, user, host: bool) -> None:
        self.run, self.table, self.user, self.host = run, table, user, host
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 0

    async def send(self, frame: dict) -> None:
        self.next_id += 1
        await self.ws.send_str(json.dumps({**frame, "id": self.next_id}))

    async def play(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        hand = None
        async for message in ws:
            frame = json.loads(message.data)
            kind = frame["type"]
            if kind == "table":
                self.run.seen_table(self, frame, len(message.data.encode()))
                if self.host and frame.get("phase") == "between":
                    await self.send({"type": "next"})
            elif kind == "hand":
                hand = frame["hand"]
                if hand and hand["turn"] and not self.run.stopping:
                    if hand["quick"]:
                        cards = hand["quick"][0]["cards"]
                        self.run.sent_play(self.table, cards)
                        await self.send({"type": "play", "cards": cards})
                    elif hand["can_pass"]:
                        await self.send({"type": "pass"})


class Run:
    def __init__(self) -> None:
        self.pending: dict[tuple[int, tuple[str, ...]], tuple[float, int]] = {}
        self.latencies: list[float] = []
        self.frame_sizes: list[int] = []
        self.moves = 0
        self.stopping = False
        self.last_top: dict[tuple[int, int], tuple] = {}

    def sent_play(self, table: int, cards: list[str]) -> None:
        self.pending[(table, tuple(cards))] = (time.perf_counter(), 0)
        self.moves += 1

    def seen_table(self, player: Player, frame: dict, size: int) -> None:
        self.frame_sizes.append(size)
        top = frame.get("top")
        if not top:
            return
        key = (player.table, tuple(top["cards"]))
        # Each client counts a play once, the first time its table shows it.
        if self.last_top.get((player.table, player.user.id)) == key:
            return
        self.last_top[(player.table, player.user.id)] = key
        sent = self.pending.get(key)
        if sent is not None:
            self.latencies.append(time.perf_counter() - sent[0])


async def bench(tables: int, seconds: float, rate_limits: bool) -> dict:
    fake = FakeDiscord(rate_limits=fixture_rate_limits() if rate_limits else RateLimits(enabled=False))
    await fake.start()
    folder = tempfile.mkdtemp()
    settings = Settings(discord_token="fake-bot-token", database_url=f"sqlite+aiosqlite:///{folder}/bench.db",
                        dev_guild_id=fake.guild.id, ai_delay_seconds=0.0, ai_workers=0, table_edit_interval=0.0,
                        min_turn_seconds=1, deal_seed=2026, starting_chips=10**6)
    from bot import TienLenBot

    bot = TienLenBot(settings, activity_settings=ActivitySettings(port=0, client_secret=CLIENT_SECRET),
                     guild_ready_timeout=0.05)
    handle = BotHandle(fake, bot, "fake-bot-token")
    await handle.start()
    run = Run()
    session = aiohttp.ClientSession()
    tasks: list[asyncio.Task] = []
    sockets = []
    try:
        for number in range(tables):
            channel = fake.add_channel(f"table-{number}")
            users = [fake.add_user(f"p{number}-{seat}") for seat in range(4)]
            instance = fake.activities.launch(channel, users)
            players = []
            for seat, user in enumerate(users):
                ws = await session.ws_connect(f"http://127.0.0.1:{bot.activity_server.port}/ws")
                await ws.send_str(json.dumps({"type": "hello", "access_token": fake.activities.token_for(user),
                                              "instance_id": instance}))
                sockets.append(ws)
                player = Player(run, number, user, host=seat == 0)
                players.append(player)
                tasks.append(asyncio.create_task(player.play(ws)))
            await asyncio.sleep(0.05)
            await players[0].send({"type": "create"})
            await asyncio.sleep(0.05)
            for player in players[1:]:
                await player.send({"type": "join"})
            await asyncio.sleep(0.05)
            await players[0].send({"type": "start"})
        await asyncio.sleep(1.0)  # the first deals
        run.latencies.clear()
        moves, cpu, wall = run.moves, time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        moves, cpu, wall = run.moves - moves, time.process_time() - cpu, time.perf_counter() - wall
        run.stopping = True
    finally:
        for task in tasks:
            task.cancel()
        for ws in sockets:
            with contextlib.suppress(Exception):
                await ws.close()
        await session.close()
        await handle.stop()
        await fake.stop()
    latencies = sorted(run.latencies)

    def at(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")

    return {"tables": tables, "moves_per_s": moves / wall, "samples": len(latencies), "p50_ms": at(0.50),
            "p99_ms": at(0.99), "max_ms": latencies[-1] * 1000 if latencies else float("nan"),
            "frame_mean_b": statistics.fmean(run.frame_sizes) if run.frame_sizes else 0,
            "frame_max_b": max(run.frame_sizes, default=0), "cpu_ms_per_move": cpu / moves * 1000 if moves else 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 25])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--no-rate-limits", action="store_true")
    args = parser.parse_args()
    client = Path(__file__).resolve().parents[1] / "activity" / "client"
    import gzip

    code = sum(len(gzip.compress(path.read_bytes())) for path in client.iterdir() if path.is_file())
    print(f"client code: {code / 1024:.0f} KB gzip-compressed ({', '.join(sorted(p.name for p in client.iterdir()))})")
    print("tables  moves/s  samples  p50 ms  p99 ms  max ms  frame mean/max B  CPU ms/move")
    for tables in args.tables:
        result = asyncio.run(bench(tables, args.seconds, not args.no_rate_limits))
        print(f"{result['tables']:>6}  {result['moves_per_s']:7.1f}  {result['samples']:7d}  {result['p50_ms']:6.1f}"
              f"  {result['p99_ms']:6.1f}  {result['max_ms']:6.1f}  {result['frame_mean_b']:7.0f}/{result['frame_max_b']:<7d}"
              f"  {result['cpu_ms_per_move']:8.2f}")


if __name__ == "__main__":
    main()

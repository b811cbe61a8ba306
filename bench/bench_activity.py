"""The Activity under load: how soon a move made in one client reaches the other clients of its table.

    python bench/bench_activity.py [--tables 1 10 25] [--seconds 20] [--no-rate-limits]

One bot, in this process, with its Activity server, against the fake Discord (also in this process).
Each table (its own channel) has four people, each signed in to the Activity over a real WebSocket on
loopback; whoever is on turn plays their lowest quick play at once (or passes), the host deals the next
game, so every table plays without pause while the bot also edits the table messages and DM hands of
every move (the fake's rate limits on, time-compressed as in the tests, unless ``--no-rate-limits``).

Reported per size: moves per second; for each play, the time from the mover's ``send`` to each other
client's receipt of the table showing it (p50, p99, max; the clients share the event loop with the bot,
so this includes the clients' own JSON parsing); the table frame's size on the wire (mean, max); the
process's CPU time per move (bot, fake Discord and clients together: an upper bound on the bot's share), and
of it the Activity's own push (the hub wording the table and each hand and queueing the frames).
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
from collections import Counter
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
        self.dealt_after = None
        self.moved: tuple | None = None
        self.answers: dict[int, asyncio.Future] = {}

    async def send(self, frame: dict) -> None:
        self.next_id += 1
        await self.ws.send_str(json.dumps({**frame, "id": self.next_id}))

    async def ask(self, frame: dict) -> dict:
        """Send and wait for the answer (setting up a table: create, join, start in order)."""
        answer = self.answers[self.next_id + 1] = asyncio.get_running_loop().create_future()
        await self.send(frame)
        return await asyncio.wait_for(answer, 10)

    async def play(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        hand = None
        async for message in ws:
            frame = json.loads(message.data)
            kind = frame["type"]
            if kind == "table":
                self.run.seen_table(self, frame, len(message.data.encode()))
                if self.host and frame.get("phase") == "between" and frame.get("game") != self.dealt_after:
                    self.dealt_after = frame.get("game")  # once per game (a client is allowed 10 frames a second)
                    await self.send({"type": "next"})
            elif kind == "error":
                self.run.errors[frame["code"]] += 1
            if kind in ("ok", "error") and frame.get("id") in self.answers:
                self.answers.pop(frame["id"]).set_result(frame)
            elif kind == "hand":
                hand = frame["hand"]
                # One move per turn, as a person taps once (the same hand may be pushed again meanwhile).
                if hand and hand["turn"] and not self.run.stopping and (hand["game"], hand["version"]) != self.moved:
                    self.moved = (hand["game"], hand["version"])
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
        self.errors: Counter[str] = Counter()
        self.push_seconds = 0.0

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
    # Scripted players move at machine speed (a round leader whom everyone passes leads again at once):
    # they get 100 frames a second instead of a person's 10, so the flood limit does not pace the run.
    bot.activity_server.frame_rate, bot.activity_server.frame_burst = 100.0, 200
    run = Run()
    hub = bot.activity_server.hub
    pushing = hub.table_changed

    def timed_push(snapshot) -> None:  # the Activity's own share of a move: wording and queueing the frames
        started = time.perf_counter()
        pushing(snapshot)
        run.push_seconds += time.perf_counter() - started

    hub.table_changed = timed_push
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
            while players[-1].ws is None or any(player.next_id is None for player in players):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)  # signed in
            await players[0].ask({"type": "create"})
            for player in players[1:]:
                await player.ask({"type": "join"})
            await players[0].ask({"type": "start"})
        await asyncio.sleep(1.0)  # the first deals
        run.latencies.clear()
        moves, cpu, wall, push = run.moves, time.process_time(), time.perf_counter(), run.push_seconds
        await asyncio.sleep(seconds)
        moves, cpu, wall = run.moves - moves, time.process_time() - cpu, time.perf_counter() - wall
        push = run.push_seconds - push
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

    if run.errors:
        print(f"  refused: {dict(run.errors)}")
    return {"tables": tables, "moves_per_s": moves / wall, "samples": len(latencies), "p50_ms": at(0.50),
            "p99_ms": at(0.99), "max_ms": latencies[-1] * 1000 if latencies else float("nan"),
            "frame_mean_b": statistics.fmean(run.frame_sizes) if run.frame_sizes else 0,
            "frame_max_b": max(run.frame_sizes, default=0), "cpu_ms_per_move": cpu / moves * 1000 if moves else 0,
            "push_ms_per_move": push / moves * 1000 if moves else 0}


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
    print("tables  moves/s  samples  p50 ms  p99 ms  max ms  frame mean/max B  CPU ms/move  of which push ms")
    for tables in args.tables:
        result = asyncio.run(bench(tables, args.seconds, not args.no_rate_limits))
        print(f"{result['tables']:>6}  {result['moves_per_s']:7.1f}  {result['samples']:7d}  {result['p50_ms']:6.1f}"
              f"  {result['p99_ms']:6.1f}  {result['max_ms']:6.1f}  {result['frame_mean_b']:7.0f}/{result['frame_max_b']:<7d}"
              f"  {result['cpu_ms_per_move']:8.2f}  {result['push_ms_per_move']:8.3f}")


if __name__ == "__main__":
    main()

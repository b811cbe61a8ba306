"""The Activity under load: how soon a move made in one client reaches the other clients of its table.

    python bench/bench_activity.py [--tables 1 10 25] [--seconds 20] [--think MIN MAX] [--no-rate-limits]
                                   [--bot-process [--clients-process] [--postgres URL]]

Each table (its own channel) has four people, each signed in to the Activity over a real WebSocket on
loopback; whoever is on turn plays their lowest quick play (or passes) after thinking ``--think`` seconds
(0 0: at once), the host deals the next game, and the bot also edits the table messages and DM hands
of every move (the fake's rate limits on unless ``--no-rate-limits``).

By default the bot, the fake Discord and the clients share this process and its event loop (the fake's
limits time-compressed as in the tests), and the Activity's own push is timed inside the bot.  With
``--bot-process`` the bot runs as deployed, ``python bot.py`` in its own process (the fake's limits at
Discord's pace; DM channels not limited, as for returning players), and its CPU time is read from
/proc; ``--clients-process`` moves the clients into a third process, so that what they measure is not
delayed by the fake Discord; ``--postgres`` gives the bot a fresh database on that server.

Reported per size: moves per second; for each play, the time from the mover's ``send`` to each other
client's receipt of the table showing it (p50, p99, max); the table frame's size on the wire (mean,
max); CPU time per move of this process (and of the Activity's push, in-process); the bot process's CPU
per move (``--bot-process``); and how late the clients' own event loop woke up (p99, max), which is part
of every latency they measure.  ``BENCH_ACTIVITY_TRACE=1`` prints each sample's time (to see whether
slow ones come together) and the bot's database transaction times; ``BENCH_ASYNCIO_DEBUG=1`` runs the
bot in asyncio's debug mode (slow callbacks logged).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
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
    def __init__(self, run: "Run", table: int, seat: int, think: tuple[float, float] = (0.0, 0.0)) -> None:
        self.run, self.table, self.seat, self.host = run, table, seat, seat == 0
        self.think = think
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 0
        self.dealt_after = None
        self.moved: tuple | None = None
        self.hand: dict | None = None
        self.answers: dict[int, asyncio.Future] = {}
        self.pending: set[asyncio.Task] = set()

    async def send(self, frame: dict) -> None:
        self.next_id += 1
        await self.ws.send_str(json.dumps({**frame, "id": self.next_id}))

    async def ask(self, frame: dict) -> dict:
        """Send and wait for the answer (setting up a table: create, join, start in order)."""
        answer = self.answers[self.next_id + 1] = asyncio.get_running_loop().create_future()
        await self.send(frame)
        return await asyncio.wait_for(answer, 30)

    def later(self, act) -> None:
        """Act after thinking, without holding up the reading of frames (a person looks while thinking)."""
        async def thinking() -> None:
            await asyncio.sleep(random.uniform(*self.think))
            await act()
        if self.think[1] <= 0:
            task = asyncio.ensure_future(act())
        else:
            task = asyncio.ensure_future(thinking())
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def deal(self) -> None:
        if not self.run.stopping:
            await self.send({"type": "next"})

    async def move(self, seen: tuple) -> None:
        hand = self.hand
        # The hand may have changed while thinking (a chop, a time-out): move only on the hand thought about.
        if self.run.stopping or not hand or not hand["turn"] or (hand["game"], hand["version"]) != seen:
            return
        if hand["quick"]:
            cards = hand["quick"][0]["cards"]
            self.run.sent_play(self.table, cards)
            await self.send({"type": "play", "cards": cards})
        elif hand["can_pass"]:
            await self.send({"type": "pass"})

    async def play(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        async for message in ws:
            frame = json.loads(message.data)
            kind = frame["type"]
            if kind == "table":
                self.run.seen_table(self, frame, len(message.data.encode()))
                if self.host and frame.get("phase") == "between" and frame.get("game") != self.dealt_after:
                    self.dealt_after = frame.get("game")  # once per game (a client is allowed 10 frames a second)
                    self.later(self.deal)
            elif kind in ("error", "bye"):
                self.run.errors[f"{kind}:{frame['code']}"] += 1
            if kind in ("ok", "error") and frame.get("id") in self.answers:
                self.answers.pop(frame["id"]).set_result(frame)
            elif kind == "hand":
                self.hand = hand = frame["hand"]
                # One move per turn, as a person taps once (the same hand may be pushed again meanwhile).
                if hand and hand["turn"] and (hand["game"], hand["version"]) != self.moved:
                    self.moved = (hand["game"], hand["version"])
                    self.later(lambda seen=self.moved: self.move(seen))


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
        self.sign_in_retries = 0
        self.lags: list[float] = []

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
        if self.last_top.get((player.table, player.seat)) == key:
            return
        self.last_top[(player.table, player.seat)] = key
        sent = self.pending.get(key)
        if sent is not None:
            now = time.perf_counter()
            self.latencies.append(now - sent[0])
            if os.environ.get("BENCH_ACTIVITY_TRACE"):  # when the slow ones happen (a stall is all at once)
                print(f"trace {now:.3f} {now - sent[0]:.4f} {player.table}", file=sys.stderr)


def prepare_tables(fake: FakeDiscord, tables: int) -> list[dict]:
    """``tables`` channels, each with four new players in one activity instance: what the clients need."""
    prepared = []
    for number in range(tables):
        channel = fake.add_channel(f"table-{number}")
        users = [fake.add_user(f"p{number}-{seat}") for seat in range(4)]
        instance = fake.activities.launch(channel, users)
        prepared.append({"instance": instance, "tokens": [fake.activities.token_for(user) for user in users]})
    return prepared


async def seat_tables(port: int, prepared: list[dict], run: Run, session: aiohttp.ClientSession,
                      think: tuple[float, float]) -> tuple[list[asyncio.Task], list]:
    """Four signed-in clients a table; the host creates, the others join, the host deals."""
    tasks: list[asyncio.Task] = []
    sockets = []
    for number, table in enumerate(prepared):
        players = []
        for seat, token in enumerate(table["tokens"]):
            ws = await sign_in(session, port, token, table["instance"], run)
            sockets.append(ws)
            player = Player(run, number, seat, think=think)
            players.append(player)
            tasks.append(asyncio.create_task(player.play(ws)))
        await players[0].ask({"type": "create"})
        for player in players[1:]:
            await player.ask({"type": "join"})
        await players[0].ask({"type": "start"})
    return tasks, sockets


async def sign_in(session: aiohttp.ClientSession, port: int, token: str, instance: str, run: Run):
    """A signed-in socket (its welcome read); refused for a passing reason (Discord's rate limit on the
    sign-in's two calls), it connects again after a moment, as the client does."""
    for attempt in range(20):
        ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws")
        await ws.send_str(json.dumps({"type": "hello", "access_token": token, "instance_id": instance}))
        frame = json.loads((await ws.receive(timeout=30)).data)
        if frame["type"] == "welcome":
            return ws
        await ws.close()
        if frame.get("code") != "discord_down":
            raise RuntimeError(f"could not sign in: {frame}")
        run.sign_in_retries += 1
        await asyncio.sleep(0.5 * (attempt + 1))
    raise RuntimeError("could not sign in after 20 attempts")


async def close_all(tasks: list[asyncio.Task], sockets: list, session: aiohttp.ClientSession) -> None:
    for task in tasks:
        task.cancel()
    for ws in sockets:
        with contextlib.suppress(Exception):
            await ws.close()
    await session.close()


async def bench(tables: int, seconds: float, rate_limits: bool, think: tuple[float, float]) -> dict:
    """Bot, fake Discord and clients in this process (the Activity's own push timed inside the bot)."""
    fake = FakeDiscord(rate_limits=fixture_rate_limits() if rate_limits else RateLimits(enabled=False))
    await fake.start()
    folder = tempfile.mkdtemp()
    settings = Settings(discord_token="fake-bot-token", database_url=f"sqlite+aiosqlite:///{folder}/bench.db",
                        dev_guild_id=fake.guild.id, ai_delay_seconds=0.0, ai_workers=0, table_edit_interval=0.0,
                        min_turn_seconds=1, deal_seed=2026, starting_chips=10**6)
    from bot import TienLenBot

    from activity.hub import Hub

    pushing = Hub.table_changed
    run = Run()

    def timed_push(hub, snapshot) -> None:  # the Activity's own share of a move: wording and queueing the frames
        started = time.perf_counter()
        pushing(hub, snapshot)
        run.push_seconds += time.perf_counter() - started

    Hub.table_changed = timed_push  # before the bot starts: the outbox keeps the hub's method it is given
    bot = TienLenBot(settings, activity_settings=ActivitySettings(port=0, client_secret=CLIENT_SECRET),
                     guild_ready_timeout=0.05)
    handle = BotHandle(fake, bot, "fake-bot-token")
    await handle.start()
    if think[1] <= 0:
        # Scripted players at machine speed (a round leader whom everyone passes leads again at once) get
        # 100 frames a second instead of a person's 10, so the flood limit does not pace the run.
        bot.activity_server.frame_rate, bot.activity_server.frame_burst = 100.0, 200
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))  # one socket a client
    tasks, sockets = [], []
    try:
        tasks, sockets = await seat_tables(bot.activity_server.port, prepare_tables(fake, tables), run, session,
                                           think)
        measured = await measure(run, seconds, think, process_cpu=time.process_time)
    finally:
        Hub.table_changed = pushing
        await close_all(tasks, sockets, session)
        await handle.stop()
        await fake.stop()
    return summarise(run, tables, measured)


async def bench_bot_process(tables: int, seconds: float, rate_limits: bool, think: tuple[float, float],
                            clients_process: bool = False, postgres: str | None = None) -> dict:
    """The bot as its own ``python bot.py`` process (as deployed); the fake Discord in this one, and the
    clients here too or (``clients_process``) in a third process of their own."""
    from tests.e2e.cluster_support import free_port
    from tests.e2e.process import BotProcess

    async with FakeDiscord(default_world=True) as fake:
        fake.fail_on_gaps = False
        fake.rate_limits.enabled = rate_limits
        fake.webhook_media_quirk = True
        # Returning players: their DM channels are known (Discord lets a bot open only ~5 new ones per 5 s,
        # which would decide how soon 400 new players' first deals start; bench_load's --dm-opens).
        fake.rate_limits.set_limit("dm-create", 10_000, 5.0)
        async with database_for_run(postgres) as url:
            bot = BotProcess(fake, url, TIENLEN_TEST_SEED="1",
                             ACTIVITY_PORT=str(free_port()), DISCORD_CLIENT_SECRET=CLIENT_SECRET,
                             STARTING_CHIPS=str(10**6), METRICS_PORT=str(free_port()),
                             **({"PYTHONASYNCIODEBUG": "1"} if os.environ.get("BENCH_ASYNCIO_DEBUG") else {}))
            await bot.start()
            port = int(bot.env["ACTIVITY_PORT"])
            if clients_process:
                try:
                    return await clients_elsewhere(port, prepare_tables(fake, tables), seconds, think, bot)
                finally:
                    await bot.stop()
            run = Run()
            session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))  # one socket a client
            tasks, sockets = [], []
            try:
                try:
                    tasks, sockets = await seat_tables(port, prepare_tables(fake, tables), run, session, think)
                except Exception:
                    print(f"  seating failed ({dict(run.errors)}); the bot's log ends:\n{bot.stderr()[-3000:]}")
                    raise
                measured = await measure(run, seconds, think, process_cpu=time.process_time,
                                         bot_cpu=bot.cpu_seconds)
            finally:
                await close_all(tasks, sockets, session)
                await bot.stop()
    return summarise(run, tables, measured)


@contextlib.asynccontextmanager
async def database_for_run(postgres: str | None):
    """A fresh SQLite file, or a fresh database on the PostgreSQL server of ``postgres``."""
    if postgres:
        from tests.e2e.cluster_support import fresh_database

        async with fresh_database(postgres, prefix="tl_bench") as url:
            yield url
    else:
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite+aiosqlite:///{folder}/bench.db"


async def clients_elsewhere(port: int, prepared: list[dict], seconds: float, think: tuple[float, float],
                            bot) -> dict:
    """Run the clients in a process of their own (``--clients SPEC``) and time the bot over their window."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as spec:
        json.dump({"port": port, "tables": prepared, "seconds": seconds, "think": list(think)}, spec)
    child = await asyncio.create_subprocess_exec(sys.executable, __file__, "--clients", spec.name,
                                                 stdout=asyncio.subprocess.PIPE)
    try:
        assert child.stdout is not None
        while (line := await child.stdout.readline()) and line.strip() != b"measuring":
            pass
        bot_cpu, fake_cpu, wall = bot.cpu_seconds(), time.process_time(), time.perf_counter()
        result = json.loads(await child.stdout.readline())
        if os.environ.get("BENCH_ACTIVITY_TRACE"):
            async with aiohttp.ClientSession() as session:
                async with session.get(f"http://127.0.0.1:{bot.env['METRICS_PORT']}/metrics") as response:
                    text = await response.text()
            print("\n".join(line for line in text.splitlines() if line.startswith("tienlen_db_transaction")),
                  file=sys.stderr)
        bot_cpu, fake_cpu = bot.cpu_seconds() - bot_cpu, time.process_time() - fake_cpu
        wall = time.perf_counter() - wall
    finally:
        await child.wait()
        os.unlink(spec.name)
    moves = result["moves"]
    result["bot_cpu_ms_per_move"] = bot_cpu / moves * 1000 if moves else float("nan")
    result["fake_cpu_share"] = fake_cpu / wall
    return result


async def run_clients(spec_path: str) -> None:
    """The ``--clients`` process: seat the tables, say ``measuring`` when the window opens, then print the
    result as one JSON line."""
    spec = json.loads(Path(spec_path).read_text())
    run = Run()
    think = tuple(spec["think"])
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    tasks, sockets = [], []
    try:
        tasks, sockets = await seat_tables(spec["port"], spec["tables"], run, session, think)
        measured = await measure(run, spec["seconds"], think, process_cpu=time.process_time,
                                 on_start=lambda: print("measuring", flush=True))
    finally:
        await close_all(tasks, sockets, session)
    result = summarise(run, len(spec["tables"]), measured)
    print(json.dumps({**result, "moves": measured["moves"]}), flush=True)


async def watch_lag(run: Run) -> None:
    """How late this process's event loop wakes up (the clients' own delay in what they measure)."""
    while True:
        started = time.perf_counter()
        await asyncio.sleep(0.01)
        run.lags.append(time.perf_counter() - started - 0.01)


async def measure(run: Run, seconds: float, think: tuple[float, float], *, process_cpu, bot_cpu=None,
                  on_start=None) -> dict:
    await asyncio.sleep(1.0 + think[1])  # the first deals and moves
    run.latencies.clear()
    if on_start is not None:
        on_start()
    lag = asyncio.create_task(watch_lag(run))
    moves, cpu, wall, push = run.moves, process_cpu(), time.perf_counter(), run.push_seconds
    bot_before = bot_cpu() if bot_cpu else 0.0
    await asyncio.sleep(seconds)
    measured = {"moves": run.moves - moves, "cpu": process_cpu() - cpu, "wall": time.perf_counter() - wall,
                "push": run.push_seconds - push, "bot_cpu": (bot_cpu() - bot_before) if bot_cpu else None}
    run.stopping = True
    lag.cancel()
    return measured


def summarise(run: Run, tables: int, measured: dict) -> dict:
    latencies = sorted(run.latencies)

    def at(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")

    if run.errors or run.sign_in_retries:
        print(f"  refused: {dict(run.errors)}; sign-ins tried again: {run.sign_in_retries}", file=sys.stderr)
    moves = measured["moves"]
    per_move = (lambda seconds: seconds / moves * 1000 if moves and seconds is not None else float("nan"))
    return {"tables": tables, "moves_per_s": moves / measured["wall"], "samples": len(latencies), "p50_ms": at(0.50),
            "p99_ms": at(0.99), "max_ms": latencies[-1] * 1000 if latencies else float("nan"),
            "frame_mean_b": statistics.fmean(run.frame_sizes) if run.frame_sizes else 0,
            "frame_max_b": max(run.frame_sizes, default=0), "cpu_ms_per_move": per_move(measured["cpu"]),
            "push_ms_per_move": per_move(measured["push"]) if measured["push"] else float("nan"),
            "bot_cpu_ms_per_move": per_move(measured["bot_cpu"]),
            "harness_cpu_share": measured["cpu"] / measured["wall"],
            "harness_lag_p99_ms": sorted(run.lags)[int(0.99 * len(run.lags))] * 1000 if run.lags else float("nan"),
            "harness_lag_max_ms": max(run.lags, default=float("nan")) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 25])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--no-rate-limits", action="store_true")
    parser.add_argument("--think", type=float, nargs=2, default=(0.0, 0.0), metavar=("MIN", "MAX"),
                        help="seconds a player thinks before each move (0 0: at once)")
    parser.add_argument("--bot-process", action="store_true",
                        help="run the bot as its own process (python bot.py), as deployed")
    parser.add_argument("--clients-process", action="store_true",
                        help="with --bot-process: the clients in a third process, apart from the fake Discord")
    parser.add_argument("--postgres", metavar="URL",
                        help="with --bot-process: a fresh database on this PostgreSQL server instead of SQLite")
    parser.add_argument("--clients", metavar="SPEC", help=argparse.SUPPRESS)  # the clients' own process
    args = parser.parse_args()
    if args.clients:
        asyncio.run(run_clients(args.clients))
        return
    client = Path(__file__).resolve().parents[1] / "activity" / "client"
    import gzip

    code = sum(len(gzip.compress(path.read_bytes())) for path in client.iterdir() if path.is_file())
    print(f"client code: {code / 1024:.0f} KB gzip-compressed ({', '.join(sorted(p.name for p in client.iterdir()))})")
    where = "the bot in its own process" if args.bot_process else "bot, fake Discord and clients in one process"
    where += f", {'PostgreSQL' if args.postgres else 'SQLite'}"
    pace = "at once" if args.think[1] <= 0 else f"players think {args.think[0]:g}–{args.think[1]:g} s a move"
    print(f"{where}; {pace}; {args.seconds:g} s a run")
    print("tables  moves/s  samples  p50 ms  p99 ms  max ms  frame mean/max B  CPU ms/move (all)  of which push"
          "  bot CPU ms/move  harness CPU share  harness loop lag p99/max ms")
    for tables in args.tables:
        options = (tables, args.seconds, not args.no_rate_limits, tuple(args.think))
        if args.bot_process:
            result = asyncio.run(bench_bot_process(*options, clients_process=args.clients_process,
                                                   postgres=args.postgres))
        else:
            result = asyncio.run(bench(*options))
        print(f"{result['tables']:>6}  {result['moves_per_s']:7.1f}  {result['samples']:7d}  {result['p50_ms']:6.1f}"
              f"  {result['p99_ms']:6.1f}  {result['max_ms']:6.1f}  {result['frame_mean_b']:7.0f}/{result['frame_max_b']:<7d}"
              f"  {result['cpu_ms_per_move']:8.2f}  {result['push_ms_per_move']:8.3f}"
              f"  {result['bot_cpu_ms_per_move']:8.2f}  {result['harness_cpu_share']:6.0%}"
              f"  {result['harness_lag_p99_ms']:6.1f}/{result['harness_lag_max_ms']:.1f}")
        if "fake_cpu_share" in result:
            print(f"        (clients in their own process: the harness columns are theirs; the fake Discord's "
                  f"process used {result['fake_cpu_share']:.0%} of a core)")


if __name__ == "__main__":
    main()

"""A cluster of bot processes on PostgreSQL against the rate-limiting fake Discord.

    python bench/bench_cluster.py [--processes 1 2 3] [--steps 10 20 40 ...] [--kills 10] [--quick]

Every configuration runs real ``python bot.py`` processes (``CLUSTERS=N``,
``SHARD_COUNT=6``) against the fake Discord, which runs with the load
generator in this process, and a fresh PostgreSQL database per run.  Six
guilds, one on each shard, hold the tables (round robin, so every slot gets
as many); each table has four players who are members of its guild and play
with the buttons and menus of their DM hand messages (Discord delivers DM
interactions to shard 0, so slot 0 forwards the moves of other slots' tables
through PostgreSQL).  Players choose the engine's baseline play (as in
``bench_load.py``).

Parts, for N = 1, 2, 3 processes (one cluster per N):

1. **Human pace**: players think 2-6 s per move.  Tables are added in steps;
   after each step's tables have started their first game, the first
   response of every move is measured for ``--window`` seconds.  The rated
   load is the largest step whose p99 stays <= 250 ms.
2. **Flat out**: the same tables, players answer as soon as their hand says
   "Your turn"; interactions/s and first-response p50/p99 over ``--flat-seconds``.
3. **Takeover** (CLUSTERS=2, three processes: two slot holders and a
   standby): ``--kills`` times, SIGKILL the holder of a slot (alternately 0
   and 1) while its tables are mid-game; time from the kill to the new
   owner's first edit of one of that slot's table messages (the "restarted"
   text); then a fresh process becomes the new standby.  Afterwards the games
   finish and the database is checked: chips per guild conserved, every
   finished game replays to its stored outcome, no stored move lost across a
   kill.

Also counted: 429s the fake answered (and ``tienlen_rest_rate_limited_total``
from each process's /metrics) and REST calls per move.  The database is
``TEST_DATABASE_URL`` (default ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``),
where a database per run is created and dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import time
from collections import Counter
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import aiohttp  # noqa: E402
import asyncpg  # noqa: E402

from bench.bench_load import NOW, RULES, _says_turn, percentile  # noqa: E402
from i18n import t  # noqa: E402
from tests.e2e.cluster_support import dsn, free_port, fresh_database, metric, slot_holders  # noqa: E402
from tests.e2e.driver import baseline_key, field_value  # noqa: E402
from tests.e2e.process import BotProcess  # noqa: E402
from tests.fakediscord import ClientRefused, FakeDiscord, InteractionTimeout  # noqa: E402
from tienlen import Game, classify  # noqa: E402

PG_URL = os.environ.get("TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
SHARDS = 6  # a multiple of 1, 2 and 3
STARTING_CHIPS = 1000
BET = 10
P99_LIMIT_MS = 250.0
RESTORED = t("en", "event.restored")
STARTED = t("en", "reply.started")
TABLE_EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"
# What a player meets and simply tries again after: no answer within 3 s, a stale
# view, or (the fake's AssertionError) no process connected for that shard right now.
RETRY = (InteractionTimeout, ClientRefused, AssertionError)


# ---------------------------------------------------------------- infrastructure
def rate_limited_count(fake: FakeDiscord, since: int = 0) -> int:
    """429s the fake answered since a request mark (works with or without its rate-limit API)."""
    return sum(1 for request in fake.requests[since:] if request.status == 429)


def rate_limited_routes(fake: FakeDiscord, since: int = 0) -> Counter:
    return Counter(f"{r.key} ({getattr(r, 'rate_limited', None) or '?'})"
                   for r in fake.requests[since:] if r.status == 429)


class Cluster:
    """N slot holders (and standbys) as real ``python bot.py`` processes."""

    def __init__(self, fake: FakeDiscord, url: str, clusters: int, seed: int = 11) -> None:
        self.fake = fake
        self.url = url
        self.clusters = clusters
        self.seed = seed
        self.processes: list[BotProcess] = []
        self.session: aiohttp.ClientSession | None = None

    async def launch(self) -> BotProcess:
        process = BotProcess(self.fake, self.url, "--sync", CLUSTERS=str(self.clusters), SHARD_COUNT=str(SHARDS),
                             DEV_GUILD_ID="", TIENLEN_TEST_SEED=str(self.seed), LOG_LEVEL="WARNING",
                             METRICS_PORT=str(free_port()), TIENLEN_TEST_API_BASE="",
                             DISCORD_API_BASE=self.fake.api_base, STARTING_CHIPS=str(STARTING_CHIPS))
        process.metrics_url = f"http://127.0.0.1:{process.env['METRICS_PORT']}"
        await process.launch()
        self.processes.append(process)
        return process

    @property
    def live(self) -> list[BotProcess]:
        return [p for p in self.processes if p.process is not None and p.process.returncode is None]

    async def holders(self) -> dict[int, int]:
        """slot -> pid of the process that claimed it last."""
        return await slot_holders(self.url)

    async def formed(self, timeout: float = 120.0) -> dict[int, BotProcess]:
        """Until every slot is held by a live process and every shard is connected."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            by_pid = {p.pid: p for p in self.live}
            live = {slot: by_pid[pid] for slot, pid in (await self.holders()).items() if pid in by_pid}
            shards = {session.shard[0] for session in self.fake.gateway.connected_sessions
                      if session.shard[1] == SHARDS}
            if set(live) == set(range(self.clusters)) and shards >= set(range(SHARDS)) \
                    and self.fake.commands.list(None):
                return live
            await asyncio.sleep(0.1)
        logs = "\n".join(p.stderr()[-2000:] for p in self.processes)
        raise AssertionError(f"the cluster did not form:\n{logs}")

    async def metrics(self) -> dict[int, str]:
        """pid -> /metrics text of every live process that answers (a fresh connection each time)."""
        texts = {}
        for process in self.live:
            for _attempt in range(2):
                try:
                    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session, \
                            session.get(f"{process.metrics_url}/metrics",
                                        timeout=aiohttp.ClientTimeout(total=30)) as response:
                        texts[process.pid] = await response.text()
                        break
                except (aiohttp.ClientError, asyncio.TimeoutError) as error:
                    print(f"  (no /metrics from {process.pid}: {error!r})", flush=True)
        return texts

    async def answering(self, process: BotProcess, timeout: float = 60.0) -> None:
        """Until the process serves /metrics (set up, claiming or standing by)."""
        if self.session is None:
            self.session = aiohttp.ClientSession()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                async with self.session.get(f"{process.metrics_url}/healthz") as response:
                    await response.read()
                    return
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
        raise AssertionError(f"process {process.pid} never served /healthz:\n{process.stderr()[-2000:]}")

    async def stop(self) -> None:
        for process in self.processes:
            await process.stop()
        if self.session is not None:
            await self.session.close()

    def warnings(self) -> Counter:
        """Warning/error lines of every process, with numbers and ids blanked, counted."""
        lines: Counter = Counter()
        for process in self.processes:
            for line in process.stderr().splitlines():
                match = re.search(r" (WARNING|ERROR|CRITICAL) (.*)$", line)
                if match:
                    lines[re.sub(r"\d+", "#", match.group(0).strip())[:160]] += 1
        return lines


# ---------------------------------------------------------------- the players
@dataclass
class Seat:
    """One table: its channel, guild, slot, players and live state."""

    index: int
    guild: Any
    slot: int
    channel: Any
    users: list[Any]
    message: Any = None
    started: bool = False
    done: bool = False
    failed: BaseException | None = None
    moves: int = 0
    last_move: float = 0.0
    hands: dict[int, Any] = field(default_factory=dict)


class ClusterLoad:
    """Scripted players at many tables in several guilds (bench_load's player, per table)."""

    def __init__(self, fake: FakeDiscord, think: tuple[float, float]) -> None:
        self.fake = fake
        self.think = think
        self.rng = random.Random(5)
        self.samples: list[tuple[float, float, bool]] = []  # (when, first-response latency, forwarded)
        self.setup_latencies: list[float] = []
        self.move_times: list[float] = []
        self.timeouts: list[float] = []
        self.moving_replies: list[float] = []  # "the table is moving" answers (forwarding timed out)
        self.games = 0
        self.stopping = False  # every table stops now
        self.finishing = False  # every table stops at the end of its current game
        self.seats: list[Seat] = []
        self.tasks: list[asyncio.Task] = []

    async def interact(self, coro, *, setup: bool = False, forwarded: bool = False):
        try:
            result = await coro
        except InteractionTimeout:
            self.timeouts.append(time.monotonic())  # Discord would show "This interaction failed"
            raise
        if setup:
            self.setup_latencies.append(result.latency)
        else:
            self.samples.append((time.monotonic(), result.latency, forwarded))
        return result

    def open(self, seat: Seat, delay: float) -> None:
        self.seats.append(seat)
        self.tasks.append(asyncio.create_task(self._table(seat, delay), name=f"table-{seat.index}"))

    async def _table(self, seat: Seat, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            await self._open(seat)
            await self._play(seat)
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # noqa: BLE001 - counted and reported
            seat.failed = error

    async def _open(self, seat: Seat) -> None:
        fake, users, channel = self.fake, seat.users, seat.channel
        created = await self.interact(fake.slash(users[0], "tienlen create", rules="mien-nam", bet=BET,
                                                 channel=channel, timeout=10), setup=True)
        if created.deferred:
            await created.wait_final(timeout=60)
        seat.message = created.message
        for user in users[1:]:
            await self.interact(fake.click(user, seat.message, f"tl:t:join:{channel.id}", timeout=10), setup=True)
        await self.interact(fake.click(users[0], seat.message, f"tl:t:start:{channel.id}", timeout=10), setup=True)
        seat.started = True

    async def _play(self, seat: Seat) -> None:
        fake, table, channel = self.fake, seat.message, seat.channel
        by_name = {user.name: user for user in seat.users}
        last_text = None
        waiting_since = time.monotonic()
        forwarded = seat.slot != 0
        while not self.stopping:
            ids = table.custom_ids()
            if any(cid.startswith("tl:t:next:") for cid in ids):
                if self.finishing:
                    break
                try:
                    result = await self.interact(fake.click(seat.users[0], table, f"tl:t:next:{channel.id}"))
                    if result.content == STARTED:
                        self.games += 1
                        seat.hands.clear()
                except RETRY:
                    await asyncio.sleep(0.5)
                await asyncio.sleep(0.05)
                continue
            value = field_value(table, NOW) or ""
            match = re.search(r"\*\*(.+?)\*\*", value)
            user = by_name.get(match.group(1)) if match else None
            if user is None:
                await asyncio.sleep(0.05)
                continue
            hand = seat.hands.get(user.id)
            if hand is None or (not _says_turn(hand) and time.monotonic() - waiting_since > 2.0):
                # a new DM (a new game, or a restored table sends the player on turn a fresh one)
                hand = newest_hand(fake, user)
                waiting_since = time.monotonic()
                if hand is not None:
                    seat.hands[user.id] = hand
            text = table.text() if hand is not None else None
            if hand is None or text == last_text or not _says_turn(hand):
                await asyncio.sleep(0.05)
                continue
            last_text = text
            if self.think[1] > 0:
                await asyncio.sleep(self.rng.uniform(*self.think))
                if self.stopping:
                    break
            try:
                if await self._move(seat, user, hand, forwarded):
                    seat.moves += 1
                    seat.last_move = time.monotonic()
                    self.move_times.append(seat.last_move)
                else:
                    seat.hands.pop(user.id, None)
                    last_text = None
            except RETRY:
                seat.hands.pop(user.id, None)  # the player tries again
                last_text = None
                await asyncio.sleep(0.5)
            waiting_since = time.monotonic()
        seat.done = True

    async def _move(self, seat: Seat, user: Any, hand: Any, forwarded: bool) -> bool:
        quick = next((cid for cid in hand.custom_ids() if cid.startswith("tl:h:quick:")), None)
        if quick is not None:
            options = hand.component(quick)["options"]
            value = min(options, key=lambda option: baseline_key(classify(int(option["value"], 16), RULES)))["value"]
            result = await self.interact(self.fake.select(user, hand, quick, [value]), forwarded=forwarded)
        else:
            passing = next(cid for cid in hand.custom_ids() if cid.startswith("tl:h:pass:"))
            result = await self.interact(self.fake.click(user, hand, passing), forwarded=forwarded)
        if result.content and "moving" in result.content.lower():
            self.moving_replies.append(time.monotonic())
        return not result.content  # an error reply carries text; a move edits the hand

    def window(self, start: float, end: float) -> dict:
        latencies = [latency for when, latency, _ in self.samples if start <= when < end]
        forwarded = sum(1 for when, _, fwd in self.samples if start <= when < end and fwd)
        moves = sum(1 for when in self.move_times if start <= when < end)
        return {
            "interactions": len(latencies),
            "forwarded": forwarded,
            "moves": moves,
            "p50_ms": 1000 * percentile(latencies, 0.50),
            "p99_ms": 1000 * percentile(latencies, 0.99),
            "max_ms": 1000 * max(latencies, default=0.0),
            "over_3s": sum(1 for when in self.timeouts if start <= when < end),
        }

    async def stop(self) -> None:
        self.stopping = True
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=15)
        for task in self.tasks:
            if not task.done():
                task.cancel()


def failures(seats: list[Seat]) -> Counter:
    return Counter(f"{type(seat.failed).__name__}: {str(seat.failed)[:120]}" for seat in seats if seat.failed)


def newest_hand(fake: FakeDiscord, user: Any) -> Any:
    """The newest live DM hand message of ``user`` (each player sits at one table)."""
    channel = fake.world.existing_dm_channel(user)
    if channel is None:
        return None
    for message in reversed(fake.world.messages.values()):
        if message.channel is channel and not message.deleted and message.has_component_prefix("tl:h:"):
            return message
    return None


class World:
    """Six guilds (one per shard), tables in their channels, four members per table."""

    def __init__(self, fake: FakeDiscord, clusters: int) -> None:
        self.fake = fake
        self.clusters = clusters
        self.guilds = [guild_on_shard(fake, shard) for shard in range(SHARDS)]
        self.count = 0

    def seat(self) -> Seat:
        index = self.count
        self.count += 1
        guild = self.guilds[index % SHARDS]
        channel = self.fake.add_channel(f"table-{index}", guild=guild)
        users = [self.fake.add_user(f"p{index}-{seat}", guild=guild) for seat in range(4)]
        return Seat(index, guild, (guild.id >> 22) % SHARDS % self.clusters, channel, users)


def guild_on_shard(fake: FakeDiscord, shard: int) -> Any:
    """A guild whose events Discord routes to ``shard`` (of SHARDS)."""
    helper = getattr(fake, "add_guild_on_shard", None)
    if helper is not None:
        return helper(shard, SHARDS, f"Guild on shard {shard}")
    while True:
        guild = fake.add_guild(f"Guild on shard {shard}")
        if (guild.id >> 22) % SHARDS == shard:
            return guild


@asynccontextmanager
async def dm_channels_opened_faster(fake: FakeDiscord, limit: int) -> AsyncIterator[None]:
    """While tables open: the fake's DM-channel bucket (5 per 5 s per token) at ``limit`` a second.

    Every new player needs a DM channel from every process that DMs them;
    at 1 a second, opening 100 tables (400 players) would take 400 s.  Measured
    windows run with the fake's own limits (DM channels are cached by then).
    """
    limits = getattr(fake, "rate_limits", None)
    bucket = limits.buckets.get("POST /users/@me/channels") if limits is not None else None
    if not limit or bucket is None:
        yield
        return
    limits.set_limit("POST /users/@me/channels", limit, 1.0)
    try:
        yield
    finally:
        limits.set_limit("POST /users/@me/channels", bucket.limit, bucket.per)


async def add_tables(load: ClusterLoad, world: World, count: int, rate: float) -> list[Seat]:
    """Open ``count`` more tables, ``rate`` a second."""
    seats = [world.seat() for _ in range(count)]
    for number, seat in enumerate(seats):
        load.open(seat, number / rate)
    return seats


async def until_playing(load: ClusterLoad, seats: list[Seat], timeout: float) -> float:
    """Until every table has started and made its first move (or failed); seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if all(seat.failed is not None or seat.moves > 0 for seat in seats):
            break
        await asyncio.sleep(0.25)
    return time.monotonic() - started


# ---------------------------------------------------------------- parts 1 and 2
async def scale(processes: int, steps: list[int], window: float, flat_seconds: float, open_rate: float,
                think: tuple[float, float], settle: float, dm_limit: int) -> dict:
    """Human pace in steps until p99 passes the limit, then flat out with the same tables."""
    async with fresh_database(PG_URL, "tl_bench") as url, FakeDiscord(default_world=True) as fake:
        fake.fail_on_gaps = False
        fake.recommended_shards = SHARDS
        cluster = Cluster(fake, url, clusters=processes)
        load = ClusterLoad(fake, think)
        rows: list[dict] = []
        flat: dict = {}
        try:
            for _ in range(processes):
                await cluster.launch()
            await cluster.formed()
            world = World(fake, processes)
            for target in steps:
                async with dm_channels_opened_faster(fake, dm_limit):
                    new = await add_tables(load, world, target - world.count, open_rate)
                    opening = await until_playing(load, new, timeout=max(120.0, 8 * len(new)))
                await asyncio.sleep(settle)
                row = await measure(cluster, load, window)
                if row["p99_ms"] > P99_LIMIT_MS:
                    # few samples make p99 one or two moves: measure as long again and judge both windows together
                    row = combine(row, await measure(cluster, load, window), load)
                failed = sum(1 for seat in load.seats if seat.failed is not None)
                row.update(tables=target, opening_s=opening, failed_tables=failed, failures=failures(load.seats),
                           playing=sum(1 for seat in load.seats if seat.moves > 0 and seat.failed is None))
                rows.append(row)
                print(f"  {processes} process(es), {target} tables at a human pace: p99 {row['p99_ms']:.0f} ms, "
                      f"{row['interactions_per_s']:.1f} interactions/s, 429s {row['rate_limited']}, "
                      f"opening took {opening:.0f} s, {failed} failed, {row['windows']} window(s), slowest "
                      f"{slowest(load, row)} ms [load {os.getloadavg()[0]:.2f}]", flush=True)
                if row["p99_ms"] > P99_LIMIT_MS:
                    break
            if flat_seconds > 0:
                load.think = (0.0, 0.0)
                await asyncio.sleep(2)
                flat = await measure(cluster, load, flat_seconds)
                flat["tables"] = world.count
                print(f"  {processes} process(es), flat out with {world.count} tables: "
                      f"{flat['interactions_per_s']:.1f} interactions/s, p99 {flat['p99_ms']:.0f} ms, "
                      f"429s {flat['rate_limited']} (bots' /metrics: {flat['bots_rate_limited']:.0f} 429s of "
                      f"{flat['bots_rest']:.0f} REST calls; the fake saw {flat['rest']}) "
                      f"[load {os.getloadavg()[0]:.2f}]", flush=True)
            free: dict = {}
            limits = getattr(fake, "rate_limits", None)
            if flat_seconds > 0 and limits is not None:
                # the same, with the fake's rate limits off: what the processes and cores can do
                limits.enabled = False
                await asyncio.sleep(2)
                free = await measure(cluster, load, flat_seconds)
                free["tables"] = world.count
                limits.enabled = True
                print(f"  {processes} process(es), flat out, rate limits off: "
                      f"{free['interactions_per_s']:.1f} interactions/s, p99 {free['p99_ms']:.0f} ms "
                      f"[load {os.getloadavg()[0]:.2f}]", flush=True)
            await load.stop()
            warnings = cluster.warnings()
        finally:
            await load.stop()
            await cluster.stop()
    rated = [row for row in rows if row["p99_ms"] <= P99_LIMIT_MS]
    return {"processes": processes, "rows": rows, "rated": rated[-1] if rated else None,
            "passed_limit": bool(rows) and rows[-1]["p99_ms"] > P99_LIMIT_MS, "flat": flat, "free": free,
            "warnings": warnings}


async def measure(cluster: Cluster, load: ClusterLoad, seconds: float) -> dict:
    """Interactions, latency, REST calls and 429s over the next ``seconds``."""
    fake = cluster.fake
    before = await cluster.metrics()
    mark = fake.mark()
    start = time.monotonic()
    load_before = os.getloadavg()[0]
    await asyncio.sleep(seconds)
    end = time.monotonic()
    after = await cluster.metrics()
    requests = fake.requests_since(mark)
    row = load.window(start, end)

    def delta(name: str) -> float:
        return sum(metric(after[pid], name) - metric(before.get(pid, ""), name) for pid in after)

    row.update(
        start=start, end=end, windows=1, seconds=end - start,
        interactions_per_s=row["interactions"] / (end - start),
        moves_per_s=row["moves"] / (end - start),
        rest=len(requests),
        rest_per_move=len(requests) / max(1, row["moves"]),
        rate_limited=sum(1 for r in requests if r.status == 429),
        rate_limited_routes=rate_limited_routes(fake, mark),
        bots_rate_limited=delta("tienlen_rest_rate_limited_total"),
        bots_rest=delta("tienlen_rest_requests_total"),
        routes=Counter(r.key for r in requests).most_common(6),
        machine_load=(load_before, os.getloadavg()[0]),
        moving_replies=sum(1 for when in load.moving_replies if start <= when < end),
    )
    return row


def slowest(load: ClusterLoad, row: dict) -> list[int]:
    return sorted((round(1000 * latency) for when, latency, _ in load.samples
                   if row["start"] <= when < row["end"]), reverse=True)[:4]


def combine(first: dict, second: dict, load: ClusterLoad) -> dict:
    """Two consecutive measuring windows as one."""
    row = load.window(first["start"], second["end"])
    seconds = first["seconds"] + second["seconds"]
    row.update(
        start=first["start"], end=second["end"], seconds=seconds, windows=2,
        interactions_per_s=row["interactions"] / seconds, moves_per_s=row["moves"] / seconds,
        rest=first["rest"] + second["rest"],
        rest_per_move=(first["rest"] + second["rest"]) / max(1, row["moves"]),
        rate_limited=first["rate_limited"] + second["rate_limited"],
        rate_limited_routes=first["rate_limited_routes"] + second["rate_limited_routes"],
        bots_rate_limited=first["bots_rate_limited"] + second["bots_rate_limited"],
        bots_rest=first["bots_rest"] + second["bots_rest"],
        routes=second["routes"], machine_load=(first["machine_load"][0], second["machine_load"][1]),
        moving_replies=first["moving_replies"] + second["moving_replies"],
    )
    return row


# ---------------------------------------------------------------- part 3
async def action_counts(url: str) -> dict[int, int]:
    connection = await asyncpg.connect(dsn(url))
    try:
        rows = await connection.fetch("SELECT game_id, count(*) AS n FROM game_actions GROUP BY game_id")
    finally:
        await connection.close()
    return {row["game_id"]: row["n"] for row in rows}


async def takeover(kills: int, tables: int, think: tuple[float, float], open_rate: float,
                   between: float, dm_limit: int) -> dict:
    """CLUSTERS=2 with a standby: SIGKILL a slot holder mid-game ``kills`` times."""
    async with fresh_database(PG_URL, "tl_bench") as url, FakeDiscord(default_world=True) as fake:
        fake.fail_on_gaps = False
        fake.recommended_shards = SHARDS
        cluster = Cluster(fake, url, clusters=2)
        load = ClusterLoad(fake, think)
        times: list[dict] = []
        lost_moves: list[str] = []
        try:
            for _ in range(3):
                await cluster.launch()
            holders = await cluster.formed()
            world = World(fake, 2)
            async with dm_channels_opened_faster(fake, dm_limit):
                seats = await add_tables(load, world, tables, open_rate)
                opening = await until_playing(load, seats, timeout=max(180.0, 8 * tables))
            print(f"  takeover: {tables} tables playing after {opening:.0f} s", flush=True)
            mark = fake.mark()
            for kill in range(kills):
                slot = kill % 2
                await asyncio.sleep(between)
                holders = await cluster.formed()
                victim = holders[slot]
                mine = [seat for seat in seats if seat.slot == slot and seat.message is not None]
                channels = {seat.channel.id for seat in mine}
                messages = {seat.message.id for seat in mine}
                before = await action_counts(url)
                start_mark = fake.mark()
                killed_at = asyncio.get_running_loop().time()
                wall_killed = time.monotonic()
                await victim.kill()
                edit = await first_restored_edit(fake, start_mark, channels, messages, timeout=90)
                taken = (edit.at - killed_at) if edit is not None else float("nan")
                moved = await first_move_after(mine, wall_killed, timeout=30)
                new_holders = await cluster.formed()
                successor = new_holders[slot]
                after = await action_counts(url)
                lost = {game: (n, after.get(game, 0)) for game, n in before.items() if after.get(game, 0) < n}
                if lost:
                    lost_moves.append(f"kill {kill + 1}: {lost}")
                times.append({"slot": slot, "seconds": taken, "victim": victim.pid, "successor": successor.pid,
                              "lost_games": len(lost), "first_move": moved})
                print(f"  kill {kill + 1}: slot {slot} taken over in {taken:.2f} s "
                      f"(first 'restarted' edit), stored actions lost: {len(lost)} games "
                      f"[load {os.getloadavg()[0]:.2f}]", flush=True)
                standby = await cluster.launch()
                await cluster.answering(standby)
            # let every game finish
            load.finishing = True
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and not all(seat.done or seat.failed for seat in seats):
                await asyncio.sleep(0.5)
            unfinished = sum(1 for seat in seats if not (seat.done or seat.failed))
            await load.stop()
            await asyncio.sleep(3)  # settlements are written
            requests = fake.requests_since(mark)
            forwarded = sum(1 for _, _, fwd in load.samples if fwd)
            rows_429 = rate_limited_routes(fake, mark)
            warnings = cluster.warnings()
            moves = sum(seat.moves for seat in seats)
            timeouts = len(load.timeouts)
            moving = len(load.moving_replies)
        finally:
            await load.stop()
            await cluster.stop()
        checks = await check_database(url, world, seats)
    seconds = [row["seconds"] for row in times]
    return {
        "kills": times, "median_s": statistics.median(seconds) if seconds else float("nan"),
        "max_s": max(seconds, default=float("nan")), "lost_moves": lost_moves, "checks": checks,
        "tables": tables, "unfinished": unfinished, "rate_limited": sum(rows_429.values()), "rate_limited_routes": rows_429,
        "rest_per_move": len(requests) / max(1, moves), "moves": moves, "forwarded": forwarded,
        "timeouts": timeouts, "moving_replies": moving, "warnings": warnings,
        "failed_tables": sum(1 for seat in seats if seat.failed is not None), "failures": failures(seats),
    }


async def first_move_after(seats: list[Seat], since: float, timeout: float) -> float:
    """Seconds from ``since`` to the first answered move at one of ``seats`` (nan: none in time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        moved = [seat.last_move for seat in seats if seat.last_move > since]
        if moved:
            return min(moved) - since
        await asyncio.sleep(0.05)
    return float("nan")


async def first_restored_edit(fake: FakeDiscord, mark: int, channels: set[int], messages: set[int],
                              timeout: float) -> Any:
    """The first edit, after ``mark``, of one of these table messages showing the "restarted" text."""
    deadline = time.monotonic() + timeout
    seen = mark
    while time.monotonic() < deadline:
        requests = fake.requests[seen:]
        seen += len(requests)
        for request in requests:
            if request.key != TABLE_EDIT or request.status >= 300:
                continue
            numbers = {int(n) for n in re.findall(r"/(\d+)", request.path)}
            if not numbers & channels or not numbers & messages:
                continue
            if RESTORED in json.dumps(request.json or {}, ensure_ascii=False):
                return request
        await asyncio.sleep(0.02)
    return None


async def check_database(url: str, world: World, seats: list[Seat]) -> dict:
    """Chips conserved per guild; every stored game replays to its stored outcome."""
    import db

    database = db.Database.from_url(url)
    try:
        connection = await asyncpg.connect(dsn(url))
        try:
            balances = await connection.fetch(
                "SELECT guild_id, count(*) AS players, sum(balance) AS chips FROM accounts GROUP BY guild_id")
            game_rows = await connection.fetch("SELECT id, status FROM games ORDER BY id")
        finally:
            await connection.close()
        chips_off = {row["guild_id"]: row["chips"] - row["players"] * STARTING_CHIPS
                     for row in balances if row["chips"] != row["players"] * STARTING_CHIPS}
        replay_bad: list[str] = []
        finished = running = 0
        for row in game_rows:
            stored = await db.load_game(database, row["id"])
            game = Game.from_json({**stored.record, "actions": list(stored.actions)})
            if stored.status.value == "running":
                running += 1
                continue
            if stored.status.value != "finished":
                continue
            finished += 1
            if not game.finished:
                replay_bad.append(f"game {row['id']}: stored finished, replay not finished")
                continue
            outcome = stored.outcome or {}
            places = outcome.get("places")
            if places is not None and list(places) != list(game.places):
                replay_bad.append(f"game {row['id']}: places {places} != replay {list(game.places)}")
            replayed = {str(seat): units for seat, units in game.settlement().items()}
            if outcome.get("settlement") is not None and outcome["settlement"] != replayed:
                replay_bad.append(f"game {row['id']}: settlement {outcome['settlement']} != replay {replayed}")
        return {"guilds": len(balances), "players": sum(row["players"] for row in balances),
                "chips_off": chips_off, "games": len(game_rows), "finished": finished, "running": running,
                "replay_bad": replay_bad}
    finally:
        await database.dispose()


# ---------------------------------------------------------------- output
def ms(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def report(scaling: list[dict], taken: dict | None, args: argparse.Namespace) -> None:
    think = f"{args.think[0]:g}–{args.think[1]:g} s"
    print(f"\nCluster on PostgreSQL, SHARD_COUNT={SHARDS}, fake Discord with rate limits in the benchmark process; "
          f"human pace: players think {think} per move, steps {args.steps}, {args.window:.0f} s measured per step; "
          f"flat out: {args.flat_seconds:.0f} s\n")
    print("**Human pace, every step** (first response = fake's INTERACTION_CREATE to the bot's first callback)\n")
    print("| processes | tables | interactions/s | moves/s | p50 ms | p99 ms | max ms | over 3 s | "
          "DM moves forwarded | 429s | REST per move | opening s | machine load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for result in scaling:
        for row in result["rows"]:
            print(f"| {result['processes']} | {row['tables']} | {row['interactions_per_s']:.1f} | "
                  f"{row['moves_per_s']:.1f} | {ms(row['p50_ms'])} | {ms(row['p99_ms'])} | {row['max_ms']:.0f} | "
                  f"{row['over_3s']} | {row['forwarded']} | {row['rate_limited']} | {row['rest_per_move']:.2f} | "
                  f"{row['opening_s']:.0f} | {row['machine_load'][0]:.1f}–{row['machine_load'][1]:.1f} |")
    print("\n**Summary per configuration**\n")
    print("| processes | tables at p99 <= 250 ms | limit passed? | 429s there | REST per move there | "
          "flat out: tables | interactions/s | p50 ms | p99 ms | 429s | REST per move | bots' 429s (metrics) |")
    print("|---:|---:|:--|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for result in scaling:
        rated, flat = result["rated"], result["flat"] or {}
        rated_cells = (f"{rated['tables']} | {'yes' if result['passed_limit'] else 'no (max step)'} | "
                       f"{rated['rate_limited']} | {rated['rest_per_move']:.2f}") if rated else "— | yes | — | —"
        flat_cells = (f"{flat['tables']} | {flat['interactions_per_s']:.1f} | {ms(flat['p50_ms'])} | "
                      f"{ms(flat['p99_ms'])} | {flat['rate_limited']} | {flat['rest_per_move']:.2f} | "
                      f"{flat['bots_rate_limited']:.0f}") if flat else "— | — | — | — | — | — | —"
        print(f"| {result['processes']} | {rated_cells} | {flat_cells} |")
    print("\n**Flat out with the fake's rate limits off** (same tables; what processes and cores allow)\n")
    print("| processes | tables | interactions/s | p50 ms | p99 ms | max ms | over 3 s | REST per move |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for result in scaling:
        free = result.get("free") or {}
        if free:
            print(f"| {result['processes']} | {free['tables']} | {free['interactions_per_s']:.1f} | "
                  f"{ms(free['p50_ms'])} | {ms(free['p99_ms'])} | {free['max_ms']:.0f} | {free['over_3s']} | "
                  f"{free['rest_per_move']:.2f} |")
    for kind in ("flat", "free"):
        one = next((r for r in scaling if r["processes"] == 1 and r.get(kind)), None)
        for result in scaling:
            if one and result.get(kind) and result["processes"] > 1:
                ratio = result[kind]["interactions_per_s"] / max(1e-9, one[kind]["interactions_per_s"])
                print(f"\n{result['processes']} processes flat out ({'rate limits on' if kind == 'flat' else 'rate limits off'}): "
                      f"{ratio:.2f}× one process")
    for result in scaling:
        for row in result["rows"] + ([result["flat"]] if result["flat"] else []):
            if row.get("rate_limited_routes"):
                print(f"\n{result['processes']} process(es), {row['tables']} tables: 429s by route: "
                      + ", ".join(f"{route} ×{n}" for route, n in row["rate_limited_routes"].most_common()))
        print(f"\n{result['processes']} process(es): busiest routes flat out: "
              + ", ".join(f"{route} ×{n}" for route, n in (result["flat"] or {}).get("routes", [])))
        for row in result["rows"][-1:]:
            if row["failures"]:
                print(f"{result['processes']} process(es): failed tables: {dict(row['failures'])}")
        if result["warnings"]:
            print(f"{result['processes']} process(es): bot warnings: "
                  + "; ".join(f"{line} ×{n}" for line, n in result["warnings"].most_common(6)))
    if taken is not None:
        print(f"\n**Takeover** (CLUSTERS=2, 3 processes, {taken['tables']} tables at a human pace, "
              f"{len(taken['kills'])} SIGKILLs alternating slots 0 and 1)\n")
        print("| kill | slot | kill → new owner's first 'restarted' table edit | kill → first answered move there |")
        print("|---:|---:|---:|---:|")
        for number, row in enumerate(taken["kills"], 1):
            print(f"| {number} | {row['slot']} | {row['seconds']:.2f} s | {row['first_move']:.2f} s |")
        moves = [row["first_move"] for row in taken["kills"] if row["first_move"] == row["first_move"]]
        if moves:
            print(f"\nfirst answered move after a kill (includes the players' 2–6 s thinking): "
                  f"median {statistics.median(moves):.2f} s, max {max(moves):.2f} s")
        checks = taken["checks"]
        print(f"\nmedian {taken['median_s']:.2f} s, max {taken['max_s']:.2f} s; "
              f"stored moves lost across kills: {len(taken['lost_moves'])} of {len(taken['kills'])} kills "
              f"{taken['lost_moves'] or ''}; guilds whose chips are off: {len(checks['chips_off'])} of "
              f"{checks['guilds']} ({checks['players']} players) {checks['chips_off'] or ''}; "
              f"games stored {checks['games']}, finished {checks['finished']}, still running {checks['running']}, "
              f"replays inconsistent {len(checks['replay_bad'])} {checks['replay_bad'][:3] or ''}; "
              f"tables not finished in time {taken['unfinished']}, failed {taken['failed_tables']} "
              f"{dict(taken['failures']) or ''}")
        print(f"moves {taken['moves']}, DM interactions forwarded {taken['forwarded']}, interactions over 3 s "
              f"{taken['timeouts']}, 'table is moving' answers {taken['moving_replies']}, 429s {taken['rate_limited']} "
              f"{dict(taken['rate_limited_routes']) or ''}, REST per move {taken['rest_per_move']:.2f}")
        if taken["warnings"]:
            print("bot warnings: " + "; ".join(f"{line} ×{n}" for line, n in taken["warnings"].most_common(8)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 25, 50, 100, 150, 200])
    parser.add_argument("--window", type=float, default=20, help="seconds measured per step")
    parser.add_argument("--settle", type=float, default=5, help="seconds between a step's tables playing and measuring")
    parser.add_argument("--flat-seconds", type=float, default=30)
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 6.0), metavar=("MIN", "MAX"))
    parser.add_argument("--open-rate", type=float, default=3.0, help="new tables a second")
    parser.add_argument("--open-dm-limit", type=int, default=50,
                        help="DM channels a second the fake allows while tables open (0: its own 5 per 5 s)")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--kill-tables", type=int, default=24, help="tables during the takeover part")
    parser.add_argument("--between", type=float, default=8.0, help="seconds of play before each kill")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a short smoke run (minutes)")
    args = parser.parse_args()
    if args.quick:
        args.processes, args.steps, args.window, args.settle = [1, 2], [6, 12], 10, 2
        args.flat_seconds, args.kills, args.kill_tables, args.between = 8, 2, 6, 4
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()}", flush=True)
    scaling = []
    if not args.skip_scaling:
        for processes in args.processes:
            scaling.append(asyncio.run(scale(processes, args.steps, args.window, args.flat_seconds,
                                             args.open_rate, tuple(args.think), args.settle, args.open_dm_limit)))
    taken = asyncio.run(takeover(args.kills, args.kill_tables, tuple(args.think), args.open_rate,
                                 args.between, args.open_dm_limit)) if args.kills > 0 else None
    report(scaling, taken, args)
    print(f"\nmachine load at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Load: one bot process against the fake Discord with many tables playing at once.

    python bench/bench_load.py [--tables 10 100 500] [--seconds 60] [--think 2 6]
                               [--bot <another checkout>] [--dm-opens 5 | --no-rate-limits]

For each size, N tables of four scripted players (each in its own channel) play
with buttons and selects only, choosing the engine's baseline play, and
behave as people would: the others find the table in the channel, a
deferred answer is waited for before going on, and a refused press is tried
again on the newest hand message (at most 3 presses on one view of the
table, then the player waits for it to change), and a player on turn
without a DM after 5 s presses "My hand".  Reported:
interactions per second, latency from INTERACTION_CREATE to the bot's first
callback (p50, p99, max), the bot's memory per table, and REST requests per
game action (Discord rate-limits message edits, so fewer is better), the bot process's CPU time
per game action (setting up included); and
every press that did nothing, by what was pressed and why (the client
refused it, no answer within 3 s, or the bot answered with an error), the
tables whose players gave up, and the tables without a move in the run's
last 20 s, by what they showed.

``--bot`` runs the bot of another checkout (e.g. a ``git worktree`` of an
older commit) under this same load, so before and after come from one
harness.  ``--dm-opens`` sets how many DM channels the fake lets the bot
open per 5 s (Discord's bucket, as the fake models it, is 5): with
hundreds of players who never played before, that one bucket decides how
soon the games start; returning players' DM channels are stored.
``--no-rate-limits`` turns the fake's limits off (as before it had them):
what is left is the bot's own work.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from i18n import catalogue, t  # noqa: E402
from tests.e2e.driver import baseline_key, field_value, shown_text, table_message  # noqa: E402
from tests.e2e.process import REPO, BotProcess  # noqa: E402
from tests.fakediscord import ClientRefused, FakeDiscord, InteractionTimeout  # noqa: E402
from tienlen import RULESETS, classify  # noqa: E402

NOW = t("en", "table.now")
PRESSES = 3  # presses a player tries on one view of the table before waiting for it to change
HAND_WAIT = 5.0  # seconds a player on turn waits for their DM before pressing "My hand"
STALLED = 20.0  # seconds without a move at the end of a run after which a table counts as stalled
RULES = RULESETS["mien-nam"]


class Load:
    def __init__(self, fake: FakeDiscord, think: tuple[float, float] = (0.0, 0.0), stagger: float = 0.0) -> None:
        self.fake = fake
        # How often a waiting player looks at the table: people who think for
        # seconds need not look 20 times a second (and 400 of them doing so
        # would keep this process, and so the fake Discord, busy).
        self.poll = 0.25 if think[1] > 0 else 0.05
        self.stagger = stagger
        self.think = think
        self.rng = random.Random(5)
        self.latencies: list[float] = []  # moves and next-game clicks while tables play
        self.setup_latencies: list[float] = []  # create, join, start
        self.actions = 0
        self.interactions = 0
        self.games = 0
        self.timeouts = 0
        self.refusals: Counter[str] = Counter()
        """Presses that did nothing, by what was pressed and why: the client refused it, no answer in 3 s, or
        the bot answered with an error (a deferred answer is read when the run ends)."""
        self.answers: list[tuple[str, object]] = []  # (what was pressed, its result) of set-up and "next game"
        self.gave_up: Counter[str] = Counter()  # tables whose players stopped, by the refusal that stopped them
        self.stalled: Counter[str] = Counter()  # tables without a move for STALLED s at the end, by what they show

    async def interact(self, coro, *, setup: bool = False, what: str = "move"):
        try:
            result = await coro
        except InteractionTimeout:
            self.timeouts += 1  # Discord would show "This interaction failed"
            self.refusals[f"{what}: over 3 s"] += 1
            raise
        except ClientRefused as error:
            self.refusals[f"{what}: {client_reason(error)}"] += 1
            raise
        self.interactions += 1
        (self.setup_latencies if setup else self.latencies).append(result.latency)
        if what != "move":
            self.answers.append((what, result))
        return result

    def count_answers(self) -> None:
        """Count the error answers to set-up and "next game" presses, deferred ones included."""
        for what, result in self.answers:
            shown = result.message.content if result.message is not None else result.content
            key = reply_key(shown or "")
            if key.startswith("error."):
                self.refusals[f"{what}: the bot said {key}"] += 1

    async def table(self, index: int, stop: float) -> None:
        try:
            await self.play_table(index, stop)
        except (InteractionTimeout, ClientRefused) as error:
            self.gave_up[client_reason(error)] += 1
            raise

    async def play_table(self, index: int, stop: float) -> None:
        fake = self.fake
        channel = fake.add_channel(f"table-{index}")
        users = [fake.add_user(f"p{index}-{seat}") for seat in range(4)]
        await asyncio.sleep(self.rng.uniform(0, self.stagger))  # tables open over a few seconds, not at once
        await self.settle(self.interact(fake.slash(users[0], "tienlen create", channel=channel), setup=True,
                                        what="create"))
        # The others find the table in the channel: under a burst the creator's answer is deferred ("see the
        # channel") and the table is posted apart.
        table = await fake.wait_for(lambda: fake.latest_message(users[1], prefix="tl:t:join:", channel=channel),
                                    timeout=60, what="the table message")
        for user in users[1:]:
            await self.settle(self.interact(fake.click(user, table, f"tl:t:join:{channel.id}"), setup=True,
                                            what="join"))
        await self.settle(self.interact(fake.click(users[0], table, f"tl:t:start:{channel.id}"), setup=True,
                                        what="start"))
        by_name = {user.name: user for user in users}
        hands: dict[int, object] = {}  # each player's hand message: their DM, or their "My hand" view
        last_text = None
        presses = 0  # on the table as last_text shows it
        next_pressed_on = None  # the table as it was when "Next game" was last pressed
        no_dm_since: dict[int, float] = {}  # players on turn without a hand message, since when
        moved = time.monotonic()
        while time.monotonic() < stop:
            table = table_message(fake, channel) or table  # a bot may post a fresh table message for each game
            if any(cid.startswith("tl:t:next:") for cid in table.custom_ids()):
                if table.text() == next_pressed_on:  # answered: the table has not caught up yet
                    await asyncio.sleep(self.poll)
                    continue
                next_pressed_on = table.text()
                with contextlib.suppress(InteractionTimeout, ClientRefused):  # pressed as the table changed
                    result = await self.settle(self.interact(fake.click(users[0], table, f"tl:t:next:{channel.id}"),
                                                             what="next game"))
                    if result.message is not None and result.message.content == t("en", "reply.started"):
                        self.games += 1
                        hands.clear()
                await asyncio.sleep(self.poll)
                continue
            value = _now_shown(table)
            match = re.search(r"\*\*(.+?)\*\*", value)
            user = by_name.get(match.group(1)) if match else None
            if user is not None and (user.id not in hands or hands[user.id].deleted):
                found = fake.latest_with_component(user, "tl:h:")
                if found is not None:
                    hands[user.id] = found
                elif time.monotonic() - no_dm_since.setdefault(user.id, time.monotonic()) > HAND_WAIT:
                    del no_dm_since[user.id]  # no DM yet: they press "My hand" (and again later if need be)
                    with contextlib.suppress(InteractionTimeout, ClientRefused):
                        shown = await self.settle(self.interact(
                            fake.click(user, table, f"tl:t:hand:{channel.id}"), what="my hand"))
                        if shown.message is not None and shown.message.has_component_prefix("tl:h:"):
                            hands[user.id] = shown.message
            hand = hands.get(user.id) if user else None
            text = table.text() if hand else None
            if text != last_text:
                last_text, presses = text, 0
            if hand is None or presses >= PRESSES or not _says_turn(hand):
                await asyncio.sleep(self.poll)
                continue
            presses += 1
            if self.think[1] > 0:
                await asyncio.sleep(self.rng.uniform(*self.think))
                if not _says_turn(hand):  # the turn ran out (or was moved on) while they thought
                    continue
            with contextlib.suppress(InteractionTimeout, ClientRefused):
                if await self.move(user, hand):
                    moved = time.monotonic()
                    presses = PRESSES  # then wait for the table to show the move
                    continue
            # Refused, or no answer: look at the newest hand message, as a person would, and try again.
            hands.pop(user.id, None)
        if time.monotonic() - moved > STALLED:
            self.stalled[self.stall_reason(table, by_name, hands)] += 1

    async def settle(self, pressed):
        """The press's result once its answer is there: a deferred answer is waited for, as the presser would."""
        result = await pressed
        if result.deferred:
            await result.wait_final(timeout=60)
        return result

    def stall_reason(self, table, by_name: dict, hands: dict) -> str:
        """What a table that stopped moving shows, and what its player on turn sees."""
        ids = table.custom_ids()
        if any(cid.startswith("tl:t:start:") for cid in ids):
            return "still in the lobby"
        if not any(cid.startswith("tl:t:hand:") for cid in ids):
            return "between games or closed"
        match = re.search(r"\*\*(.+?)\*\*", _now_shown(table))
        user = by_name.get(match.group(1)) if match else None
        if user is None:
            return "the table shows no one on turn"
        latest = self.fake.latest_with_component(user, "tl:h:")
        if latest is None:
            return "the player on turn has no hand message"
        if hands.get(user.id) not in (None, latest):
            return "the player on turn looks at an older hand message"
        if not _says_turn(latest):
            return "the hand of the player on turn does not say it is their turn"
        return "the player on turn was refused and waits for the table to change"

    async def move(self, user, hand) -> bool:
        """One press on ``hand``; whether it moved."""
        quick = next((cid for cid in hand.custom_ids() if cid.startswith("tl:h:quick:")), None)
        if quick is not None:
            options = hand.component(quick)["options"]
            value = min(options, key=lambda option: baseline_key(classify(int(option["value"], 16), RULES)))["value"]
            result = await self.interact(self.fake.select(user, hand, quick, [value]))
        else:
            passing = next(cid for cid in hand.custom_ids() if cid.startswith("tl:h:pass:"))
            result = await self.interact(self.fake.click(user, hand, passing))
        answer = result.content
        if result.deferred:
            # The hand is edited later, or an error follows: until then the player
            # looks at the hand they pressed, and must not press it again.
            edits = len(hand.revisions)
            await self.fake.wait_for(lambda: result.followups or len(hand.revisions) > edits, timeout=60,
                                     what="the deferred answer to a move")
            answer = result.followups[0].content if result.followups else ""
        if not answer:  # an error reply carries text; a move edits the hand
            self.actions += 1
            return True
        self.refusals[f"move: the bot said {reply_key(answer)}"] += 1
        return False


def client_reason(error: AssertionError) -> str:
    """What the fake's client refused (or that the bot did not answer), without ids, names and options."""
    if isinstance(error, InteractionTimeout):
        return "over 3 s"
    text = re.sub(r"'(tl:[a-z]+:[a-z_]+):[^']*'", r"\1", str(error))  # a custom id without its channel and game
    text = re.sub(r"<Message [^>]*>", "the message", text)
    text = re.sub(r"^p\d+-\d+ ", "the player ", text)
    text = re.sub(r"^\[.*?\] are not options", "a value that is not an option", text)
    return re.split(r"; it has |: \[", text)[0]


def reply_key(content: str) -> str:
    """The catalogue key of an English reply ("error.not_your_turn"), or the start of the text."""
    for key, entry in catalogue("en").items():
        pattern = re.sub(r"\\\{\w+\\\}", ".+?", re.escape(entry)) if isinstance(entry, str) else None
        if pattern is not None and re.fullmatch(pattern, content, re.S):
            return key
    return repr(content[:60])


def _says_turn(message) -> bool:
    marker = t("en", "hand.your_turn")
    return marker in shown_text(message) or any(marker in (embed.get("description") or "") for embed in message.embeds)


def _now_shown(table) -> str:
    """Who is on turn, as the table shows it: a Components V2 block, or (an older bot) an embed field."""
    value = field_value(table, NOW)
    if value is None:
        fields = [f for embed in table.embeds for f in embed.get("fields", ()) if f.get("name") == NOW]
        value = fields[0].get("value") if fields else None
    return value or ""


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


async def run(tables: int, seconds: float, edit_interval: float, think: tuple[float, float] = (0.0, 0.0), *,
              bot_repo: Path | None = None, dm_opens: int | None = None, rate_limits: bool = True) -> dict:
    async with FakeDiscord(default_world=True) as fake:
        fake.fail_on_gaps = False
        fake.rate_limits.enabled = rate_limits
        fake.webhook_media_quirk = True  # as Discord: a webhook edit cannot bring a new picture into a V2 gallery
        if dm_opens is not None:
            fake.rate_limits.set_limit("dm-create", dm_opens, 5.0)
        with tempfile.TemporaryDirectory() as folder:
            bot = BotProcess(fake, f"sqlite+aiosqlite:///{folder}/load.db", repo=bot_repo or REPO,
                             TIENLEN_TEST_EDIT_INTERVAL=str(edit_interval), TIENLEN_TEST_SEED="1")
            await bot.start()
            try:
                idle_rss = bot.rss_kib()
                idle_cpu = bot.cpu_seconds()
                load = Load(fake, think, stagger=min(tables / 15, seconds / 2))  # ~15 new tables a second
                mark = fake.mark()
                started = time.monotonic()
                tasks = [asyncio.create_task(load.table(i, started + seconds)) for i in range(tables)]
                await asyncio.wait(tasks, timeout=seconds + 180)
                failed = [task for task in tasks if task.done() and task.exception() is not None]
                for task in tasks:
                    if not task.done():
                        task.cancel()
                unexpected = [t.exception() for t in failed
                              if not isinstance(t.exception(), (InteractionTimeout, ClientRefused, AssertionError))]
                if unexpected:
                    raise unexpected[0]
                elapsed = time.monotonic() - started
                load.count_answers()
                busy_rss = bot.rss_kib()
                busy_cpu = bot.cpu_seconds() - idle_cpu
                requests = fake.requests_since(mark)
                routes = Counter(request.key for request in requests)
            finally:
                await bot.stop()
    bot_requests = len(requests)
    return {
        "tables": tables,
        "failed_tables": len(failed),
        "seconds": elapsed,
        "interactions": load.interactions,
        "interactions_per_s": load.interactions / elapsed,
        "actions": load.actions,
        "games": load.games,
        "p50_ms": 1000 * percentile(load.latencies, 0.50),
        "p99_ms": 1000 * percentile(load.latencies, 0.99),
        "max_ms": 1000 * max(load.latencies, default=0),
        "over_3s": load.timeouts,
        "setup_p99_ms": 1000 * percentile(load.setup_latencies, 0.99),
        "rss_per_table_kib": (busy_rss - idle_rss) / tables,
        "rest_per_action": bot_requests / max(1, load.actions),
        "bot_cpu_ms_per_action": 1000 * busy_cpu / max(1, load.actions),
        "routes": routes.most_common(6),
        "refusals": load.refusals,
        "gave_up": load.gave_up,
        "stalled": load.stalled,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 100, 500])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, nargs=2, default=(0.0, 0.0), metavar=("MIN", "MAX"),
                        help="seconds a player thinks before each move (0 0: as fast as possible)")
    parser.add_argument("--edit-interval", type=float, default=0.0,
                        help="extra seconds between edits of one table message (production: 0, paced by Discord's bucket)")
    parser.add_argument("--bot", type=Path, help="the checkout whose bot.py runs (default: this one)")
    parser.add_argument("--dm-opens", type=int, help="DM channels the bot may open per 5 s (default: the fake's 5)")
    parser.add_argument("--no-rate-limits", action="store_true", help="the fake enforces no REST rate limit")
    args = parser.parse_args()
    rows = [asyncio.run(run(count, args.seconds, args.edit_interval, tuple(args.think), bot_repo=args.bot,
                            dm_opens=args.dm_opens, rate_limits=not args.no_rate_limits)) for count in args.tables]
    pace = "as fast as possible" if args.think[1] <= 0 else f"players think {args.think[0]:g}–{args.think[1]:g} s per move"
    print(f"One bot process (SQLite), fake Discord in another process, {args.seconds:.0f} s per size, "
          f"table edits at most every {args.edit_interval} s, {pace}\n")
    print("| tables | interactions/s | first response while playing: p50 ms | p99 ms | max ms | "
          "create/join/start p99 ms | over 3 s | moves | games | bot RSS per table KiB | REST requests per move | "
          "bot CPU ms per move |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['tables']} | {row['interactions_per_s']:.1f} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | "
              f"{row['max_ms']:.0f} | {row['setup_p99_ms']:.0f} | {row['over_3s']} | {row['actions']} | {row['games']} | "
              f"{row['rss_per_table_kib']:.0f} | {row['rest_per_action']:.2f} | {row['bot_cpu_ms_per_action']:.1f} |")
    for row in rows:
        if row["failed_tables"]:
            print(f"\n{row['tables']} tables: {row['failed_tables']} gave up: " + _counts(row["gave_up"]))
        if row["stalled"]:
            print(f"\n{row['tables']} tables: {row['stalled'].total()} without a move in the last {STALLED:.0f} s: "
                  + _counts(row["stalled"]))
        print(f"\n{row['tables']} tables, refused presses: {row['refusals'].total()}"
              + (": " + _counts(row["refusals"]) if row["refusals"] else ""))
        print(f"\n{row['tables']} tables, busiest routes: " + ", ".join(f"{route} ×{n}" for route, n in row["routes"]))


def _counts(counter: Counter) -> str:
    return ", ".join(f"{reason} ×{n}" for reason, n in counter.most_common())


if __name__ == "__main__":
    main()

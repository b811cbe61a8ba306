"""The runtime without Discord, on a database that fails on purpose.

:class:`FaultyDatabase` is a real :class:`db.Database` whose writes of
chosen kinds (``"table"``, ``"game"``, ``"action"``, ``"settlement"``,
``"abort"``, ``"delete"``, ``"account"``, ``"summary"``, or ``"any"``) fail
while a fault is on: the transaction runs its statements, then fails, and
the database rolls it all back, as when a disk fills up or a server
refuses writes; or they lose their connection during COMMIT.
:class:`Harness` runs a :class:`~runtime.service.TableService` on it with a
notifier that records what Discord would show, and compares the tables in
memory with what a fresh process restores from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any, Iterable

from sqlalchemy.exc import OperationalError

import db
import db.changes
from runtime.outbox import Undelivered
from runtime.service import TableService
from runtime.settings import Settings
from runtime.state import TableState
from runtime.steps import owner_of
from runtime.store import Store
from tests.db.dbtest_support import connection_lost_at_commit
from tienlen import Combo
from tienlen.table import Phase

GUILD = 7_000
CHANNEL = 8_000
START = 1_000


class FaultyDatabase(db.Database):
    """A database whose writes of the kinds in ``failing`` fail (and roll back),
    whose writes of the kinds in ``lying`` are stored but answered with an
    ordinary failure (as if nothing was stored), and whose writes of the kinds
    in ``lost`` lose their connection during COMMIT, after the server
    committed them when ``lost_landed`` (else before)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failing: set[str] = set()
        self.lying: set[str] = set()
        self.lost: set[str] = set()
        self.lost_landed = True
        self.refused = 0

    def _fails(self, kinds: Iterable[str]) -> bool:
        return bool(self.failing) and ("any" in self.failing or bool(self.failing & set(kinds)))

    def _refuse(self) -> None:
        self.refused += 1
        raise OperationalError("COMMIT", None, Exception("injected fault: the database refuses writes"))

    async def hot_write(self, body: Any, *args: Any) -> Any:
        if body is db.changes._commit_batch:
            kinds = {kind for _, change, _ in args[0] for kind in change.kinds}
        else:
            kinds = {"settlement"} if body.__name__ == "settle_in_transaction" else {"other"}
        if self.lying & kinds:
            await super().hot_write(body, *args)
            self._refuse()
        if self.lost & kinds:
            self.refused += 1
            with connection_lost_at_commit(landed=self.lost_landed):
                return await super().hot_write(body, *args)
        if not self._fails(kinds):
            return await super().hot_write(body, *args)

        async def then_fail(connection: Any, *rest: Any) -> Any:
            await body(connection, *rest)
            self._refuse()

        return await super().hot_write(then_fail, *args)

    def write(self) -> Any:
        if self._fails({"account", "summary", "other"}):
            self._refuse()
        return super().write()


class RecordingNotifier:
    """What Discord would have shown; summaries fail with Undelivered ``summary_failures`` times."""

    def __init__(self) -> None:
        self.snapshots: list[Any] = []
        self.hands: list[Any] = []
        self.summaries: list[Any] = []
        self.summary_failures = 0

    async def table_changed(self, snapshot: Any) -> None:
        self.snapshots.append(snapshot)

    async def hands_dealt(self, snapshot: Any, hands: dict[int, Any]) -> None:
        self.hands.extend(hands.values())

    async def hand_changed(self, snapshot: Any, hand: Any) -> None:
        self.hands.append(hand)

    async def post_summary(self, channel_id: int, guild_id: int, summary: Any) -> None:
        if self.summary_failures > 0:
            self.summary_failures -= 1
            raise Undelivered("503 Service Unavailable")
        self.summaries.append(summary)


def canonical(state: TableState) -> dict[str, Any]:
    """Everything of a table that must survive a restart (not the turn's deadline)."""
    game = state.table.game
    return {
        "stored": state.stored(),
        "game_id": state.table.game_id,
        "game": game.to_json() if game is not None and state.table.game_id is not None else None,
        "payout": state.payout,
    }


class Harness:
    """A table service on a faulty database (SQLite unless ``url`` says
    otherwise), with helpers to drive it."""

    def __init__(self, path: Any, *, url: str | None = None, connect_args: dict[str, Any] | None = None,
                 **settings: Any) -> None:
        self.url = url or f"sqlite+aiosqlite:///{path / 'runtime.db'}"
        self.connect_args = connect_args or {}
        self.database = FaultyDatabase(self.url, connect_args=self.connect_args)
        defaults = dict(min_turn_seconds=1, ai_delay_seconds=0.0, ai_workers=0, deal_seed=11, idle_minutes=60.0,
                        starting_chips=START)
        self.settings = Settings(**(defaults | settings))
        self.notifier = RecordingNotifier()
        self.service = TableService(self.database, self.settings, notifier=self.notifier)

    async def start(self) -> "Harness":
        await self.database.upgrade()
        await self.service.start()
        return self

    async def close(self) -> None:
        await self.service.close()
        await self.database.dispose()

    # ---------------------------------------------------------- comparisons
    def memory(self) -> dict[int, dict[str, Any]]:
        return {state.channel_id: canonical(state) for state in self.service.registry}

    async def restored(self) -> dict[int, dict[str, Any]]:
        """What a fresh process would restore from the database now."""
        fresh = db.Database(self.url, connect_args=self.connect_args)
        try:
            loaded = await Store(fresh).load(lambda _guild: True)
        finally:
            await fresh.dispose()
        return {restored.state.channel_id: canonical(restored.state) for restored in loaded}

    async def assert_memory_is_the_database(self) -> None:
        """Memory equals a fresh restore, compared while no table can change
        (every table's lock held: a step commits and keeps under it)."""
        await self.settle_down()
        async with contextlib.AsyncExitStack() as held:
            for channel_id in sorted({state.channel_id for state in self.service.registry} | {CHANNEL}):
                await held.enter_async_context(self.service.registry.lock(channel_id))
            memory, stored = self.memory(), await self.restored()
        assert memory == stored, _difference(memory, stored)

    async def settle_down(self) -> None:
        """Let every step in flight finish (not the waiters for later moves)."""
        for _ in range(5):
            await asyncio.sleep(0)
        await self.service.quiet()

    async def chips(self) -> dict[int, int]:
        async with self.database.read() as session:
            from sqlalchemy import select

            from db.models import AccountRow

            rows = await session.execute(select(AccountRow.user_id, AccountRow.balance))
            return {user: balance for user, balance in rows}

    # ------------------------------------------------------------- driving
    def state(self, channel_id: int = CHANNEL) -> TableState:
        state = self.service.state(channel_id)
        assert state is not None
        return state

    async def open_table(self, humans: int = 2, ai: int = 0, channel_id: int = CHANNEL, **options: Any) -> list[int]:
        users = [100 + n for n in range(humans)]
        await self.service.create_table(channel_id=channel_id, guild_id=GUILD, user_id=users[0], name="p0",
                                        **options)
        for n, user in enumerate(users[1:], start=1):
            await self.service.join(channel_id, user, f"p{n}")
        for _ in range(ai):
            await self.service.add_ai(channel_id, users[0], "easy")
        return users

    def on_turn(self, channel_id: int = CHANNEL) -> tuple[int, int | None]:
        """(seat, user id) of the seat on turn."""
        table = self.state(channel_id).table
        assert table.game is not None and table.game.turn is not None
        seat = table.game.turn
        return seat, table.game_seats[seat].user_id

    def lowest_play(self, channel_id: int = CHANNEL) -> Combo | None:
        """The lowest legal play of the seat on turn (None: it can only pass)."""
        seat, _ = self.on_turn(channel_id)
        game = self.state(channel_id).table.game
        assert game is not None
        plays = game.legal_plays(seat)
        return min(plays, key=lambda combo: (combo.bomb is not None, combo.top, combo.size)) if plays else None

    async def play_lowest(self, channel_id: int = CHANNEL) -> None:
        """The seat on turn (a human) plays its lowest play, or passes."""
        _, user = self.on_turn(channel_id)
        assert user is not None
        play = self.lowest_play(channel_id)
        if play is None:
            await self.service.pass_turn(channel_id, user)
        else:
            await self.service.play(channel_id, user, play)

    async def up_to_the_last_play(self, channel_id: int = CHANNEL) -> tuple[int, Combo]:
        """Humans play their lowest play until the next one ends the game:
        (user, play) of that last play, not made yet."""
        while True:
            state = self.state(channel_id)
            seat, user = self.on_turn(channel_id)
            twin, play = state.table.game.copy(), self.lowest_play(channel_id)
            if play is not None and twin.play(seat, play).finished:
                assert user is not None
                return user, play
            await self.play_lowest(channel_id)

    async def play_to_the_end(self, channel_id: int = CHANNEL, limit: int = 500) -> None:
        """Humans play their lowest play until the game ends (AI seats play themselves)."""
        for _ in range(limit):
            await self.settle_down()
            state = self.state(channel_id)
            game = state.game
            if game is None or game.finished:
                return
            seat, user = self.on_turn(channel_id)
            if state.table.game_seats[seat].played_by_ai:
                await asyncio.sleep(0.01)
                continue
            await self.play_lowest(channel_id)
        raise AssertionError("the game did not end")


def assert_one_owner(service: TableService) -> None:
    """Every running game has exactly one live owner of its next move: a human
    with a deadline, or a timer or task about to make the change."""
    for state in service.registry:
        plan = service.scheduler.plan(state.channel_id)
        assert plan is not None and plan.owner == owner_of(state)
        if state.table.phase is Phase.PLAYING:
            assert plan.owner.kind in ("human", "ai", "settle", "conclude")
            assert plan.alive
            assert (plan.deadline is not None) == (plan.owner.kind == "human")


def _difference(memory: dict[int, Any], stored: dict[int, Any]) -> str:
    """Where memory and the database disagree (for the assertion's message)."""
    if memory.keys() != stored.keys():
        return f"tables in memory {sorted(memory)}, in the database {sorted(stored)}"
    lines = []
    for channel_id, mine in memory.items():
        theirs = stored[channel_id]
        for key in mine:
            if mine[key] != theirs[key]:
                if isinstance(mine[key], dict) and isinstance(theirs[key], dict):
                    keys = [k for k in mine[key] if mine[key].get(k) != theirs[key].get(k)]
                    lines.append(f"table {channel_id} {key}: {[(k, mine[key].get(k), theirs[key].get(k)) for k in keys]}")
                else:
                    lines.append(f"table {channel_id} {key}: memory {mine[key]!r} / database {theirs[key]!r}")
    return "; ".join(lines)


def without_deadline(snapshot: Any) -> Any:
    return dataclasses.replace(snapshot, deadline=None)

"""What each table waits for, derived from its committed state, and made to happen.

After every commit the service hands the table's new state to
:meth:`Scheduler.committed`.  The scheduler asks :func:`runtime.steps.owner_of`
who owns the next change and keeps exactly one plan per table for it (a
timer while the owner waits, then a task that makes the change):

* a human on turn: their deadline (the commit's time plus the turn time);
  when it passes, a :class:`~runtime.steps.TimeOut` step;
* an AI seat (or an AFK player) on turn: after a short pause the AI
  decides, then an :class:`~runtime.steps.AiMove` step; AI seats not on turn
  that may chop out of turn are asked too;
* a finished game: its settlement, then the table moving on (at once);
* a lobby or a finished table: closing it once nobody touched it for a while.

Nothing is remembered in one-shot tasks: a plan whose step cannot be
stored (the database is down) tries again with capped backoff until it
lands, and a commit that changes what the table waits for replaces the
plan.  A step that no longer applies (:class:`~runtime.steps.Stale`) is
dropped: the commit that made it stale has planned what comes next.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable

from runtime import steps
from runtime.state import TableState
from runtime.steps import AiMove, Conclude, IdleClose, Owner, Settle, Stale, TimeOut, owner_of
from runtime.store import Refused, StaleEpoch, Unavailable
from tienlen.game import SeatView
from tienlen.table import TableError

log = logging.getLogger(__name__)

__all__ = ["Scheduler", "Plan", "RETRY_FIRST", "RETRY_MAX"]

RETRY_FIRST, RETRY_MAX = 0.25, 15.0
"""Seconds before retrying a step the database did not take, doubling up to the cap."""

Run = Callable[[int, "steps.Command"], Awaitable[object]]
Decide = Callable[[SeatView, str, "tuple[str | None, ...]"], Awaitable["int | None"]]
"""(the seat's view, its level, every seat's public AI level) -> the mask it plays."""


@dataclass
class Plan:
    """One table's owner of its next change, and what acts for it: a timer
    while the owner waits (a deadline, the AI's pause, an idle table), then
    a task that makes the change and stores it."""

    owner: Owner
    key: tuple
    deadline: float | None = None
    """When a human on turn times out (epoch seconds)."""
    timer: asyncio.TimerHandle | None = None
    task: asyncio.Task[None] | None = None
    helpers: list[asyncio.Task[None]] = field(default_factory=list)
    """Out-of-turn chop decisions of AI seats."""

    @property
    def alive(self) -> bool:
        """Something will act for the owner: a pending timer or a running task."""
        if self.task is not None:
            return not self.task.done()
        return self.timer is not None and not self.timer.cancelled()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        current = asyncio.current_task()
        for task in [self.task, *self.helpers]:
            if task is not None and task is not current:
                task.cancel()


class Scheduler:
    def __init__(
        self,
        *,
        run: Run,
        decide: Decide,
        clock: Callable[[], float] = time.time,
        ai_delay: float = 1.2,
        idle_seconds: float = 15 * 60.0,
    ) -> None:
        self._run = run
        self._decide = decide
        self.clock = clock
        self.ai_delay = ai_delay
        self.idle_seconds = idle_seconds
        self._plans: dict[int, Plan] = {}
        self._closing = False

    # --------------------------------------------------------------- queries
    def deadline(self, channel_id: int) -> float | None:
        plan = self._plans.get(channel_id)
        return plan.deadline if plan is not None else None

    def plan(self, channel_id: int) -> Plan | None:
        """The table's plan (tests check that every running game has one owner)."""
        return self._plans.get(channel_id)

    # --------------------------------------------------------------- planning
    def committed(self, channel_id: int, state: TableState | None) -> None:
        """The table's committed state changed (None: it closed): plan anew."""
        if state is None:
            plan = self._plans.pop(channel_id, None)
            if plan is not None:
                plan.cancel()
            return
        owner = owner_of(state)
        key = _key(owner, state)
        current = self._plans.get(channel_id)
        if current is not None and current.key == key:
            return  # nothing it waits for changed (a message id, a language)
        if current is not None:
            current.cancel()
        plan = self._plans[channel_id] = Plan(owner=owner, key=key)
        if self._closing:
            return
        loop = asyncio.get_running_loop()
        kind = owner.kind
        if kind == "human":
            plan.deadline = self.clock() + state.table.turn_seconds
            plan.timer = loop.call_later(state.table.turn_seconds, self._act, channel_id, state, plan)
        elif kind == "ai":
            plan.timer = loop.call_later(self.ai_delay, self._act, channel_id, state, plan)
        elif kind == "idle":
            wait = max(0.0, state.last_activity + self.idle_seconds - self.clock())
            plan.timer = loop.call_later(wait, self._act, channel_id, state, plan)
        else:  # settle, conclude: at once
            self._act(channel_id, state, plan)
        for seat in owner.chop_watchers:
            plan.helpers.append(asyncio.create_task(self._chop(channel_id, state, seat), name=f"table-{channel_id}-chop"))

    def _act(self, channel_id: int, state: TableState, plan: Plan) -> None:
        """The owner's time has come: make its change, in a task of its own."""
        plan.task = asyncio.create_task(self._change(channel_id, state, plan),
                                        name=f"table-{channel_id}-{plan.owner.kind}")

    async def _change(self, channel_id: int, state: TableState, plan: Plan) -> None:
        owner = plan.owner
        if owner.kind == "human":
            assert owner.game_id is not None
            await self.land(channel_id, TimeOut(game_id=owner.game_id, version=owner.version), plan)
        elif owner.kind == "ai":
            assert owner.seat is not None and owner.game_id is not None
            mask = await self._ai_decision(state, owner.seat)
            await self.land(channel_id, AiMove(game_id=owner.game_id, version=owner.version, seat=owner.seat,
                                               mask=mask), plan)
        elif owner.kind == "settle":
            await self.land(channel_id, Settle(), plan)
        elif owner.kind == "conclude":
            await self.land(channel_id, Conclude(), plan)
        elif owner.kind == "idle":
            await self.land(channel_id, IdleClose(), plan)

    async def _chop(self, channel_id: int, state: TableState, seat: int) -> None:
        """An AI seat not on turn holds a chop it may play now: play it or let it go."""
        owner = owner_of(state)
        mask = await self._ai_decision(state, seat)
        if mask is not None and owner.game_id is not None:
            await self.land(channel_id, AiMove(game_id=owner.game_id, version=owner.version, seat=seat, mask=mask))

    async def _ai_decision(self, state: TableState, seat: int) -> int | None:
        table = state.table
        assert table.game is not None
        level = table.game_seats[seat].ai_level or "normal"
        levels = tuple(game_seat.ai_level for game_seat in table.game_seats)
        return await self._decide(table.game.view(seat), level, levels)

    # --------------------------------------------------------------- landing
    async def land(self, channel_id: int, command: "steps.Command", plan: Plan | None = None) -> None:
        """Run ``command`` until it is stored, or no longer applies.

        With ``plan``, landing means the table moved on from it: a step that
        was stored yet left the table waiting for the same thing is run again
        (an owner never just stops)."""
        delay = RETRY_FIRST
        while not self._closing:
            try:
                await self._run(channel_id, command)
                if plan is None or self._plans.get(channel_id) is not plan:
                    return
                log.warning("table %s: a %s step changed nothing it waits for; trying again",
                            channel_id, type(command).__name__)
            except (Stale, TableError, StaleEpoch):
                return  # moved on meanwhile, the table closed, or this process lost its slot
            except Unavailable:
                pass  # the store logs the outage once
            except Refused as refusal:  # the service reloaded the table; the next try sees it
                log.error("table %s: the database refused a %s step (%s)", channel_id, type(command).__name__,
                          refusal)
            except Exception:
                log.exception("table %s: a %s step failed", channel_id, type(command).__name__)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)

    async def close(self) -> None:
        self._closing = True
        plans = list(self._plans.values())
        for plan in plans:
            if plan.timer is not None:
                plan.timer.cancel()
        tasks = [task for plan in plans for task in (plan.task, *plan.helpers) if task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _key(owner: Owner, state: TableState) -> tuple:
    """What a plan is for: a new key means a new plan."""
    if owner.kind == "idle":
        return ("idle", state.last_activity)
    return (owner.kind, owner.game_id, owner.version, owner.seat, state.table.game_seats[owner.seat].afk
            if owner.seat is not None else None)

"""Run any discord.py ``Client``/``Bot`` in-process against a ``FakeDiscord``.

``run_bot`` starts the bot as a task, waits until it is READY (guilds
available) and closes it cleanly on exit. ``BotHandle.crash()`` simulates a
process crash instead: the gateway socket is aborted without a close frame
(so the fake keeps the session resumable, like Discord) and every task the bot
spawned is cancelled, so no half-dead handler keeps talking to the fake.

Tasks are attributed to a bot with a context variable set in the bot's main
task (child tasks inherit it) and a loop task factory that records them.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Optional

from .server import FakeDiscord

_OWNER: contextvars.ContextVar[Optional["BotHandle"]] = contextvars.ContextVar("fakediscord_bot", default=None)
_FACTORIES: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list]" = weakref.WeakKeyDictionary()
STOP_TIMEOUT = 10.0


class BotHandle:
    """A bot started by ``run_bot``/``start_bot``; stop it with ``stop`` or ``crash``."""

    def __init__(self, fake: FakeDiscord, bot: Any, token: str) -> None:
        self.fake = fake
        self.bot = bot
        self.token = token
        self.task: Optional[asyncio.Task] = None
        self.stopped = False
        self._tasks: "weakref.WeakSet[asyncio.Task]" = weakref.WeakSet()

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def start(self, ready_timeout: float = 10.0) -> "BotHandle":
        self.fake.patch_discord()
        loop = asyncio.get_running_loop()
        _install_task_factory(loop)
        context = contextvars.copy_context()
        context.run(_OWNER.set, self)
        self.task = loop.create_task(self.bot.start(self.token), name=f"fakediscord-bot-{id(self.bot)}", context=context)
        try:
            await self._wait_ready(ready_timeout)
        except BaseException:
            await self.crash()
            raise
        return self

    async def _wait_ready(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        assert self.task is not None
        while not self.bot.is_ready():
            if self.task.done():
                self.task.result()  # re-raises e.g. LoginFailure
                raise AssertionError("the bot stopped before it became ready")
            if loop.time() > deadline:
                raise AssertionError(f"the bot was not ready within {timeout} s (small guild_ready_timeout?)")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Close the bot the normal way (gateway close 1000, HTTP session closed)."""
        if self.stopped:
            return
        self.stopped = True
        try:
            await _bounded(self.bot.close(), "bot.close()")
            await self._await_main_task(STOP_TIMEOUT)
        finally:
            await self._cancel_spawned()
            _release_task_factory(asyncio.get_running_loop())

    async def crash(self) -> None:
        """Die like a killed process: no gateway close frame, all bot tasks cancelled."""
        if self.stopped:
            return
        self.stopped = True
        try:
            for ws in _gateway_sockets(self.bot):
                if ws._keep_alive is not None:
                    ws._keep_alive.stop()  # a thread; it would keep heartbeating
                _abort(ws.socket)
            if self.task is not None:
                self.task.cancel()
            await self._cancel_spawned()
            await self._await_main_task(STOP_TIMEOUT)
            # A dead process's sockets are closed by the OS; close ours to match.
            await self.bot.http.close()
        finally:
            _release_task_factory(asyncio.get_running_loop())

    async def _await_main_task(self, timeout: float) -> None:
        if self.task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self.task), timeout)
        except asyncio.TimeoutError:
            self.task.cancel()
        except BaseException:
            pass  # the bot's own failure or cancellation: it is stopped either way
        await asyncio.wait({self.task}, timeout=timeout)

    async def _cancel_spawned(self) -> None:
        current = asyncio.current_task()
        pending = [t for t in list(self._tasks) if not t.done() and t is not current]
        for task in pending:
            task.cancel()
        if not pending:
            return
        # Bounded: a task that swallows its cancellation would otherwise hang the test run.
        _, stuck = await asyncio.wait(pending, timeout=STOP_TIMEOUT)
        if stuck:
            raise AssertionError(f"bot task(s) still running {STOP_TIMEOUT} s after being cancelled: "
                                 f"{sorted(_describe(task) for task in stuck)}")


def _describe(task: asyncio.Task) -> str:
    """A stuck task's name and where it waits: enough to find the code that swallowed its cancellation."""
    frames = [f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno} {frame.f_code.co_name}"
              for frame in task.get_stack()]
    return f"{task.get_name()} ({task.get_coro()!r}) at {' <- '.join(reversed(frames)) or '?'}"


async def _bounded(work: Any, what: str) -> None:
    """Await ``work`` for at most STOP_TIMEOUT s, then cancel it and wait at most as long again:
    unlike ``asyncio.wait_for``, never waits forever for a coroutine that swallows its cancellation."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=STOP_TIMEOUT)
    if not done:
        task.cancel()
        await asyncio.wait({task}, timeout=STOP_TIMEOUT)
        raise asyncio.TimeoutError(f"{what} did not finish within {STOP_TIMEOUT} s")
    task.result()


@asynccontextmanager
async def run_bot(fake: FakeDiscord, bot: Any, token: str = "fake-bot-token", *,
                  ready_timeout: float = 10.0) -> AsyncIterator[BotHandle]:
    """``async with run_bot(fake, bot) as handle:`` -- bot READY inside, closed after."""
    handle = await BotHandle(fake, bot, token).start(ready_timeout)
    try:
        yield handle
    finally:
        await handle.stop()


def _gateway_sockets(bot: Any) -> list[Any]:
    shards = getattr(bot, "_AutoShardedClient__shards", None)
    if shards:
        return [shard.ws for shard in shards.values() if shard.ws is not None]
    ws = getattr(bot, "ws", None)
    return [ws] if ws is not None else []


def _abort(socket: Any) -> None:
    """Abort an aiohttp client websocket's TCP connection (no close frame)."""
    transport = getattr(getattr(socket, "_writer", None), "transport", None)
    if transport is None:
        connection = getattr(socket, "_conn", None)
        transport = getattr(connection, "transport", None)
    if transport is not None:
        transport.abort()


def _install_task_factory(loop: asyncio.AbstractEventLoop) -> None:
    entry = _FACTORIES.get(loop)
    if entry is not None:
        entry[1] += 1
        return
    previous = loop.get_task_factory()

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task:
        task = previous(loop, coro, **kwargs) if previous else asyncio.Task(coro, loop=loop, **kwargs)
        owner = _OWNER.get()
        if owner is not None:
            owner._tasks.add(task)
        return task

    loop.set_task_factory(factory)
    _FACTORIES[loop] = [previous, 1]


def _release_task_factory(loop: asyncio.AbstractEventLoop) -> None:
    entry = _FACTORIES.get(loop)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        loop.set_task_factory(entry[0])
        del _FACTORIES[loop]

"""AI seats for the bot: quick levels think inline, `hard` in a process pool.

The event loop must never block on search, so `hard` decisions run in worker
processes.  The pool is bounded: when every worker is busy for longer than a
decision budget, the seat plays at `normal` level instead of queueing, so many
tables cannot starve each other.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from tienlen.game import SeatView

log = logging.getLogger(__name__)

__all__ = ["AiRunner", "decide_inline"]


def decide_inline(view: SeatView, level: str, seed: int, budget_ms: int,
                  levels: "tuple[str | None, ...] | None" = None) -> int | None:
    """The mask an AI seat plays (None: pass), computed in this process;
    ``levels``: every seat's public AI level (None for a person)."""
    from tienlen import ai

    return ai.decide(view, level, seed, budget_ms, levels)


class AiRunner:
    """Decides AI moves without blocking the event loop.

    ``workers`` processes serve ``hard`` (0: the loop's thread pool, for
    tests); a ``hard`` decision that cannot get a worker within its budget is
    taken at ``normal`` level instead.
    """

    def __init__(self, *, workers: int = 1, budget_ms: int = 300) -> None:
        self.workers = workers
        self.budget_ms = budget_ms
        self._pool: ProcessPoolExecutor | None = None
        self._slots = asyncio.Semaphore(max(1, workers))

    async def decide(self, view: SeatView, level: str, seed: int,
                     levels: "tuple[str | None, ...] | None" = None) -> int | None:
        if level != "hard":
            return decide_inline(view, level, seed, self.budget_ms, levels)
        try:
            await asyncio.wait_for(self._slots.acquire(), timeout=self.budget_ms / 1000)
        except asyncio.TimeoutError:
            log.debug("AI pool busy; deciding at normal level")
            return decide_inline(view, "normal", seed, self.budget_ms, levels)
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor(), decide_inline, view, level, seed, self.budget_ms,
                                              levels)
        finally:
            self._slots.release()

    def _executor(self) -> ProcessPoolExecutor | None:
        if self.workers <= 0:
            return None  # the loop's default thread pool
        if self._pool is None:
            # Not "fork": the bot process has threads (aiosqlite, Pillow's
            # worker) whose locks a forked child could inherit held.
            context = multiprocessing.get_context("forkserver")
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

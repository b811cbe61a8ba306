"""Change notification so tests can wait for the bot's asynchronous actions.

Every request the bot makes calls ``ChangeFeed.notify``; ``wait_until``
re-checks a predicate after each notification (and on a short poll interval,
so predicates over external state such as a database also work) until it
becomes truthy or the timeout expires.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Callable, Optional

POLL_INTERVAL = 0.05


class ChangeFeed:
    def __init__(self) -> None:
        self._event: Optional[asyncio.Event] = None

    def notify(self) -> None:
        if self._event is not None:
            self._event.set()
            # A fresh event per round: waiters that wake re-arm on the new one.
            self._event = None

    def _next_change(self) -> asyncio.Event:
        if self._event is None:
            self._event = asyncio.Event()
        return self._event

    async def wait_until(self, predicate: Callable[[], Any], timeout: float, what: Optional[str] = None) -> Any:
        """Return the first truthy value of ``predicate()`` (sync or async)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout} s waiting for {what or _describe(predicate)}")
            try:
                await asyncio.wait_for(self._next_change().wait(), min(remaining, POLL_INTERVAL))
            except asyncio.TimeoutError:
                pass


def _describe(predicate: Callable[[], Any]) -> str:
    try:
        return inspect.getsource(predicate).strip()
    except (OSError, TypeError):
        return repr(predicate)

"""One warning when something the bot depends on starts failing, one line when it works again.

An outage of a minute must not log a traceback per attempt: the runtime
(database writes) and the Discord layer (table edits, DMs, summaries) both
retry until the service is back, and tell the operator once each way.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

__all__ = ["Outages"]


class Outages:
    def __init__(
        self,
        service: str,
        *,
        logger: logging.Logger,
        describe: Callable[[BaseException], str] = lambda error: type(error).__name__,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.log = logger
        self.describe = describe
        self.clock = clock
        self._since: dict[str, tuple[float, int]] = {}

    def failed(self, what: str, error: BaseException) -> None:
        started, failures = self._since.get(what, (self.clock(), 0))
        if failures == 0:
            self.log.warning("%s is failing %s (%s); retrying until it recovers", self.service, what,
                             self.describe(error))
        self._since[what] = (started, failures + 1)

    def recovered(self, what: str) -> None:
        outage = self._since.pop(what, None)
        if outage is not None:
            started, failures = outage
            self.log.warning("%s %s work again after %.0f s (%d failed attempts)", self.service, what,
                             self.clock() - started, failures)

    def failing(self, what: str) -> bool:
        return what in self._since

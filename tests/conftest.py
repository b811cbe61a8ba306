"""Test-wide fixtures: the fake Discord server (see tests/fakediscord/README.md), and a
watchdog for a test that hangs.

pytest-timeout (``timeout`` in pyproject.toml) fails a test that runs too long, so a
hang costs one test rather than the whole CI run.  Its traceback shows only where the
main thread waits (the event loop's ``select``), so shortly before it fires the
watchdog prints every unfinished asyncio task's stack: that is where an async test
hangs.  A test that timed out runs once more (``--only-rerun pytest-timeout``): a rare
hang is reported, not allowed to block everything; any other failure is not rerun.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import threading

import pytest

pytest_plugins = ["tests.fakediscord.plugin"]

WATCHDOG_MARGIN = 15.0
"""Seconds before pytest-timeout fires that the tasks are printed."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    limit = item.config.getini("timeout")
    seconds = float(limit) - WATCHDOG_MARGIN if limit else 0.0
    capture = item.config.pluginmanager.get_plugin("capturemanager")
    watchdog = threading.Timer(seconds, _print_tasks, args=(item.nodeid, capture)) if seconds > 0 else None
    if watchdog is not None:
        watchdog.daemon = True
        watchdog.start()
    try:
        yield
    finally:
        if watchdog is not None:
            watchdog.cancel()


def _print_tasks(nodeid: str, capture) -> None:
    """Best effort from another thread (a hung loop is not changing its tasks), on the
    terminal rather than into the test's captured output, which a rerun would hide."""
    out = io.StringIO()
    tasks = [task for task in list(asyncio.tasks._all_tasks) if not task.done()]
    print(f"=== {nodeid} still runs: {len(tasks)} unfinished asyncio task(s) ===", file=out)
    for task in tasks:
        try:
            task.print_stack(file=out)
        except Exception as error:  # the task moved on while it was printed
            print(f"{task!r}: {error!r}", file=out)
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        sys.stderr.write("\n" + out.getvalue())
        sys.stderr.flush()

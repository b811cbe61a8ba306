"""Run a bot in a subprocess, redirected to a fake Discord given by env vars.

    python -m tests.fakediscord.launch package.module[:function] [args...]

Reads ``FAKE_DISCORD_API_BASE`` and ``FAKE_DISCORD_GATEWAY_URL`` (see
``FakeDiscord.env()``), redirects discord.py, then runs the module as
``__main__`` or calls ``function()`` (awaiting it if it is a coroutine
function). The product code needs no knowledge of the fake. Run it with the
repository root as the working directory so ``tests`` is importable.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import runpy
import sys

from tests.fakediscord.redirect import ENV_API_BASE, ENV_GATEWAY_URL, redirect_discord


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    redirect_discord(os.environ[ENV_API_BASE], os.environ[ENV_GATEWAY_URL])
    target, args = argv[0], argv[1:]
    module_name, _, function_name = target.partition(":")
    sys.argv = [target, *args]
    if not function_name:
        runpy.run_module(module_name, run_name="__main__", alter_sys=True)
        return
    function = getattr(importlib.import_module(module_name), function_name)
    result = function()
    if inspect.isawaitable(result):
        asyncio.run(result)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Point discord.py at a fake Discord by rewriting its two base-URL attributes.

Every REST call (including the interaction webhook adapter) builds its URL
from ``discord.http.Route.BASE`` when the route is created, and the gateway
falls back to ``DiscordWebSocket.DEFAULT_GATEWAY``; changing both at runtime
is enough. Used in-process by ``FakeDiscord.patch_discord`` and in a bot
subprocess by ``launch.py``.
"""

from __future__ import annotations

from typing import Any

import yarl

# Environment variables carrying the fake's addresses to a bot subprocess.
ENV_API_BASE = "FAKE_DISCORD_API_BASE"
ENV_GATEWAY_URL = "FAKE_DISCORD_GATEWAY_URL"


def redirect_discord(api_base: str, gateway_url: str) -> tuple[Any, Any]:
    """Redirect discord.py; returns the previous values for ``restore_discord``."""
    import discord.gateway
    import discord.http

    previous = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    return previous


def restore_discord(previous: tuple[Any, Any]) -> None:
    import discord.gateway
    import discord.http

    discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = previous

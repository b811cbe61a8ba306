"""The Activity's settings, read from the environment (``.env``): off unless ACTIVITY_PORT is set.

``ACTIVITY_PORT``: the port of the Activity's web server (empty: no Activity).
``ACTIVITY_HOST``: the address it listens on (127.0.0.1 behind a reverse proxy or tunnel).
``ACTIVITY_PEER_URL``: in a cluster, the address at which the other bot processes reach this
one's Activity server (``http://host:port``; by default ACTIVITY_HOST and the port, or this
machine's name when ACTIVITY_HOST listens on every address).
``DISCORD_CLIENT_SECRET``: the OAuth2 client secret of the bot's application, needed to
exchange the client's authorization code for an access token.
``TIENLEN_TEST_ACTIVITY_HOOKS``: tests only — the client may skip the SDK handshake
(see docs/activity.md); never set it in production.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Mapping

__all__ = ["ActivitySettings", "MISSING_SECRET"]

MISSING_SECRET = (
    "ACTIVITY_PORT is set but DISCORD_CLIENT_SECRET is not: copy the client secret from the Developer Portal "
    "(your app → OAuth2 → Client Secret) into .env, or leave ACTIVITY_PORT empty (see docs/activity.md)."
)


@dataclass(frozen=True)
class ActivitySettings:
    port: int | None = None
    host: str = "127.0.0.1"
    client_secret: str = ""
    test_hooks: bool = False
    peer_url: str = ""

    @property
    def enabled(self) -> bool:
        return self.port is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "ActivitySettings":
        env = os.environ if env is None else env
        text = (env.get("ACTIVITY_PORT") or "").strip()
        try:
            port = int(text) if text else None
        except ValueError:
            port = -1  # refused by problem(), with the rule
        return cls(port=port,
                   host=(env.get("ACTIVITY_HOST") or "").strip() or "127.0.0.1",
                   client_secret=(env.get("DISCORD_CLIENT_SECRET") or "").strip(),
                   test_hooks=(env.get("TIENLEN_TEST_ACTIVITY_HOOKS") or "") == "1",
                   peer_url=(env.get("ACTIVITY_PEER_URL") or "").strip().rstrip("/"))

    def peer_address(self, bound_port: int) -> str:
        """Where the other processes of a cluster reach this Activity server.

        >>> ActivitySettings(port=0, host="127.0.0.1").peer_address(8123)
        'http://127.0.0.1:8123'
        """
        if self.peer_url:
            return self.peer_url
        host = socket.gethostname() if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{host}:{bound_port}"

    def problem(self) -> str | None:
        """The one line an operator needs when the settings cannot work (None: fine)."""
        if not self.enabled:
            return None
        if not 0 <= (self.port or 0) <= 65535:
            return "ACTIVITY_PORT must be a port number (0–65535)."
        if not self.client_secret:
            return MISSING_SECRET
        return None

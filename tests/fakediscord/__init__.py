"""A fake Discord (API v10 REST + gateway) on 127.0.0.1 for end-to-end tests.

The real discord.py client -- gateway parsing, command tree, views, HTTP
serialisation -- runs against it. See ``server.FakeDiscord`` for the test API,
``runner.run_bot`` to run a bot in-process and ``plugin`` for the pytest
fixtures (``fake_discord``, ``start_bot``).
"""

from .errors import ClientRefused, InteractionTimeout
from .interactions import InteractionResult, ResponseType
from .rest import RecordedRequest
from .runner import BotHandle, run_bot
from .server import FakeDiscord
from .world import Attachment, Channel, Guild, Message, Perm, User

__all__ = [
    "Attachment", "BotHandle", "Channel", "ClientRefused", "FakeDiscord", "Guild", "InteractionResult",
    "InteractionTimeout", "Message", "Perm", "RecordedRequest", "ResponseType", "User", "run_bot",
]

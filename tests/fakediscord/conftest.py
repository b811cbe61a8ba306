"""Make the fake's fixtures available to its own self-tests.

A non-root conftest may not set ``pytest_plugins``, so the fixtures are
imported here; ``tests/conftest.py`` (owned by the lead) can load the same
fixtures for every test with ``pytest_plugins = ["tests.fakediscord.plugin"]``.
"""

from tests.fakediscord.plugin import fake_discord, start_bot  # noqa: F401  (pytest fixtures)

"""Test-wide fixtures: the fake Discord server (see tests/fakediscord/README.md)."""

pytest_plugins = ["tests.fakediscord.plugin"]

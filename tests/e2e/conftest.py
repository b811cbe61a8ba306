"""Fixtures for end-to-end tests: the real bot, in-process, against the fake Discord."""

from __future__ import annotations

import dataclasses

import pytest

from runtime.settings import Settings


@pytest.fixture(autouse=True)
def discord_refuses_new_pictures_in_webhook_edits(fake_discord):
    """As bots report of Discord (discord-api-docs #7529): a webhook edit cannot bring in a
    new picture by a media gallery; the bot must answer with a new message instead."""
    fake_discord.webhook_media_quirk = True


@pytest.fixture
def settings(tmp_path, fake_discord):
    return Settings(
        discord_token="fake-bot-token",
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
        dev_guild_id=fake_discord.guild.id,
        ai_delay_seconds=0.0,
        ai_workers=0,
        table_edit_interval=0.0,
        min_turn_seconds=1,
        deal_seed=2026,
    )


@pytest.fixture
def make_bot(settings):
    from bot import TienLenBot

    def make(*, sync_globally: bool = False, shard_count: int | None = None, **changes):
        return TienLenBot(dataclasses.replace(settings, **changes), sync_globally=sync_globally,
                          guild_ready_timeout=0.05, shard_count=shard_count)

    return make

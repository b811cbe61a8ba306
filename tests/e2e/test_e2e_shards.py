"""Several gateway shards in one bot process: the table's guild on one shard,
the players' DMs (always shard 0 on Discord) on another, one game across both."""

from __future__ import annotations

from tests.e2e.test_e2e_full_game import open_table


def _shard_count_away_from_zero(guild_id: int) -> int:
    """A shard count that puts ``guild_id`` on a shard other than 0 (where DMs go)."""
    return next(count for count in range(2, 16) if (guild_id >> 22) % count != 0)


async def test_a_game_played_by_dm_buttons_while_the_guild_is_on_another_shard(fake_discord, start_bot, make_bot):
    fake = fake_discord
    shards = _shard_count_away_from_zero(fake.guild.id)
    bot = make_bot(shard_count=shards)

    async def identify_at_once(shard_id, *, initial=False):
        """discord.py waits 5 s between shard IDENTIFYs (Discord's limit); the fake has none."""

    bot.before_identify_hook = identify_at_once
    await start_bot(bot)
    sessions = list(fake.gateway.sessions.values())
    assert sorted(session.shard for session in sessions) == [(index, shards) for index in range(shards)]

    driver = await open_table(fake, fake.users[:2], "mien-nam")
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between", what="the end of the game")
    assert driver.actions > 0 and not driver.ephemeral_hands  # every move came from a DM

"""Signing in under Discord's rate limits: a 429 on the sign-in's calls is waited out, and one answer
about an activity instance serves the players it counts (the bot token's global limit is the bot's
table edits' too)."""

from __future__ import annotations

import pytest

INSTANCE_ROUTE = "GET /applications/{app_id}/activity-instances/{instance_id}"


def instance_lookups(fake, mark) -> int:
    return sum(request.key == INSTANCE_ROUTE for request in fake.requests_since(mark))


async def test_a_rate_limited_sign_in_waits_and_gets_in(fake_discord, activity_bot, connect):
    fake = fake_discord
    if not fake.rate_limits.enabled:
        pytest.skip("the fake's rate limits are off (FAKE_DISCORD_RATE_LIMITS=0)")
    fake.rate_limits.set_limit(INSTANCE_ROUTE, 1, 2.0)  # one lookup per (compressed) 2 s
    users = fake.users[:3]
    instances = [fake.activities.launch(fake.channel, [user]) for user in users]  # three instances: no sharing
    for user, instance in zip(users, instances):
        client = await connect(user, instance)
        assert client.latest("welcome")["user"] == str(user.id)
    api = activity_bot.activity_server.api
    assert api.rate_limited >= 1  # waited out, not refused as "Discord is down"


async def test_players_of_one_instance_share_its_lookup_and_a_newcomer_asks_again(fake_discord, activity_bot,
                                                                                  connect):
    fake = fake_discord
    alice, bob, carol, dan = fake.users[:4]
    instance = fake.activities.launch(fake.channel, [alice, bob, carol])
    mark = fake.mark()
    for user in (alice, bob, carol):
        await connect(user, instance)
    assert instance_lookups(fake, mark) == 1

    fake.activities.enter(instance, dan)  # dan opens the Activity a moment later
    client = await connect(dan, instance)
    assert client.latest("welcome")["user"] == str(dan.id)  # not refused from the older answer
    assert instance_lookups(fake, mark) == 2
    stranger = await connect(fake.add_user("Eve"), instance, welcome=False)  # not in the instance at all
    await stranger.wait(lambda frame: frame["type"] == "bye")
    assert stranger.latest("bye")["code"] == "not_in_instance" and instance_lookups(fake, mark) == 3

"""Self-tests: an Activity's side of Discord — the OAuth2 code exchange, Bearer /users/@me, activity instances."""

from __future__ import annotations

import aiohttp

from tests.fakediscord import FakeDiscord
from tests.fakediscord.activities import CLIENT_SECRET


async def test_a_code_becomes_a_token_once_and_the_token_names_its_user(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice = fake.users[0]
    alice.locale = "vi"
    code = fake.activities.authorize(alice)
    form = {"client_id": str(fake.world.application_id), "client_secret": CLIENT_SECRET,
            "grant_type": "authorization_code", "code": code}
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{fake.api_base}/oauth2/token", data=form) as answer:
            assert answer.status == 200
            body = await answer.json()
        assert body["token_type"] == "Bearer" and body["scope"] == "identify"
        async with http.post(f"{fake.api_base}/oauth2/token", data=form) as again:
            assert again.status == 400 and (await again.json())["error"] == "invalid_grant"
        async with http.post(f"{fake.api_base}/oauth2/token", data={**form, "client_secret": "no"}) as wrong:
            assert wrong.status == 401 and (await wrong.json())["error"] == "invalid_client"
        bearer = {"Authorization": f"Bearer {body['access_token']}"}
        async with http.get(f"{fake.api_base}/users/@me", headers=bearer) as me:
            user = await me.json()
            assert me.status == 200 and user["id"] == str(alice.id) and user["locale"] == "vi"
        fake.activities.expire(body["access_token"])
        async with http.get(f"{fake.api_base}/users/@me", headers=bearer) as expired:
            assert expired.status == 401
        async with http.get(f"{fake.api_base}/users/@me", headers={"Authorization": "Bearer forged"}) as forged:
            assert forged.status == 401
        async with http.get(f"{fake.api_base}/users/@me") as anonymous:  # neither a bot nor a user token
            assert anonymous.status == 401


async def test_an_instance_gives_its_channel_and_users_to_the_bot_only(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    alice, bob = fake.users[:2]
    instance = fake.activities.launch(fake.channel, [alice])
    fake.activities.enter(instance, bob)
    path = f"{fake.api_base}/applications/{fake.world.application_id}/activity-instances"
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{path}/{instance}", headers={"Authorization": "Bot fake-bot-token"}) as answer:
            body = await answer.json()
        assert answer.status == 200 and body["instance_id"] == instance
        assert body["location"] == {"id": f"gc-{fake.guild.id}-{fake.channel.id}", "kind": "gc",
                                    "channel_id": str(fake.channel.id), "guild_id": str(fake.guild.id)}
        assert sorted(body["users"]) == sorted([str(alice.id), str(bob.id)])
        async with http.get(f"{path}/i-unknown", headers={"Authorization": "Bot fake-bot-token"}) as unknown:
            assert unknown.status == 404
        async with http.get(f"{path}/{instance}") as anonymous:
            assert anonymous.status == 401
    assert not fake.unknown_requests

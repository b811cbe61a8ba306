"""Self-tests: Discord's REST rate limits in the fake, and discord.py recovering from them.

Most tests speak raw HTTP with an injected clock, so windows open and close
exactly when the test says; the discord.py tests use the real clock with short
windows. Every test here turns the limits on with Discord's real timing
(``time_scale = 1``), not the fixture's compressed one.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Optional

import aiohttp
import pytest
from multidict import CIMultiDict

from tests.fakediscord import FakeDiscord
from tests.fakediscord.ratelimits import DM_CREATE, MESSAGE_CREATE, MESSAGE_EDIT, RateLimits
from tests.fakediscord.sample_bot import SampleBot

TOKEN = "fake-bot-token"
CREATE = "POST /channels/{channel_id}/messages"
EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Answer:
    status: int
    headers: CIMultiDict
    body: Any


class Api:
    """Raw REST calls as one client (one connection pool) of one bot token."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession, token: Optional[str] = TOKEN) -> None:
        self.fake, self.session, self.token = fake, session, token

    async def call(self, method: str, path: str, json: Any = None) -> Answer:
        headers = {"Authorization": f"Bot {self.token}"} if self.token else {}
        async with self.session.request(method, self.fake.api_base + path, json=json, headers=headers) as response:
            body = await response.json() if response.content_type == "application/json" else None
            return Answer(response.status, CIMultiDict(response.headers), body)

    async def send(self, channel, content: str = "hi") -> Answer:
        return await self.call("POST", f"/channels/{channel.id}/messages", {"content": content})

    async def edit(self, message_id: int, channel, content: str) -> Answer:
        return await self.call("PATCH", f"/channels/{channel.id}/messages/{message_id}", {"content": content})


@pytest.fixture(autouse=True)
def real_timing(fake_discord: FakeDiscord) -> None:
    """Discord's limits in real time, whatever FAKE_DISCORD_RATE_LIMITS/_TIME_SCALE say."""
    fake_discord.rate_limits.enabled = True
    fake_discord.rate_limits.time_scale = 1.0


@pytest.fixture
def clock(fake_discord: FakeDiscord) -> Clock:
    fake_discord.rate_limits.clock = clock = Clock()
    return clock


@pytest.fixture
async def api(fake_discord: FakeDiscord):
    async with aiohttp.ClientSession() as session:
        yield Api(fake_discord, session)


async def test_every_limited_answer_carries_its_buckets_headers(fake_discord: FakeDiscord, clock: Clock,
                                                                api: Api) -> None:
    answers = [await api.send(fake_discord.channel, f"m{i}") for i in range(3)]
    assert [a.status for a in answers] == [200, 200, 200]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["4", "3", "2"]
    first = answers[0].headers
    assert first["X-RateLimit-Limit"] == "5" and first["X-RateLimit-Reset-After"] == "5.000"
    assert first["X-RateLimit-Bucket"] == MESSAGE_CREATE.hash and first["Via"] == "1.1 google"
    assert "X-RateLimit-Scope" not in first and "X-RateLimit-Global" not in first  # only on a 429
    clock.advance(1.25)
    later = (await api.send(fake_discord.channel)).headers
    assert later["X-RateLimit-Reset-After"] == "3.750"  # the window runs from its first request
    reset_at = float(later["X-RateLimit-Reset"])
    assert abs(reset_at - (fake_discord.rate_limits.wall_clock() + 3.75)) < 1.0
    # Errors count and carry headers too; the CDN route and unmodelled routes do not.
    missing = await api.call("GET", f"/channels/{fake_discord.channel.id}/messages/1")
    assert missing.status == 404 and missing.headers["X-RateLimit-Limit"] == "50"
    assert "X-RateLimit-Limit" not in (await api.call("GET", "/nothing/here")).headers
    fake_discord.unknown_requests.clear()
    assert [r.bucket for r in fake_discord.requests[:2]] == ["message-create", "message-create"]


async def test_the_sixth_message_in_five_seconds_is_refused_with_429(fake_discord: FakeDiscord, clock: Clock,
                                                                      api: Api) -> None:
    channel = fake_discord.channel
    for i in range(5):
        assert (await api.send(channel, f"m{i}")).status == 200
    clock.advance(0.5)
    refused = await api.send(channel, "one too many")
    assert refused.status == 429
    assert refused.body == {"message": "You are being rate limited.", "retry_after": 4.5, "global": False}
    headers = refused.headers
    assert headers["Retry-After"] == "5" and headers["X-RateLimit-Scope"] == "user"
    assert headers["X-RateLimit-Remaining"] == "0" and headers["X-RateLimit-Reset-After"] == "4.500"
    assert headers["X-RateLimit-Bucket"] == MESSAGE_CREATE.hash and headers["Via"] == "1.1 google"
    assert "X-RateLimit-Global" not in headers
    # Not executed, but recorded and counted by route.
    assert [m.content for m in fake_discord.messages(channel)] == [f"m{i}" for i in range(5)]
    last = fake_discord.requests[-1]
    assert (last.status, last.rate_limited, last.key) == (429, "user", CREATE)
    assert fake_discord.rate_limited == {CREATE: 1} and fake_discord.rate_limited.total() == 1
    assert fake_discord.rate_limited_requests() == [last]


async def test_buckets_are_per_channel_and_per_route(fake_discord: FakeDiscord, clock: Clock, api: Api) -> None:
    general, other = fake_discord.channel, fake_discord.add_channel("other")
    ids = [int((await api.send(general, f"m{i}")).body["id"]) for i in range(5)]
    assert (await api.send(general)).status == 429
    assert (await api.send(other)).status == 200  # another channel, another window
    # Edits of one channel's messages: their own bucket of 5 per 5 s.
    edits = [await api.edit(ids[0], general, f"edit {n}") for n in range(6)]
    assert [a.status for a in edits] == [200] * 5 + [429]
    assert edits[0].headers["X-RateLimit-Bucket"] == MESSAGE_EDIT.hash != MESSAGE_CREATE.hash
    assert fake_discord.messages(general)[0].content == "edit 4"  # the refused edit changed nothing
    assert fake_discord.rate_limited == {CREATE: 1, EDIT: 1}


async def test_the_window_resets_after_its_time(fake_discord: FakeDiscord, clock: Clock, api: Api) -> None:
    for _ in range(5):
        await api.send(fake_discord.channel)
    clock.advance(4.999)
    assert (await api.send(fake_discord.channel)).status == 429
    clock.advance(0.001)
    again = await api.send(fake_discord.channel)
    assert again.status == 200 and again.headers["X-RateLimit-Remaining"] == "4"
    assert again.headers["X-RateLimit-Reset-After"] == "5.000"


async def test_dm_channel_creation_has_its_own_bucket(fake_discord: FakeDiscord, clock: Clock, api: Api) -> None:
    users = [fake_discord.add_user(f"user{i}") for i in range(6)]
    answers = [await api.call("POST", "/users/@me/channels", {"recipient_id": str(u.id)}) for u in users]
    assert [a.status for a in answers] == [200] * 5 + [429]
    assert answers[0].headers["X-RateLimit-Bucket"] == DM_CREATE.hash
    assert fake_discord.rate_limited == {"POST /users/@me/channels": 1}


async def test_the_global_limit_is_shared_by_every_client_of_one_token(fake_discord: FakeDiscord,
                                                                        clock: Clock) -> None:
    async with aiohttp.ClientSession() as one, aiohttp.ClientSession() as two, aiohttp.ClientSession() as three:
        first, second, stranger = Api(fake_discord, one), Api(fake_discord, two), Api(fake_discord, three, "other")
        # 50 requests in one second, spread over two clients and several routes.
        for _ in range(25):
            assert (await first.call("GET", "/users/@me")).status == 200
            assert (await second.call("GET", f"/guilds/{fake_discord.guild.id}")).status == 200
        clock.advance(0.4)
        refused = await second.call("GET", f"/channels/{fake_discord.channel.id}")
        assert refused.status == 429
        assert refused.body == {"message": "You are being rate limited.", "retry_after": 0.6, "global": True}
        assert refused.headers["X-RateLimit-Global"] == "true" and refused.headers["X-RateLimit-Scope"] == "global"
        assert refused.headers["Retry-After"] == "1" and "X-RateLimit-Bucket" not in refused.headers
        # Another bot's token has its own global limit.
        assert (await stranger.call("GET", "/users/@me")).status == 200
        # Interaction endpoints are not bound to the global limit.
        sent = await _interaction(fake_discord)
        callback = await first.call("POST", f"/interactions/{sent.id}/{sent.token}/callback",
                                    {"type": 4, "data": {"content": "still answered"}})
        assert callback.status == 204
        clock.advance(0.6)
        assert (await first.call("GET", "/users/@me")).status == 200
    assert [r.rate_limited for r in fake_discord.rate_limited_requests()] == ["global"]
    assert fake_discord.rate_limited == {"GET /channels/{channel_id}": 1}


async def test_interaction_callbacks_are_not_limited(fake_discord: FakeDiscord, clock: Clock, api: Api) -> None:
    for _ in range(60):
        sent = await _interaction(fake_discord)
        answer = await api.call("POST", f"/interactions/{sent.id}/{sent.token}/callback", {"type": 5})
        assert answer.status == 204
    assert not fake_discord.rate_limited


async def test_limits_can_be_changed_or_switched_off(fake_discord: FakeDiscord, clock: Clock, api: Api) -> None:
    limits = fake_discord.rate_limits
    limits.set_limit("message-create", 2, 1.0)
    assert [(await api.send(fake_discord.channel)).status for _ in range(3)] == [200, 200, 429]
    limits.set_limit(CREATE, 3, 1.0)  # by route key: the same bucket
    assert limits.remaining(CREATE, token=TOKEN, channel_id=str(fake_discord.channel.id)) == 1
    limits.enabled = False
    answers = [await api.send(fake_discord.channel) for _ in range(10)]
    assert {a.status for a in answers} == {200}
    assert not any(name.startswith("X-RateLimit") for a in answers for name in a.headers)
    limits.enabled = True
    limits.reset()
    assert (await api.send(fake_discord.channel)).headers["X-RateLimit-Remaining"] == "2"
    with pytest.raises(ValueError):
        limits.set_limit("no-such-bucket", 1, 1.0)


async def test_a_fake_built_without_limits_sends_no_rate_limit_headers() -> None:
    async with FakeDiscord(rate_limits=False) as fake, aiohttp.ClientSession() as session:
        api = Api(fake, session)
        answers = [await api.send(fake.channel) for _ in range(8)]
    assert {a.status for a in answers} == {200} and "X-RateLimit-Limit" not in answers[0].headers
    assert not fake.rate_limits.enabled


async def test_an_injected_clock_via_the_constructor() -> None:
    clock = Clock()
    async with FakeDiscord(rate_limits=RateLimits(clock=clock)) as fake, aiohttp.ClientSession() as session:
        api = Api(fake, session)
        for _ in range(5):
            await api.send(fake.channel)
        clock.advance(10)
        assert (await api.send(fake.channel)).status == 200


# -- discord.py against the limits -------------------------------------------------


async def test_discord_py_waits_out_a_429_and_retries(fake_discord: FakeDiscord, start_bot, api: Api) -> None:
    """Another client used up the channel's bucket: discord.py gets a 429, sleeps retry_after, retries."""
    fake_discord.rate_limits.set_limit("message-create", 5, 0.5)
    handle = await start_bot(SampleBot())
    for _ in range(5):
        await api.send(fake_discord.channel)
    started = asyncio.get_running_loop().time()
    message = await handle.bot.get_channel(fake_discord.channel.id).send("made it")
    waited = asyncio.get_running_loop().time() - started
    assert message.content == "made it" and fake_discord.messages()[-1].content == "made it"
    assert fake_discord.rate_limited == {CREATE: 1} and 0.2 < waited < 2.0


async def test_discord_py_waits_out_a_global_429(fake_discord: FakeDiscord, start_bot, api: Api) -> None:
    fake_discord.rate_limits.global_limit, fake_discord.rate_limits.global_per = 5, 0.5
    handle = await start_bot(SampleBot())
    await asyncio.sleep(0.5)  # a fresh global window
    statuses = [(await api.call("GET", "/users/@me")).status for _ in range(6)]
    assert statuses[-1] == 429
    user = await handle.bot.fetch_user(fake_discord.user("bob").id)
    assert user.name == "bob"
    scopes = [r.rate_limited for r in fake_discord.rate_limited_requests()]
    assert scopes.count("global") >= 2 and set(scopes) == {"global"}  # ours, then the bot's


async def test_discord_py_paces_itself_by_the_headers(fake_discord: FakeDiscord, start_bot) -> None:
    """Alone on a bucket, discord.py reads X-RateLimit-Remaining and waits instead of getting 429s."""
    fake_discord.rate_limits.set_limit("message-edit", 2, 0.4)
    handle = await start_bot(SampleBot())
    channel = handle.bot.get_channel(fake_discord.channel.id)
    message = await channel.send("v0")
    started = asyncio.get_running_loop().time()
    for n in range(1, 6):
        message = await message.edit(content=f"v{n}")
    elapsed = asyncio.get_running_loop().time() - started
    assert fake_discord.messages()[-1].content == "v5"
    assert not fake_discord.rate_limited and elapsed >= 0.8  # two full windows waited


async def _interaction(fake: FakeDiscord):
    from tests.fakediscord.interactions import InteractionType

    return fake.interactions.new(type=InteractionType.APPLICATION_COMMAND, user=fake.user("alice"),
                                 channel=fake.channel, guild=fake.guild)

"""Self-tests: DMs (open and closed) and plain channel message create/edit/delete."""

from __future__ import annotations

from tests.fakediscord import FakeDiscord
from tests.fakediscord.sample_bot import SampleBot


async def test_dm_is_delivered_and_private(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    result = await fake_discord.slash(alice, "dm")
    assert result.content == "check your DMs"
    [dm] = fake_discord.dm_messages(alice)
    assert dm.content == "psst, your hand" and dm.is_dm and dm.author is fake_discord.bot_user
    assert dm in fake_discord.visible_to(alice) and dm not in fake_discord.visible_to(bob)


async def test_closed_dms_raise_forbidden_50007(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    shy = fake_discord.add_user("shy", dms_open=False)
    result = await fake_discord.slash(shy, "dm")
    assert result.content == "cannot DM you (50007)"
    assert fake_discord.dm_messages(shy) == []
    refused = [r for r in fake_discord.requests if r.key == "POST /channels/{channel_id}/messages"]
    assert [r.status for r in refused] == [403]


async def test_dms_can_be_closed_later(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    carol = fake_discord.user("carol")
    assert (await fake_discord.slash(carol, "dm")).content == "check your DMs"
    carol.dms_open = False
    assert (await fake_discord.slash(carol, "dm")).content == "cannot DM you (50007)"
    assert len(fake_discord.dm_messages(carol)) == 1


async def test_channel_messages_create_edit_delete(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    result = await fake_discord.slash(fake_discord.user("alice"), "post")
    final = await result.wait_final()
    assert final.content == "kept second version" and final.ephemeral
    [kept] = fake_discord.messages()
    assert kept.content == "second version" and kept.edited
    assert [r["content"] for r in kept.revisions] == ["first version", "second version"]
    [gone] = [m for m in fake_discord.all_messages() if m.deleted]
    assert gone.content == "short-lived" and gone not in fake_discord.visible_to(fake_discord.user("bob"))
    sent_events = [e.t for e in fake_discord.gateway.events if e.t and e.t.startswith("MESSAGE_")]
    assert sent_events == ["MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_CREATE", "MESSAGE_DELETE"]

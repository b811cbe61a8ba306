"""Self-tests: buttons, persistent views, dynamic items, selects, interaction_check, modals, 3 s rule."""

from __future__ import annotations

import pytest

from tests.fakediscord import ClientRefused, FakeDiscord, InteractionTimeout, ResponseType
from tests.fakediscord.sample_bot import SampleBot


async def open_table(fake: FakeDiscord, owner_name: str = "alice"):
    result = await fake.slash(fake.user(owner_name), "table")
    return result.message


async def test_persistent_view_button(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    table = (await fake_discord.slash(fake_discord.user("alice"), "game create", rules="mien-nam", bet=1)).message
    result = await fake_discord.click(fake_discord.user("bob"), table, "persist:join")
    assert result.content == "bob joined" and result.ephemeral
    assert result.message.interaction_metadata["interacted_message_id"] == str(table.id)


async def test_dynamic_item_edits_its_message(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice = fake_discord.user("alice")
    table = (await fake_discord.slash(alice, "game create", rules="mien-nam", bet=1)).message
    first = await fake_discord.click(alice, table, "counter:0")
    second = await fake_discord.click(alice, table, "counter:1")
    assert first.response_type is ResponseType.UPDATE_MESSAGE and second.message is table
    assert table.content == "count=2" and table.edited and table.custom_ids() == ["counter:2"]
    assert [r["content"] for r in table.revisions] == ["", "count=1", "count=2"]
    with pytest.raises(ClientRefused, match="no such component"):
        await fake_discord.click(alice, table, "counter:0")  # the button is gone


async def test_select_menu(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice = fake_discord.user("alice")
    table = await open_table(fake_discord)
    result = await fake_discord.select(alice, table, "owner:pick", ["3s", "4s"])
    assert result.response_type is ResponseType.UPDATE_MESSAGE and table.content == "picked 3s,4s"
    with pytest.raises(ClientRefused, match="not options"):
        await fake_discord.select(alice, table, "owner:pick", ["5s"])
    with pytest.raises(ClientRefused, match="takes 1..2 values"):
        await fake_discord.select(alice, table, "owner:pick", ["3s", "3c", "3d"])


async def test_interaction_check_refuses_other_users(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    table = await open_table(fake_discord)
    refused = await fake_discord.click(bob, table, "owner:edit")
    assert refused.content == "This table is not yours." and refused.message.ephemeral_to is bob
    assert refused.message not in fake_discord.visible_to(alice)
    assert table.content == "your table" and not table.edited


async def test_edit_in_place_versus_new_message(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice = fake_discord.user("alice")
    table = await open_table(fake_discord)
    edited = await fake_discord.click(alice, table, "owner:edit")
    posted = await fake_discord.click(alice, table, "owner:new")
    assert edited.response_type is ResponseType.UPDATE_MESSAGE and edited.message is table
    assert table.content == "edited in place"
    assert posted.response_type is ResponseType.CHANNEL_MESSAGE and posted.message is not table
    assert fake_discord.messages()[-1].content == "a new message"
    assert fake_discord.latest_message(alice, prefix="owner:") is table


async def test_modal_round_trip(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice = fake_discord.user("alice")
    shown = await fake_discord.click(alice, await open_table(fake_discord), "owner:rename")
    assert shown.response_type is ResponseType.MODAL and shown.modal["title"] == "Your name"
    submitted = await fake_discord.submit_modal(alice, shown, {"modal:name": "Alice"})
    assert submitted.content == "hello Alice" and submitted.ephemeral


async def test_client_refuses_what_a_user_cannot_click(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    secret = (await fake_discord.slash(alice, "game play", cards="3s")).message
    table = await open_table(fake_discord)
    with pytest.raises(ClientRefused, match="cannot see"):
        await fake_discord.click(bob, secret, "anything")
    with pytest.raises(InteractionTimeout):
        # A crafted custom_id nobody handles: the bot stays silent.
        await fake_discord.click(alice, table, "owner:crafted", force=True, timeout=0.3)


async def test_three_second_rule(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    table = (await fake_discord.slash(fake_discord.user("alice"), "game create", rules="mien-nam", bet=1)).message
    mark = fake_discord.mark()
    with pytest.raises(InteractionTimeout, match="within 3.0 s"):
        await fake_discord.click(fake_discord.user("bob"), table, "persist:slow")
    late = await fake_discord.wait_for_request("POST", "/interactions/{interaction_id}/{token}/callback", since=mark)
    assert late.status == 404  # Discord has forgotten the interaction: 10062 Unknown interaction

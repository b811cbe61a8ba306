"""Self-tests: Components V2 validation on every path, and the 30046 limit on hour-old messages.

Valid payloads are built with discord.py's own ``LayoutView`` items and sent
by a real client (channel sends, type 4 / 7 responses, a "thinking" defer
filled in through ``@original``, followups and their edits). Invalid ones are
raw JSON sent through the same client's HTTP layer (``bot.http.request``),
since discord.py refuses some of them before they leave the process.
"""

from __future__ import annotations

import io
import math
import time
from typing import Any, Optional

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from discord.http import Route

from tests.fakediscord import FakeDiscord, InteractionTimeout, ResponseType
from tests.fakediscord.components_v2 import IS_COMPONENTS_V2 as V2
from tests.fakediscord.editlimit import CODE as EDIT_LIMIT_CODE, MESSAGE as EDIT_LIMIT_MESSAGE
from tests.fakediscord.interactions import InteractionType
from tests.fakediscord.wire import Body

PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)


def picture(name: str = "board.png") -> discord.File:
    return discord.File(io.BytesIO(PNG), filename=name)


class Board(discord.ui.LayoutView):
    """A game board as a bot would lay it out: every V2 item discord.py has, once."""

    def __init__(self, bot: "V2Bot", picture_name: str = "board.png", title: str = "Table") -> None:
        super().__init__(timeout=None)
        self.bot = bot
        advance = discord.ui.Button(label="Next", custom_id="v2:next")
        advance.callback = self.advance
        pick = discord.ui.Select(custom_id="v2:pick", options=[discord.SelectOption(label=c, value=c) for c in ("3s", "4h")])
        pick.callback = self.pick
        self.add_item(discord.ui.Container(
            discord.ui.TextDisplay(f"## {title}"),
            discord.ui.Section(discord.ui.TextDisplay("alice to play"),
                               accessory=discord.ui.Thumbnail(f"attachment://{picture_name}")),
            discord.ui.Separator(spacing=discord.SeparatorSpacing.large),
            discord.ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{picture_name}", description="the table")),
            discord.ui.ActionRow(advance),
            discord.ui.ActionRow(pick),
            accent_colour=0x2ECC71,
        ))

    async def advance(self, interaction: discord.Interaction) -> None:
        """Type 7: the same message with a new picture (the old one is dropped)."""
        self.bot.step += 1
        name = f"board{self.bot.step}.png"
        view = Board(self.bot, name, f"Turn {self.bot.step}")
        await self.bot.guard(interaction.response.edit_message(view=view, attachments=[picture(name)]))

    async def pick(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"picked {interaction.data['values'][0]}", ephemeral=True)


class V2Bot(commands.Bot):
    """Sends Board layouts through every interaction path; keeps the errors it gets."""

    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.errors: list[discord.HTTPException] = []
        self.step = 0
        self.upload_late_picture = True
        self.followup: Optional[discord.WebhookMessage] = None

    async def setup_hook(self) -> None:
        self.tree.add_command(board)
        self.tree.add_command(later)
        await self.tree.sync()

    async def guard(self, call: Any) -> Any:
        try:
            return await call
        except discord.HTTPException as exc:
            self.errors.append(exc)
            return None


@app_commands.command(description="Show a V2 board (type 4)")
async def board(interaction: discord.Interaction) -> None:
    bot: V2Bot = interaction.client  # type: ignore[assignment]
    await bot.guard(interaction.response.send_message(view=Board(bot), file=picture()))


@app_commands.command(description="Defer, fill @original with a V2 board, then a V2 followup and its edit")
async def later(interaction: discord.Interaction) -> None:
    bot: V2Bot = interaction.client  # type: ignore[assignment]
    await interaction.response.defer(thinking=True)
    files = [picture("late.png")] if bot.upload_late_picture else []
    await bot.guard(interaction.edit_original_response(view=Board(bot, "late.png", "Late"), attachments=files))
    bot.followup = await bot.guard(interaction.followup.send(view=Board(bot, "f.png", "Followup"),
                                                             file=picture("f.png"), wait=True))
    if bot.followup is not None:
        await bot.guard(bot.followup.edit(view=Board(bot, "f2.png", "Followup 2"), attachments=[picture("f2.png")]))


async def start(fake: FakeDiscord, start_bot) -> tuple[V2Bot, discord.TextChannel]:
    bot = V2Bot()
    await start_bot(bot)
    return bot, bot.get_channel(fake.channel.id)  # type: ignore[return-value]


async def send_raw(bot: V2Bot, channel_id: int, payload: dict) -> Any:
    return await bot.http.request(Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id), json=payload)


async def edit_raw(bot: V2Bot, channel_id: int, message_id: int, payload: dict) -> Any:
    route = Route("PATCH", "/channels/{channel_id}/messages/{message_id}", channel_id=channel_id, message_id=message_id)
    return await bot.http.request(route, json=payload)


# -- raw component builders ---------------------------------------------------------


def text(content: str = "hi", **fields: Any) -> dict:
    return {"type": 10, "content": content, **fields}


def button(custom_id: str) -> dict:
    return {"type": 2, "style": 1, "label": "Go", "custom_id": custom_id}


def row(*items: dict) -> dict:
    return {"type": 1, "components": list(items)}


def select(custom_id: str) -> dict:
    return {"type": 3, "custom_id": custom_id, "options": [{"label": "a", "value": "a"}]}


def section(*texts: dict, accessory: Optional[dict] = None) -> dict:
    data: dict[str, Any] = {"type": 9, "components": list(texts)}
    if accessory is not None:
        data["accessory"] = accessory
    return data


def thumbnail(url: str = "https://example.com/t.png") -> dict:
    return {"type": 11, "media": {"url": url}}


def gallery(count: int, url: str = "https://example.com/g.png") -> dict:
    return {"type": 12, "items": [{"media": {"url": url}} for _ in range(count)]}


def container(*children: dict, **fields: Any) -> dict:
    return {"type": 17, "components": list(children), **fields}


# -- valid payloads through every path ---------------------------------------------


async def test_layout_view_on_a_channel_message(fake_discord: FakeDiscord, start_bot) -> None:
    bot, channel = await start(fake_discord, start_bot)
    sent = await channel.send(view=Board(bot), file=picture())
    message = fake_discord.world.messages[sent.id]
    assert message.flags & V2 and message.content == "" and [a.filename for a in message.attachments] == ["board.png"]
    assert [c["type"] for c in message.walk_components()] == [17, 10, 9, 10, 11, 14, 12, 1, 2, 1, 3]
    assert message.custom_ids() == ["v2:next", "v2:pick"] and "alice to play" in message.text()
    assert sent.flags.components_v2  # discord.py reads the flag back


async def test_attachment_media_come_back_resolved(fake_discord: FakeDiscord, start_bot) -> None:
    bot, channel = await start(fake_discord, start_bot)
    sent = await channel.send(view=Board(bot), file=picture())
    gallery_item = sent.components[0].children[3].items[0]  # Container > MediaGallery > item
    assert gallery_item.media.url == sent.attachments[0].url
    assert gallery_item.media.attachment_id == sent.attachments[0].id
    stored = fake_discord.world.messages[sent.id].components[0]["components"][3]["items"][0]
    assert stored["media"]["url"] == "attachment://board.png"  # the world keeps what the bot sent


async def test_boundaries_pass(fake_discord: FakeDiscord, start_bot) -> None:
    bot, channel = await start(fake_discord, start_bot)
    forty = [text(str(i)) for i in range(40)]
    four_thousand = [text("x" * 2000), container(text("y" * 1999), section(text("z"), accessory=button("b")))]
    for components in (forty, four_thousand, [gallery(10)], [{"type": 14, "spacing": 2, "divider": False}]):
        await send_raw(bot, channel.id, {"flags": V2, "components": components})
    assert len(fake_discord.messages()) == 4


async def test_type_4_type_7_and_picture_replacement(fake_discord: FakeDiscord, start_bot) -> None:
    bot, _ = await start(fake_discord, start_bot)
    alice = fake_discord.user("alice")
    shown = await fake_discord.slash(alice, "board")
    table = shown.message
    assert shown.response_type is ResponseType.CHANNEL_MESSAGE and table.flags & V2
    for turn in (1, 2):
        result = await fake_discord.click(alice, table, "v2:next")
        assert result.response_type is ResponseType.UPDATE_MESSAGE and result.message is table
        # attachments=[new file] replaces the picture: only the new one is left.
        assert [a.filename for a in table.attachments] == [f"board{turn}.png"]
    assert "Turn 2" in table.text() and table.flags & V2 and not bot.errors
    picked = await fake_discord.select(alice, table, "v2:pick", ["4h"])
    assert picked.content == "picked 4h" and picked.ephemeral


async def test_deferred_then_original_then_followup_and_its_edit(fake_discord: FakeDiscord, start_bot) -> None:
    bot, _ = await start(fake_discord, start_bot)
    result = await fake_discord.slash(fake_discord.user("alice"), "later")
    final = await result.wait_final()
    assert final.flags & V2 and [a.filename for a in final.attachments] == ["late.png"]
    followup = (await result.wait_followups(1))[0]
    await fake_discord.wait_for(lambda: "Followup 2" in followup.text())
    assert followup.flags & V2 and [a.filename for a in followup.attachments] == ["f2.png"] and not bot.errors


# -- every rule has a failing case -------------------------------------------------

INVALID = {
    "41 components": [text(str(i)) for i in range(41)],
    "41 components counting nested ones": [container(*[text(str(i)) for i in range(40)])],
    "4001 characters of text": [text("x" * 2000), container(text("y" * 2001))],
    "duplicate custom_id": [row(button("a")), container(row(button("a")))],
    "duplicate id": [text(id=7), text(id=7)],
    "select not alone in a row": [row(select("s"), button("b"))],
    "six buttons in a row": [row(*[button(str(i)) for i in range(6)])],
    "section with 4 texts": [section(text(), text(), text(), text(), accessory=button("b"))],
    "section without accessory": [section(text())],
    "section with a select accessory": [section(text(), accessory=select("s"))],
    "media gallery with 11 items": [gallery(11)],
    "empty media gallery": [gallery(0)],
    "attachment:// naming a missing file": [gallery(1, "attachment://missing.png")],
    "thumbnail naming a missing file": [section(text(), accessory=thumbnail("attachment://missing.png"))],
    "button at top level": [button("b")],
    "thumbnail at top level": [thumbnail()],
    "select at top level": [select("s")],
    "container in a container": [container(container(text()))],
    "thumbnail in a container": [container(thumbnail())],
    "text input in a row": [row({"type": 4, "custom_id": "t", "style": 1, "label": "x"})],
    "separator spacing 3": [{"type": 14, "spacing": 3}],
    "accent colour over 0xFFFFFF": [container(text(), accent_color=0x1000000)],
    "file with an https url": [{"type": 13, "file": {"url": "https://example.com/a.zip"}}],
    "unknown component type": [{"type": 99}],
}


@pytest.mark.parametrize("components", INVALID.values(), ids=INVALID.keys())
async def test_invalid_v2_components_are_refused(fake_discord: FakeDiscord, start_bot, components: list) -> None:
    bot, channel = await start(fake_discord, start_bot)
    with pytest.raises(discord.HTTPException) as refused:
        await send_raw(bot, channel.id, {"flags": V2, "components": components})
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert fake_discord.messages() == []


@pytest.mark.parametrize("field", [{"content": "hi"}, {"embeds": [{"title": "t"}]}, {"sticker_ids": ["1"]},
                                   {"poll": {"question": {"text": "?"}}}], ids=["content", "embeds", "stickers", "poll"])
async def test_legacy_fields_with_the_flag_are_refused(fake_discord: FakeDiscord, start_bot, field: dict) -> None:
    bot, channel = await start(fake_discord, start_bot)
    with pytest.raises(discord.HTTPException) as refused:
        await send_raw(bot, channel.id, {"flags": V2, "components": [text()], **field})
    assert refused.value.code == 50035


async def test_v2_components_without_the_flag_are_refused(fake_discord: FakeDiscord, start_bot) -> None:
    bot, channel = await start(fake_discord, start_bot)
    with pytest.raises(discord.HTTPException, match="only action rows"):
        await send_raw(bot, channel.id, {"components": [text()]})


async def test_an_edit_cannot_clear_the_flag_nor_bring_back_content(fake_discord: FakeDiscord, start_bot) -> None:
    bot, channel = await start(fake_discord, start_bot)
    sent = await channel.send(view=Board(bot), file=picture())
    with pytest.raises(discord.HTTPException, match="cannot be removed"):
        await edit_raw(bot, channel.id, sent.id, {"flags": 0, "components": [row(button("b"))]})
    with pytest.raises(discord.HTTPException, match="content"):
        await sent.edit(content="back to text")
    with pytest.raises(discord.HTTPException, match="embeds"):
        await sent.edit(embed=discord.Embed(title="t"))
    await sent.edit(view=Board(bot, title="Still V2"))  # keeps board.png: no attachments array
    message = fake_discord.world.messages[sent.id]
    assert message.flags & V2 and "Still V2" in message.text() and len(message.revisions) == 2


async def test_a_legacy_message_becomes_v2_only_with_its_content_reset(fake_discord: FakeDiscord, start_bot) -> None:
    bot, channel = await start(fake_discord, start_bot)
    sent = await channel.send("legacy text", embed=discord.Embed(title="old"))
    with pytest.raises(discord.HTTPException, match="reset to null"):
        await sent.edit(view=Board(bot), attachments=[picture()])
    with pytest.raises(discord.HTTPException, match="reset to \\[\\]"):
        await sent.edit(content=None, view=Board(bot), attachments=[picture()])
    await sent.edit(content=None, embed=None, view=Board(bot), attachments=[picture()])
    message = fake_discord.world.messages[sent.id]
    assert message.flags & V2 and message.content == "" and message.embeds == []


async def test_replacing_the_gallery_picture_on_a_channel_message(fake_discord: FakeDiscord, start_bot) -> None:
    bot, channel = await start(fake_discord, start_bot)
    sent = await channel.send(view=Board(bot), file=picture())
    edited = await sent.edit(view=Board(bot, "next.png"), attachments=[picture("next.png")])
    assert [a.filename for a in edited.attachments] == ["next.png"]
    # board.png was dropped by that attachments array: naming it again fails.
    with pytest.raises(discord.HTTPException, match="attachment://board.png"):
        await edited.edit(view=Board(bot, "board.png"))
    # A kept file may be named without uploading it again.
    await edited.edit(view=Board(bot, "next.png", "Same picture"))
    assert "Same picture" in fake_discord.world.messages[sent.id].text()


async def test_webhook_edit_naming_a_file_not_uploaded_is_refused(fake_discord: FakeDiscord, start_bot) -> None:
    bot, _ = await start(fake_discord, start_bot)
    bot.upload_late_picture = False
    result = await fake_discord.slash(fake_discord.user("alice"), "later")
    # The first followup after a refused @original fills in the still-loading message.
    await fake_discord.wait_for(lambda: bot.followup is not None)
    assert not result.message.loading and "Followup" in result.message.text()
    assert [(e.status, e.code) for e in bot.errors][:1] == [(400, 50035)]
    assert "attachment://late.png" in bot.errors[0].text


async def test_webhook_media_quirk_refuses_new_uploads_in_webhook_edits(fake_discord: FakeDiscord, start_bot) -> None:
    bot, _ = await start(fake_discord, start_bot)
    fake_discord.webhook_media_quirk = True  # discord-api-docs #7529
    result = await fake_discord.slash(fake_discord.user("alice"), "later")
    await fake_discord.wait_for(lambda: len(bot.errors) == 2)
    # Both edits of the loading message are refused: PATCH @original, and the first followup
    # (which Discord turns into an edit of it); #7529 reports both.
    assert all("unfurled media attachment not found" in e.text for e in bot.errors)
    assert result.message.loading and bot.followup is None


async def test_a_defer_cannot_set_the_flag(fake_discord: FakeDiscord) -> None:
    """Discord: after DEFERRED_CHANNEL_MESSAGE only EPHEMERAL counts; V2 comes with the edit of @original."""
    sent = fake_discord.interactions.new(type=InteractionType.APPLICATION_COMMAND, user=fake_discord.user("alice"),
                                         channel=fake_discord.channel, guild=fake_discord.guild)
    fake_discord.interactions.respond(sent.id, sent.token, Body({"type": 5, "data": {"flags": V2 | 64}}, []))
    assert sent.original is not None and sent.original.ephemeral and not sent.original.flags & V2


# -- the 30046 limit on edits of hour-old messages ---------------------------------


async def test_a_backdated_message_is_old_for_the_bot_too(fake_discord: FakeDiscord, start_bot) -> None:
    _, channel = await start(fake_discord, start_bot)
    with fake_discord.backdated(minutes=61):
        old = await channel.send("old")
    new = await channel.send("new")
    age = (discord.utils.utcnow() - discord.utils.snowflake_time(old.id)).total_seconds()
    assert 61 * 60 - 5 < age < 61 * 60 + 5 and old.created_at == fake_discord.world.messages[old.id].created_at
    assert (discord.utils.utcnow() - new.created_at).total_seconds() < 5


async def test_old_message_edits_end_in_30046(fake_discord: FakeDiscord, start_bot) -> None:
    _, channel = await start(fake_discord, start_bot)
    fake_discord.edit_limit.set_limit(3, 60.0)
    fake_discord.rate_limits.set_limit("message-edit", 50, 5.0)  # only 30046 refuses here
    # A wait shorter than the window: discord.py's five attempts all fail and it raises.
    fake_discord.edit_limit.retry_after = 0.001
    with fake_discord.backdated(minutes=61):
        old = await channel.send("old")
    for n in range(3):
        old = await old.edit(content=f"edit {n}")
    with pytest.raises(discord.HTTPException) as refused:
        await old.edit(content="one too many")
    assert (refused.value.status, refused.value.code) == (429, EDIT_LIMIT_CODE)
    refusals = fake_discord.edit_limit_refusals
    assert len(refusals) == 5 and {(r.message_id, r.path) for r in refusals} == {(old.id, "channel")}
    assert fake_discord.world.messages[old.id].content == "edit 2"  # a refused edit is not executed


async def test_discord_py_sleeps_through_an_honest_30046(fake_discord: FakeDiscord, start_bot) -> None:
    _, channel = await start(fake_discord, start_bot)  # fixture time scale: 3 edits per 0.12 s
    with fake_discord.backdated(minutes=90):
        old = await channel.send("old")
    started = time.monotonic()
    for n in range(7):
        old = await old.edit(content=f"edit {n}")
    assert fake_discord.world.messages[old.id].content == "edit 6"
    assert fake_discord.edit_limit_refusals and time.monotonic() - started >= 0.2  # stalled, no error


async def test_fresh_and_59_minute_old_messages_edit_freely_until_60(fake_discord: FakeDiscord, start_bot) -> None:
    _, channel = await start(fake_discord, start_bot)
    fake_discord.edit_limit.set_limit(3, 60.0)
    fake_discord.edit_limit.retry_after = 0.001
    fresh = await channel.send("fresh")
    with fake_discord.backdated(minutes=59):
        nearly = await channel.send("59 minutes old")
    for n in range(6):
        fresh = await fresh.edit(content=f"fresh {n}")
        nearly = await nearly.edit(content=f"nearly {n}")
    assert fake_discord.edit_limit_refusals == []
    fake_discord.edit_limit.wall_clock = lambda: time.time() + 61  # the 59-minute message turns 60
    for n in range(3):
        nearly = await nearly.edit(content=f"old {n}")
    with pytest.raises(discord.HTTPException) as refused:
        await nearly.edit(content="one too many")
    assert refused.value.code == EDIT_LIMIT_CODE
    await fresh.edit(content="still fresh")  # the window counts old messages only


async def test_age_message_moves_the_fakes_view_only(fake_discord: FakeDiscord, start_bot) -> None:
    _, channel = await start(fake_discord, start_bot)
    fake_discord.edit_limit.set_limit(1, 60.0)
    fake_discord.edit_limit.retry_after = 0.001
    sent = await channel.send("now")
    fake_discord.age_message(sent.id, minutes=61)
    await sent.edit(content="first")
    with pytest.raises(discord.HTTPException):
        await sent.edit(content="second")
    assert (discord.utils.utcnow() - sent.created_at).total_seconds() < 5  # the bot still sees it as new


async def test_30046_answer_has_discords_shape(fake_discord: FakeDiscord) -> None:
    fake_discord.edit_limit.set_limit(0, 60.0)
    with fake_discord.backdated(minutes=61):
        old = fake_discord.world.new_message(fake_discord.channel, fake_discord.bot_user, content="old")
    url = f"{fake_discord.api_base}/channels/{fake_discord.channel.id}/messages/{old.id}"
    async with aiohttp.ClientSession() as session:
        async with session.patch(url, json={"content": "x"}, headers={"Authorization": "Bot t"}) as response:
            body, headers = await response.json(), response.headers
    assert response.status == 429 and headers["Content-Type"] == "application/json"
    assert set(body) == {"message", "code", "retry_after", "global"}
    assert (body["message"], body["code"], body["global"]) == (EDIT_LIMIT_MESSAGE, 30046, False)
    assert 0 < body["retry_after"] <= 60 * fake_discord.rate_limits.time_scale
    assert headers["Via"] and headers["Retry-After"] == str(math.ceil(body["retry_after"]))
    assert headers["X-RateLimit-Scope"] == "user"


async def test_webhook_edit_of_an_old_message_counts(fake_discord: FakeDiscord) -> None:
    """A component on an hour-old message, deferred (type 6), then PATCH @original: that edits the old message."""
    with fake_discord.backdated(minutes=61):
        old = fake_discord.world.new_message(fake_discord.channel, fake_discord.bot_user, content="old")
    fake_discord.edit_limit.set_limit(1, 60.0)
    registry = fake_discord.interactions
    sent = registry.new(type=InteractionType.MESSAGE_COMPONENT, user=fake_discord.user("alice"),
                        channel=fake_discord.channel, guild=fake_discord.guild, source=old)
    registry.respond(sent.id, sent.token, Body({"type": 6}, []))
    url = f"{fake_discord.api_base}/webhooks/{fake_discord.application_id}/{sent.token}/messages/@original"
    async with aiohttp.ClientSession() as session:
        statuses = []
        for content in ("first", "second"):
            async with session.patch(url, json={"content": content}) as response:
                statuses.append(response.status)
    assert statuses == [200, 429] and old.content == "first"
    assert [r.path for r in fake_discord.edit_limit_refusals] == ["webhook"]


async def test_update_message_on_an_old_message_counts(fake_discord: FakeDiscord, start_bot) -> None:
    bot, _ = await start(fake_discord, start_bot)
    alice = fake_discord.user("alice")
    with fake_discord.backdated(minutes=61):
        table = (await fake_discord.slash(alice, "board")).message
    fake_discord.edit_limit.set_limit(1, 60.0)
    fake_discord.edit_limit.retry_after = 0.001
    await fake_discord.click(alice, table, "v2:next")
    with pytest.raises(InteractionTimeout):
        await fake_discord.click(alice, table, "v2:next", timeout=0.5)
    assert [e.code for e in bot.errors] == [EDIT_LIMIT_CODE]
    assert {r.path for r in fake_discord.edit_limit_refusals} == {"callback"}
    fake_discord.edit_limit.paths.discard("callback")  # a test may exempt interaction edits
    await fake_discord.click(alice, table, "v2:next")
    assert "Turn 3" in table.text()

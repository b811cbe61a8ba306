"""A small discord.py bot used only by the fake's self-tests (not the product).

It exercises the discord.py features the Tiến lên bot relies on: a slash
command group with a subcommand group, typed options and autocomplete;
ephemeral replies; defer + followup with a file; a persistent view with fixed
custom_ids; a DynamicItem; a select menu; an owner-only view with
``interaction_check``; ``edit_message`` versus a new message; a modal; DMs;
and plain channel message create/edit/delete. ``ShardedSampleBot`` is the same
bot as an ``AutoShardedBot`` for multi-process shard tests.
"""

from __future__ import annotations

import asyncio
import io
import os
from typing import Optional

import discord
from discord import app_commands
from discord.ext import commands

GAME_RULES = ["mien-nam", "mien-bac"]
CARDS = ["3s", "3c", "3d", "3h", "4s", "2h"]


class PersistentView(discord.ui.View):
    """Fixed custom_ids and no timeout: survives a bot restart via ``add_view``."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Join", custom_id="persist:join")
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message(f"{interaction.user.name} joined", ephemeral=True)

    @discord.ui.button(label="Slow", custom_id="persist:slow")
    async def slow(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await asyncio.sleep(4)  # longer than Discord's 3 s budget
        await interaction.response.send_message("too late")


class CounterButton(discord.ui.DynamicItem[discord.ui.Button], template=r"counter:(?P<count>\d+)"):
    def __init__(self, count: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {count}", custom_id=f"counter:{count}"))
        self.count = count

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match) -> "CounterButton":
        return cls(int(match["count"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.count + 1))
        await interaction.response.edit_message(content=f"count={self.count + 1}", view=view)


class OwnerView(discord.ui.View):
    """Only the invoking user may use it; others get an ephemeral refusal."""

    def __init__(self, owner_id: int) -> None:
        super().__init__(timeout=60)
        self.owner_id = owner_id

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.user.id != self.owner_id:
            await interaction.response.send_message("This table is not yours.", ephemeral=True)
            return False
        return True

    @discord.ui.button(label="Edit", custom_id="owner:edit")
    async def edit(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.edit_message(content="edited in place", view=self)

    @discord.ui.button(label="New", custom_id="owner:new")
    async def new(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message("a new message")

    @discord.ui.select(custom_id="owner:pick", min_values=1, max_values=2,
                       options=[discord.SelectOption(label=c, value=c) for c in CARDS])
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.edit_message(content=f"picked {','.join(select.values)}", view=self)

    @discord.ui.button(label="Rename", custom_id="owner:rename")
    async def rename(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_modal(NameModal())


class NameModal(discord.ui.Modal, title="Your name"):
    name = discord.ui.TextInput(label="Name", custom_id="modal:name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hello {self.name.value}", ephemeral=True)


class Game(app_commands.Group):
    def __init__(self) -> None:
        super().__init__(name="game", description="Card game")
        self.admin = app_commands.Group(name="admin", description="Admin tools", parent=self)
        self.admin.command(name="kick", description="Kick a player")(self.kick)

    @app_commands.command(description="Create a table")
    @app_commands.choices(rules=[app_commands.Choice(name=r, value=r) for r in GAME_RULES])
    async def create(self, interaction: discord.Interaction, rules: app_commands.Choice[str],
                     bet: app_commands.Range[int, 1, 100], private: bool = False) -> None:
        embed = discord.Embed(title="Table", description=f"rules={rules.value} bet={bet} private={private}")
        view = PersistentView()
        view.add_item(CounterButton(0))
        await interaction.response.send_message(embed=embed, view=view)

    @app_commands.command(description="Play cards")
    async def play(self, interaction: discord.Interaction, cards: str) -> None:
        await interaction.response.send_message(f"played {cards}", ephemeral=True)

    @play.autocomplete("cards")
    async def play_cards(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=c, value=c) for c in CARDS if c.startswith(current)]

    async def kick(self, interaction: discord.Interaction, player: discord.Member) -> None:
        if not interaction.permissions.manage_guild:
            await interaction.response.send_message("You need Manage Server.", ephemeral=True)
            return
        await interaction.response.send_message(f"kicked {player.display_name}", ephemeral=True)


class _SampleCommands:
    """The sample bot's setup, shared by the plain and the sharded bot."""

    sync_on_setup: bool
    tree: app_commands.CommandTree

    async def setup_hook(self) -> None:
        self.tree.add_command(Game())
        for command in (whoami, report, dm_me, post, table, where):
            self.tree.add_command(command)
        self.add_view(PersistentView())
        self.add_dynamic_items(CounterButton)
        if self.sync_on_setup:
            await self.tree.sync()

    async def before_identify_hook(self, shard_id: Optional[int], *, initial: bool = False) -> None:
        # discord.py sleeps 5 s before a non-initial IDENTIFY; tests need no pacing.
        return None


class SampleBot(_SampleCommands, commands.Bot):
    def __init__(self, *, sync: bool = True) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.sync_on_setup = sync
        self.seen_locales: list[tuple[str, Optional[str]]] = []


class ShardedSampleBot(_SampleCommands, commands.AutoShardedBot):
    """The sample bot as one process of a multi-process bot: ``shard_ids`` of ``shard_count``."""

    def __init__(self, *, shard_ids: Optional[list[int]] = None, shard_count: Optional[int] = None,
                 sync: bool = True) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05,
                         shard_ids=shard_ids, shard_count=shard_count)
        self.sync_on_setup = sync
        self.seen_locales: list[tuple[str, Optional[str]]] = []


@app_commands.command(description="Show locales")
async def whoami(interaction: discord.Interaction) -> None:
    interaction.client.seen_locales.append((str(interaction.locale), str(interaction.guild_locale)))
    await interaction.response.send_message(f"{interaction.locale}|{interaction.guild_locale}", ephemeral=True)


@app_commands.command(description="Deferred report with a file")
async def report(interaction: discord.Interaction) -> None:
    await interaction.response.defer(thinking=True)
    await asyncio.sleep(0.05)  # pretend to work after deferring
    data = discord.File(io.BytesIO(b"score: 42\n"), filename="report.txt")
    await interaction.followup.send("here is the report", file=data)


@app_commands.command(name="dm", description="DM me")
async def dm_me(interaction: discord.Interaction) -> None:
    try:
        await interaction.user.send("psst, your hand")
    except discord.Forbidden as error:
        await interaction.response.send_message(f"cannot DM you ({error.code})", ephemeral=True)
        return
    await interaction.response.send_message("check your DMs", ephemeral=True)


@app_commands.command(description="Post, edit and delete channel messages")
async def post(interaction: discord.Interaction) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    keep = await interaction.channel.send("first version")
    await keep.edit(content="second version")
    gone = await interaction.channel.send("short-lived")
    await gone.delete()
    fetched = await interaction.channel.fetch_message(keep.id)
    await interaction.followup.send(f"kept {fetched.content}", ephemeral=True)


@app_commands.command(description="Open an owner-only table")
@app_commands.guild_only()
async def table(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("your table", view=OwnerView(interaction.user.id))


@app_commands.command(description="Which shard and process answered")
async def where(interaction: discord.Interaction) -> None:
    shard = interaction.guild.shard_id if interaction.guild else 0
    await interaction.response.send_message(f"shard {shard} pid {os.getpid()}", ephemeral=True)


def main() -> None:
    """Entry point for running the sample bot in a subprocess (see launch.py)."""
    SampleBot().run("fake-bot-token", log_handler=None)


def sharded_main() -> None:
    """One process of a sharded sample bot: env ``SAMPLE_SHARD_IDS`` ("0,2") of ``SAMPLE_SHARD_COUNT``."""
    shard_ids = [int(s) for s in os.environ["SAMPLE_SHARD_IDS"].split(",")]
    bot = ShardedSampleBot(shard_ids=shard_ids, shard_count=int(os.environ["SAMPLE_SHARD_COUNT"]))
    bot.run("fake-bot-token", log_handler=None)

"""The /tienlen commands and the clicks on the bot's components: Discord in, runtime calls out.

Each handler reads the interaction (who, where, which language), calls one
:class:`runtime.service.TableService` coroutine, and formats the result.  No
rule is decided here and no database session is held; what it shows goes
through :class:`cogs.delivery.Delivery` (the table message, hands) or
:mod:`cogs.delivery.answers` (a reply), built by :mod:`cogs.layouts`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str
from discord.ext import commands

import db
from cogs import inputs
from cogs.delivery import Delivery
from cogs.delivery.answers import edit_own, fail, guild_only, lang_of, reply, send_public, within
from cogs.delivery.pictures import drawn
from cogs.layouts.rules import rules_layout, table_rules
from cogs.layouts.words import combo_name
from i18n import language_of, number, t
from runtime.snapshot import HandSnapshot
from tienlen import RULESETS, IllegalPlayError, format_cards
from tienlen.table import Phase, TableError

if TYPE_CHECKING:
    from cogs.layouts.stats import Profile
    from runtime.service import TableService

log = logging.getLogger(__name__)

__all__ = ["TienLenCog"]

T = TypeVar("T")

RULE_CHOICES = [
    Choice(name=locale_str("Southern (mien-nam)", key="choice.mien-nam"), value="mien-nam"),
    Choice(name=locale_str("Iwin app rules (iwin)", key="choice.iwin"), value="iwin"),
    Choice(name=locale_str("Northern (mien-bac)", key="choice.mien-bac"), value="mien-bac"),
]
LEVEL_CHOICES = [
    Choice(name=locale_str("easy", key="choice.easy"), value="easy"),
    Choice(name=locale_str("normal", key="choice.normal"), value="normal"),
    Choice(name=locale_str("hard", key="choice.hard"), value="hard"),
]


def _ls(text: str, key: str) -> locale_str:
    return locale_str(text, key=key)


def _table_options(command: T) -> T:
    """Descriptions and choices of the table settings that /tienlen create
    and /tienlen config share (rules, bet, turn_seconds)."""
    described = app_commands.describe(
        rules=_ls("Rule set", "arg.rules"),
        bet=_ls("Chips per bet unit", "arg.bet"),
        turn_seconds=_ls("Seconds per turn (10–120)", "arg.turn_seconds"),
    )(command)
    return app_commands.choices(rules=RULE_CHOICES)(described)


class TienLenCog(commands.Cog, name="TienLenCog"):
    tienlen = app_commands.Group(name="tienlen", description=_ls("Play Tiến lên at this channel's table", "cmd.tienlen"),
                                 guild_only=True)

    def __init__(self, tables: "TableService", delivery: Delivery) -> None:
        self.tables = tables
        self.delivery = delivery

    # ------------------------------------------------------------ helpers
    @staticmethod
    def _player(interaction: discord.Interaction) -> dict[str, Any]:
        """Who acts: their id, the name shown at the table, their language."""
        user = interaction.user
        return {"user_id": user.id, "name": user.display_name[:32], "locale": str(interaction.locale)}


    async def _note_locale(self, interaction: discord.Interaction, channel_id: int) -> None:
        await self.tables.note_locale(channel_id, interaction.user.id, str(interaction.locale))

    async def _dm_notice(self, interaction: discord.Interaction, channel_id: int) -> None:
        notice = self.delivery.dm_notice(interaction, channel_id)
        if notice is not None:
            await reply(interaction, notice)

    async def _show_hand(self, interaction: discord.Interaction, hand: HandSnapshot, *, update: bool,
                         notice: str | None = None) -> None:
        await self.delivery.answer_hand(interaction, hand, update=update, notice=notice)

    # ------------------------------------------------------------- lobby
    @tienlen.command(name="create", description=_ls("Open a table in this channel", "cmd.create"))
    @_table_options
    @app_commands.describe(ranked=_ls("Ranked: people only (3 or more), the rule set's turn time", "arg.ranked"))
    async def create(
        self,
        interaction: discord.Interaction,
        rules: str | None = None,
        bet: app_commands.Range[int, 1, 1_000_000] | None = None,
        turn_seconds: app_commands.Range[int, 1, 120] | None = None,
        ranked: bool | None = None,
    ) -> None:
        if not await guild_only(interaction):
            return
        try:
            options = self._checked_options(rules, bet, turn_seconds)
            options["ranked"] = inputs.flag(ranked) if ranked is not None else False
            await self.delivery.open_table(interaction, within(interaction, self.tables.create_table(
                channel_id=interaction.channel_id,  # type: ignore[arg-type]
                guild_id=interaction.guild_id,  # type: ignore[arg-type]
                **self._player(interaction), **options)))
        except Exception as error:
            return await fail(interaction, error)

    def _checked_options(self, rules: str | None, bet: Any, turn_seconds: Any) -> dict[str, Any]:
        """The table options of /tienlen create and /tienlen config, checked."""
        return {"rules_name": inputs.rules_name(rules), "bet": inputs.bet(bet),
                "turn_seconds": inputs.turn_seconds(turn_seconds, self.tables.settings.min_turn_seconds)}

    @tienlen.command(name="join", description=_ls("Sit down at this channel's table", "cmd.join"))
    async def join(self, interaction: discord.Interaction) -> None:
        if await guild_only(interaction):
            await self._join(interaction, interaction.channel_id)  # type: ignore[arg-type]

    async def _join(self, interaction: discord.Interaction, channel_id: int) -> None:
        try:
            await within(interaction, self.tables.join(channel_id, **self._player(interaction)))
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, t(lang_of(interaction), "reply.joined"))

    @tienlen.command(name="leave", description=_ls("Leave the table (during a game: counts as a loss)", "cmd.leave"))
    async def leave(self, interaction: discord.Interaction) -> None:
        if await guild_only(interaction):
            await self._leave(interaction, interaction.channel_id)  # type: ignore[arg-type]

    async def _leave(self, interaction: discord.Interaction, channel_id: int) -> None:
        table = self.tables.table(channel_id)
        during_game = table is not None and table.phase is Phase.PLAYING and table.game_seat_of(interaction.user.id) is not None
        try:
            await within(interaction, self.tables.leave(channel_id, interaction.user.id))
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, t(lang_of(interaction), "reply.left_game" if during_game else "reply.left"))

    @tienlen.command(name="addbot", description=_ls("Add an AI player", "cmd.addbot"))
    @app_commands.describe(level=_ls("How strong the AI plays", "arg.level"))
    @app_commands.choices(level=LEVEL_CHOICES)
    async def addbot(self, interaction: discord.Interaction, level: str | None = None) -> None:
        if await guild_only(interaction):
            await self._add_ai(interaction, interaction.channel_id, level)  # type: ignore[arg-type]

    async def _add_ai(self, interaction: discord.Interaction, channel_id: int, level: str | None) -> None:
        try:
            level = inputs.ai_level(level)
            await within(interaction, self.tables.add_ai(channel_id, interaction.user.id, level))
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, t(lang_of(interaction), "reply.ai_added", level=t(lang_of(interaction), f"level.{level}")))

    @tienlen.command(name="removebot", description=_ls("Remove the last AI player (host)", "cmd.removebot"))
    async def removebot(self, interaction: discord.Interaction) -> None:
        if not await guild_only(interaction):
            return
        try:
            await within(interaction, self.tables.remove_ai(interaction.channel_id, interaction.user.id))  # type: ignore[arg-type]
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, t(lang_of(interaction), "reply.ai_removed"))

    @tienlen.command(name="start", description=_ls("Deal the cards (host)", "cmd.start"))
    async def start(self, interaction: discord.Interaction) -> None:
        if await guild_only(interaction):
            await self._start(interaction, interaction.channel_id)  # type: ignore[arg-type]

    async def _start(self, interaction: discord.Interaction, channel_id: int) -> None:
        try:
            await within(interaction, self.tables.start_game(channel_id, interaction.user.id))
        except Exception as error:
            return await fail(interaction, error)
        await self._after_deal(interaction, channel_id, "reply.started")

    async def _after_deal(self, interaction: discord.Interaction, channel_id: int, key: str) -> None:
        lang = lang_of(interaction)
        notice = self.delivery.dm_notice(interaction, channel_id)
        if notice is not None:
            try:
                hand = self.tables.hand(channel_id, interaction.user.id)
            except TableError:
                return await reply(interaction, t(lang, key))
            return await self._show_hand(interaction, hand, update=False, notice=notice)
        await reply(interaction, t(lang, key))

    @tienlen.command(name="end", description=_ls("Close the table (host or server manager)", "cmd.end"))
    async def end(self, interaction: discord.Interaction) -> None:
        if not await guild_only(interaction):
            return
        is_admin = bool(interaction.permissions and interaction.permissions.manage_guild)
        try:
            snapshot = await within(
                interaction,
                self.tables.end(interaction.channel_id, interaction.user.id, is_admin=is_admin))  # type: ignore[arg-type]
        except Exception as error:
            return await fail(interaction, error)
        lang = lang_of(interaction)
        lines = [t(lang, "reply.ended")]
        if snapshot.tally:
            lines.append(t(lang, "reply.session_tally"))
            lines += [f"{name}: {number(amount, lang, signed=True)}" for name, amount in snapshot.tally]
        await send_public(interaction, content="\n".join(lines))

    @tienlen.command(name="config", description=_ls("Change rules, bet or turn time between games (host)", "cmd.config"))
    @_table_options
    async def config(
        self,
        interaction: discord.Interaction,
        rules: str | None = None,
        bet: app_commands.Range[int, 1, 1_000_000] | None = None,
        turn_seconds: app_commands.Range[int, 1, 120] | None = None,
    ) -> None:
        if not await guild_only(interaction):
            return
        try:
            options = self._checked_options(rules, bet, turn_seconds)
            await within(interaction, self.tables.configure(
                interaction.channel_id, interaction.user.id, **options))  # type: ignore[arg-type]
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, t(lang_of(interaction), "reply.configured"))

    @tienlen.command(name="host", description=_ls("Hand the host role to another seated player", "cmd.host"))
    @app_commands.describe(user=_ls("The new host", "arg.user"))
    async def host(self, interaction: discord.Interaction, user: discord.User) -> None:
        if not await guild_only(interaction):
            return
        try:
            await within(interaction, self.tables.transfer_host(interaction.channel_id, interaction.user.id, user.id))  # type: ignore[arg-type]
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, t(lang_of(interaction), "reply.host_changed", name=user.display_name))

    # ------------------------------------------------------------- playing
    @tienlen.command(name="play", description=_ls("Play cards, e.g. 3S 4S 5S", "cmd.play"))
    @app_commands.describe(cards=_ls("Cards such as 3S 4S 5S or 10H 10D", "arg.cards"))
    async def play(self, interaction: discord.Interaction, cards: str) -> None:
        if not await guild_only(interaction):
            return
        channel_id = interaction.channel_id
        assert channel_id is not None
        await self._note_locale(interaction, channel_id)
        try:
            hand = await within(interaction, self.tables.play(channel_id, interaction.user.id, inputs.typed_cards(cards)))
        except Exception as error:
            return await fail(interaction, error)
        await self._show_hand(interaction, hand, update=False)

    @play.autocomplete("cards")
    async def play_autocomplete(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        """The caller's legal plays that start like what they typed."""
        if interaction.channel_id is None:
            return []
        lang = lang_of(interaction)
        typed = current.upper().replace(",", " ").split()
        choices = []
        for combo in self.tables.legal_plays(interaction.channel_id, interaction.user.id):
            codes = format_cards(combo.cards, ascii=True)
            if all(any(code.startswith(token) for code in codes.split()) for token in typed):
                label = f"{format_cards(combo.cards)} · {combo_name(combo, lang)}"
                choices.append(Choice(name=label[:100], value=codes))
            if len(choices) == 25:
                break
        return choices

    @tienlen.command(name="pass", description=_ls("Pass this round", "cmd.pass"))
    async def pass_(self, interaction: discord.Interaction) -> None:
        if not await guild_only(interaction):
            return
        channel_id = interaction.channel_id
        assert channel_id is not None
        try:
            hand = await within(interaction, self.tables.pass_turn(channel_id, interaction.user.id))
        except Exception as error:
            return await fail(interaction, error)
        await self._show_hand(interaction, hand, update=False)

    @tienlen.command(name="hand", description=_ls("See your cards privately", "cmd.hand"))
    async def hand(self, interaction: discord.Interaction) -> None:
        if await guild_only(interaction):
            await self._my_hand(interaction, interaction.channel_id)  # type: ignore[arg-type]

    async def _my_hand(self, interaction: discord.Interaction, channel_id: int) -> None:
        lang = lang_of(interaction)
        table = self.tables.table(channel_id)
        if table is None:
            return await reply(interaction, t(lang, "error.no_table"))
        if table.phase is not Phase.PLAYING or table.game_seat_of(interaction.user.id) is None:
            return await reply(interaction, t(lang, "reply.spectator"))
        await self._note_locale(interaction, channel_id)
        hand = self.tables.hand(channel_id, interaction.user.id)
        notice = self.delivery.dm_notice(interaction, channel_id)
        await self._show_hand(interaction, hand, update=False, notice=notice)

    # ---------------------------------------------------------------- help
    @tienlen.command(name="rules", description=_ls("How to play: this table's rules or a preset", "cmd.rules"))
    @app_commands.describe(preset=_ls("Rule set to explain", "arg.preset"))
    @app_commands.choices(preset=RULE_CHOICES)
    async def rules(self, interaction: discord.Interaction, preset: str | None = None) -> None:
        lang = lang_of(interaction)
        try:
            preset = inputs.rules_name(preset)
        except inputs.InputError as error:
            return await fail(interaction, error)
        table = self.tables.table(interaction.channel_id) if interaction.channel_id else None
        if preset is not None:
            rules, source = RULESETS[preset], preset
        elif table is not None:
            rules, source = table_rules(table), f"table-{table.channel_id}"
        else:
            rules, source = RULESETS["mien-nam"], "mien-nam"
        await reply(interaction, layout=rules_layout(rules, source, 0, lang))

    @tienlen.command(name="history", description=_ls("The last games at this channel's table", "cmd.history"))
    async def history(self, interaction: discord.Interaction) -> None:
        if not await guild_only(interaction):
            return
        from cogs.layouts.stats import history_layout

        try:
            games = await within(interaction, db.recent_games(
                self.tables.db, interaction.guild_id, interaction.channel_id, limit=10))  # type: ignore[arg-type]
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, layout=history_layout(games, lang_of(interaction)))

    @tienlen.command(name="stats", description=_ls("Games, wins, chips and chops of a player", "cmd.stats"))
    @app_commands.describe(user=_ls("Whose stats (default: you)", "arg.user"))
    async def stats(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        if not await guild_only(interaction):
            return
        from cogs.layouts.stats import stats_layout

        target = user or interaction.user
        guild_id = interaction.guild_id
        assert guild_id is not None
        try:
            stats = await within(interaction, db.player_stats(self.tables.db, guild_id, target.id))
            rating = await within(interaction, db.player_rating(self.tables.db, guild_id, target.id))
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, layout=stats_layout(stats, target.display_name, lang_of(interaction), rating))

    @tienlen.command(name="replay", description=_ls("Step through a finished game, move by move", "cmd.replay"))
    @app_commands.describe(game=_ls("Which game (default: the last one here)", "arg.game"))
    async def replay(self, interaction: discord.Interaction, game: int | None = None) -> None:
        if not await guild_only(interaction):
            return
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None
        lang = lang_of(interaction)
        try:
            wanted = inputs.game_number(game)
            message = await within(interaction, self._replay_message(guild_id, wanted, 0, lang, channel_id=channel_id))
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, **message)

    async def _replay_message(self, guild_id: int, game_id: int | None, step: int, lang: str, *,
                              channel_id: int | None = None, action: str = "open",
                              shared_by: str | None = None) -> dict[str, Any]:
        """The replay message (layout and picture) of game ``game_id`` (None: the channel's last)
        after ``action`` from ``step``; ``shared_by``: the public copy's line."""
        from cogs.layouts.replay import REPLAY_IMAGE, replay_layout, replay_picture, target_step

        replays = self.tables.replays
        game = await (replays.game(guild_id, game_id) if game_id is not None
                      else replays.latest(guild_id, channel_id or 0))
        shown = target_step(game, action, step)
        picture = await drawn(REPLAY_IMAGE, lambda: replay_picture(game, shown, lang))
        return {"layout": replay_layout(game, shown, lang, shared_by=shared_by), "files": [picture]}

    @replay.autocomplete("game")
    async def replay_autocomplete(self, interaction: discord.Interaction, current: str) -> list[Choice[int]]:
        """The caller's last finished games on this server, newest first."""
        if interaction.guild_id is None:
            return []
        from cogs.layouts.replay import game_choices

        games = await db.player_games(self.tables.db, interaction.guild_id, interaction.user.id, limit=25)
        server = await self.tables.server(interaction.guild_id)
        return game_choices(games, interaction.user.id, current, lang_of(interaction), server.timezone)

    @tienlen.command(name="profile", description=_ls("A player's rating and chips over time, as a picture",
                                                     "cmd.profile"))
    @app_commands.describe(user=_ls("Whose profile (default: you)", "arg.user"))
    async def profile(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        if not await guild_only(interaction):
            return
        from cogs.layouts.stats import PROFILE_IMAGE, profile_layout, profile_picture

        target = user or interaction.user
        guild_id = interaction.guild_id
        assert guild_id is not None
        lang = lang_of(interaction)
        try:
            profile = await within(interaction, _read_profile(self.tables.db, guild_id, target.id, target.display_name))
            picture = await within(interaction, drawn(PROFILE_IMAGE, lambda: profile_picture(profile, lang)))
        except Exception as error:
            return await fail(interaction, error)
        await reply(interaction, layout=profile_layout(profile, lang), files=[picture])

    # ---------------------------------------------------------- components
    # (cogs.components hands every click here: this cog is their Controls)
    async def on_replay_button(self, interaction: discord.Interaction, action: str, game_id: int, step: int) -> None:
        """A replay's buttons: step through it (this viewer's own message), share
        the step shown in public, or open the replay privately (summary, shared step)."""
        if not await guild_only(interaction):
            return
        guild_id = interaction.guild_id
        assert guild_id is not None
        lang = lang_of(interaction)
        try:
            if action == "share":  # in public, in the server's language
                public = self.delivery.public_lang(guild_id)
                line = t(public, "replay.shared", name=interaction.user.display_name[:32], step=step, number=game_id)
                message = await within(interaction, self._replay_message(guild_id, game_id, step, public,
                                                                         action=action, shared_by=line))
                await send_public(interaction, view=message["layout"], files=message["files"])
                return
            if action == "open":
                message = await within(interaction, self._replay_message(guild_id, game_id, step, lang))
                await reply(interaction, **message)
                return
            message = await within(interaction, self._replay_message(guild_id, game_id, step, lang, action=action),
                                   update=True)
        except Exception as error:
            return await fail(interaction, error)
        await edit_own(interaction, **message)

    async def on_rules_page(self, interaction: discord.Interaction, source: str, page: int) -> None:
        """Previous / next page of a rules explanation."""
        if source in RULESETS:
            rules = RULESETS[source]
        else:
            table = self.tables.table(int(source.split("-", 1)[1]))
            rules = table_rules(table) if table is not None else RULESETS["mien-nam"]
        await edit_own(interaction, layout=rules_layout(rules, source, page, lang_of(interaction)))

    async def on_table_button(self, interaction: discord.Interaction, action: str, channel_id: int) -> None:
        """A button on the public table message."""
        await self._note_locale(interaction, channel_id)
        if action == "join":
            await self._join(interaction, channel_id)
        elif action == "leave":
            await self._leave(interaction, channel_id)
        elif action == "ai":
            await self._add_ai(interaction, channel_id, None)
        elif action == "start":
            await self._start(interaction, channel_id)
        elif action == "hand":
            await self._my_hand(interaction, channel_id)
        elif action == "next":
            await self._next(interaction, channel_id)

    async def _next(self, interaction: discord.Interaction, channel_id: int) -> None:
        try:
            snapshot, started = await within(interaction, self.tables.next_game(channel_id, interaction.user.id))
        except Exception as error:
            return await fail(interaction, error)
        if started:
            return await self._after_deal(interaction, channel_id, "reply.started")
        ready = sum(1 for seat in snapshot.seats if seat.ready)
        humans = sum(1 for seat in snapshot.seats if not seat.is_ai)
        await reply(interaction, t(lang_of(interaction), "reply.ready", ready=ready, humans=humans))

    async def on_hand_action(
        self,
        interaction: discord.Interaction,
        action: str,
        channel_id: int,
        game_id: int,
        mask: int | None,
        values: tuple[str, ...],
    ) -> None:
        """Card picker, quick plays, Play, Pass and Clear under a private hand."""
        lang = lang_of(interaction)
        table = self.tables.table(channel_id)
        if table is None or table.game_id != game_id or table.phase is not Phase.PLAYING:
            return await reply(interaction, t(lang, "error.stale"))
        await self._note_locale(interaction, channel_id)
        from_dm = interaction.guild_id is None  # the answer below updates that DM itself
        try:
            if action in ("cards", "clear"):
                selected = inputs.picked_cards(values) if action == "cards" else ()
                hand = self.tables.hand(channel_id, interaction.user.id, selected=selected)
            elif action == "pass":
                hand = await within(interaction, self.tables.pass_turn(
                    channel_id, interaction.user.id, refresh_dm=not from_dm), update=True)
            else:
                chosen = inputs.quick_choice(values) if action == "quick" else (mask or 0)
                if not chosen:
                    raise IllegalPlayError("choose at least one card", code="empty")
                hand = await within(interaction, self.tables.play(
                    channel_id, interaction.user.id, chosen, refresh_dm=not from_dm), update=True)
        except Exception as error:
            return await fail(interaction, error)
        await self._show_hand(interaction, hand, update=True)
        if from_dm and action not in ("cards", "clear"):
            # The move was answered in the DM, so the runtime did not refresh this
            # player's hand; an ephemeral view of it in the channel follows here.
            await self.delivery.refresh_ephemeral(interaction.user.id, hand)
        await self._dm_notice(interaction, channel_id)


async def _read_profile(database: db.Database, guild_id: int, user_id: int, name: str) -> "Profile":
    """What /tienlen profile shows of a player, from the database."""
    from cogs.layouts.stats import PROFILE_GAMES, Profile
    from tienlen.ratings import Rating

    stats = await db.player_stats(database, guild_id, user_id)
    rating = await db.player_rating(database, guild_id, user_id)
    history = await db.rated_games(database, guild_id, user_id, limit=PROFILE_GAMES)
    best = await db.best_game(database, guild_id, user_id)
    return Profile(name=name, stats=stats, rating=rating,
                   ratings=[Rating(mu=game.mu_after, sigma=game.sigma_after).shown for game in history],
                   balances=[game.balance_after for game in history], best=best)

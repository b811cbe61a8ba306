"""/tienlen replay: one step of a finished game as an embed, a picture and step buttons.

Pure formatting over :class:`runtime.replays.ReplayGame`: what the step's
action did (the table's own event lines), every seat's remaining cards and
the play on top in the picture, and at the last step the places and the
payments.  Every card shown was seen by the table during the game (the
replay holds no card that was never dealt, and no seed).
"""

from __future__ import annotations

import asyncio
import io
from typing import Sequence
from zoneinfo import ZoneInfo

import discord
from discord.app_commands import Choice

import db

from cogs.presenter import COLOUR, GOLD, bets, event_line, ordinal, play_text, rules_title
from cogs.views import replay_view, replay_shared_view
from i18n import t
from runtime.replays import ReplayGame, step_events
from tienlen.replay import Frame

__all__ = ["replay_message", "replay_embed", "target_step", "game_choices", "REPLAY_IMAGE"]

REPLAY_IMAGE = "replay.jpg"


async def replay_message(game: ReplayGame, step: int, lang: str, *, shared: bool = False) -> dict:
    """The message showing ``step`` of ``game`` (embed, picture, buttons); ``shared``:
    the public copy, whose one button opens the replay for whoever presses it."""
    frame = game.replay.frame(step)
    data = await asyncio.to_thread(_picture, game, frame, lang)
    view = replay_shared_view(game.game_id, frame.step, lang) if shared else replay_view(game, frame.step, lang)
    return {
        "embed": replay_embed(game, frame, lang),
        "files": [discord.File(io.BytesIO(data), filename=REPLAY_IMAGE)],
        "view": view,
    }


def target_step(game: ReplayGame, action: str, step: int) -> int:
    """Where a replay button goes from ``step``."""
    replay = game.replay
    if action == "first":
        return 0
    if action == "prev":
        return max(0, step - 1)
    if action == "next":
        return min(replay.steps, step + 1)
    if action == "last":
        return replay.steps
    if action == "chop":
        found = replay.next_chop(step)
        return found if found is not None else step
    return replay.frame(step).step  # share, open: the step itself


def replay_embed(game: ReplayGame, frame: Frame, lang: str) -> discord.Embed:
    replay = game.replay
    last = frame.step == replay.steps
    title = t(lang, "replay.title", number=game.game_id, rules=rules_title(game.rules, lang))
    embed = discord.Embed(title=title, colour=GOLD if last else COLOUR)
    lines = [line for line in (event_line(event, lang) for event in step_events(game, frame)) if line]
    if frame.step == 0:
        lines.insert(0, t(lang, "replay.deal"))
    embed.description = "\n".join(lines) or "—"
    if last:
        _add_result(embed, game, lang)
    embed.set_footer(text=t(lang, "replay.footer", step=frame.step, steps=replay.steps,
                            when=game.started_at.strftime("%Y-%m-%d")))
    embed.set_image(url=f"attachment://{REPLAY_IMAGE}")
    return embed


def _add_result(embed: discord.Embed, game: ReplayGame, lang: str) -> None:
    """The last step: places and every payment, in bet units."""
    replay, names = game.replay, game.names
    if replay.instant_winner is not None:
        embed.add_field(name=t(lang, "replay.instant"), value=names[replay.instant_winner], inline=False)
    places = "\n".join(t(lang, "summary.place", place=index + 1, name=names[seat])
                       for index, seat in enumerate(replay.places))
    embed.add_field(name=t(lang, "summary.places"), value=places or "—", inline=True)
    payments = [t(lang, "replay.payment", payer=names[p.payer], payee=names[p.payee], bets=bets(p.units, lang),
                  reason=t(lang, f"reason.{p.reason.value}"))
                for p in replay.payments]
    text = "\n".join(payments) or t(lang, "summary.no_payments")
    embed.add_field(name=t(lang, "replay.payments"), value=text[:1024], inline=True)


def caption(game: ReplayGame, frame: Frame, lang: str) -> str:
    """The line above the picture: the step and its move."""
    head = f"{frame.step}/{game.replay.steps}"
    outcome = frame.outcome
    if outcome is None:
        return f"{head} · {t(lang, 'replay.deal_short')}"
    name = game.names[outcome.action.seat]
    if outcome.combo is not None:
        return f"{head} · {name}: {play_text(outcome.combo, lang)}"
    key = "replay.left" if outcome.action.kind == "leave" else "replay.passed"
    return f"{head} · {name}: {t(lang, key)}"


def seat_status(frame: Frame, seat: int, lang: str) -> str:
    """A seat's state under its name: its place, out of the round, left."""
    if seat in frame.left:
        return t(lang, "table.left")
    place = frame.places[seat]
    if place is not None:
        return t(lang, "table.place", place=ordinal(place + 1, lang))
    if seat in frame.passed:
        return t(lang, "table.passed")
    if seat == frame.top_owner:
        return t(lang, "replay.on_top")
    return ""


def shown_top(frame: Frame) -> tuple | None:
    """The play the picture shows on top: the round's, or the step's own play
    when it ended the round."""
    if frame.top is not None:
        return tuple(frame.top.cards)
    if frame.outcome is not None and frame.outcome.combo is not None:
        return tuple(frame.outcome.combo.cards)
    return None


def _picture(game: ReplayGame, frame: Frame, lang: str) -> bytes:
    from render.replay import ReplaySeat, render_replay_step

    seats = [ReplaySeat(name=name, cards=frame.hands[seat], status=seat_status(frame, seat, lang),
                        acting=seat == frame.actor)
             for seat, name in enumerate(game.names)]
    return render_replay_step(seats, top=shown_top(frame), caption=caption(game, frame, lang))


def game_choices(games: Sequence[db.GameSummary], user_id: int, typed: str, lang: str,
                 timezone: str) -> list[Choice[int]]:
    """Autocomplete for /tienlen replay: the player's games whose number starts
    with what was typed, as "#123 · 03/12 17:40 · Southern · 1st"."""
    zone = ZoneInfo(timezone)
    typed = typed.strip().lstrip("#")
    choices = []
    for game in games:
        if typed and not str(game.game_id).startswith(typed):
            continue
        when = game.started_at.astimezone(zone).strftime("%d/%m %H:%M")
        place = next((seat.place for seat in game.seats if seat.user_id == user_id), None)
        params = {"number": game.game_id, "when": when, "rules": rules_title(game.rules, lang)}
        if place is None:
            name = t(lang, "replay.choice_unplaced", **params)
        else:
            name = t(lang, "replay.choice", place=ordinal(place + 1, lang), **params)
        choices.append(Choice(name=name[:100], value=game.game_id))
    return choices[:25]

"""/tienlen replay: one step of a finished game as text, a picture and step buttons.

Pure formatting over :class:`runtime.replays.ReplayGame`: what the step's
action did (the table's own event lines), every seat's remaining cards and
the play on top in the picture, and at the last step the places and the
payments.  Every card shown was seen by the table during the game (the
replay holds no card that was never dealt, and no seed).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence
from zoneinfo import ZoneInfo

import discord
from discord import ui
from discord.app_commands import Choice

import db

from cogs.custom_ids import replay_id
from cogs.layouts.style import GOLD, accent_for, block, button, footer, heading, panel, picture, row, text
from cogs.layouts.words import bets, event_line, ordinal, play_text, rules_title
from i18n import t
from runtime.replays import ReplayGame, step_events
from tienlen.replay import Frame

__all__ = ["ReplayWords", "replay_words", "replay_layout", "replay_picture", "target_step", "game_choices", "REPLAY_IMAGE"]

REPLAY_IMAGE = "replay.jpg"


class ReplayWords(NamedTuple):
    """What one step of a replay says, before it is laid out (the Activity shows the same words)."""

    title: str
    lines: list[str]
    """What the step did (the table's own event lines)."""
    result: list[tuple[str, str]]
    """On the last step only: (title, body) of each block of the result (places, payments)."""


def replay_words(game: ReplayGame, step: int, lang: str) -> ReplayWords:
    """The words of ``step`` (clamped to the game) of ``game``."""
    frame = game.replay.frame(step)
    title = t(lang, "replay.title", number=game.game_id, rules=rules_title(game.rules, lang))
    lines = [line for line in (event_line(event, lang) for event in step_events(game, frame)) if line]
    if frame.step == 0:
        lines.insert(0, t(lang, "replay.deal"))
    result = _result(game, lang) if frame.step == game.replay.steps else []
    return ReplayWords(title, lines, result)


def replay_layout(game: ReplayGame, step: int, lang: str, *, shared_by: str | None = None) -> ui.LayoutView:
    """The message showing ``step`` of ``game`` with its picture (:data:`REPLAY_IMAGE`).

    ``shared_by``: the public copy someone shared (their line on top), whose
    one button opens the replay privately for whoever presses it."""
    frame = game.replay.frame(step)
    replay = game.replay
    words = replay_words(game, frame.step, lang)
    items: list[ui.Item | None] = [text(shared_by) if shared_by else None, heading(words.title),
                                   text("\n".join(words.lines) or "—")]
    items += [block(title, body) for title, body in words.result]
    items += [picture(REPLAY_IMAGE, description=caption(game, frame, lang)),
              footer(t(lang, "replay.footer", step=frame.step, steps=replay.steps,
                       when=game.started_at.strftime("%Y-%m-%d")))]
    items += [_shared_buttons(game, frame.step, lang)] if shared_by else _step_buttons(game, frame.step, lang)
    return panel(GOLD if frame.step == replay.steps else accent_for(game.rules), items)


def replay_picture(game: ReplayGame, step: int, lang: str) -> bytes:
    """The picture of ``step``: every seat's cards, the play on top, the step's move (CPU-bound: run off the loop)."""
    return _picture(game, game.replay.frame(step), lang)


def _step_buttons(game: ReplayGame, step: int, lang: str) -> list[ui.Item]:
    """⏮ ◀ ▶ ⏭, the next chop, and Share."""
    game_id, replay = game.game_id, game.replay
    at_start, at_end = step <= 0, step >= replay.steps
    steps = [button(replay_id(action, game_id, step), None, emoji=emoji, disabled=disabled)
             for action, emoji, disabled in (("first", "⏮️", at_start), ("prev", "◀️", at_start),
                                             ("next", "▶️", at_end), ("last", "⏭️", at_end))]
    steps.append(button(replay_id("chop", game_id, step), t(lang, "button.replay_chop"), emoji="💥",
                        disabled=replay.next_chop(step) is None))
    share = button(replay_id("share", game_id, step), t(lang, "button.share"), discord.ButtonStyle.primary, emoji="📢")
    return [row(*steps), row(share)]


def _shared_buttons(game: ReplayGame, step: int, lang: str) -> ui.Item:
    """Under a step someone shared: open the replay there, privately, for whoever presses."""
    return row(button(replay_id("open", game.game_id, step), t(lang, "button.watch"), discord.ButtonStyle.primary,
                      emoji="🎬"))


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


def _result(game: ReplayGame, lang: str) -> list[tuple[str, str]]:
    """The last step: places and every payment, in bet units (each block's title and body)."""
    replay, names = game.replay, game.names
    blocks: list[tuple[str, str]] = []
    if replay.instant_winner is not None:
        blocks.append((t(lang, "replay.instant"), names[replay.instant_winner]))
    places = "\n".join(t(lang, "summary.place", place=index + 1, name=names[seat])
                       for index, seat in enumerate(replay.places))
    blocks.append((t(lang, "summary.places"), places or "—"))
    payments = [t(lang, "replay.payment", payer=names[p.payer], payee=names[p.payee], bets=bets(p.units, lang),
                  reason=t(lang, f"reason.{p.reason.value}"))
                for p in replay.payments]
    blocks.append((t(lang, "replay.payments"), "\n".join(payments) or t(lang, "summary.no_payments")))
    return blocks


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

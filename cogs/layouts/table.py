"""The public table message: seats in turn order, whose turn and until when, the play on top, the buttons.

A pure function of a :class:`~runtime.snapshot.TableSnapshot` and a language.
Only public facts are shown: card counts, played cards, who passed; never a
card still in a hand (the opening line says that the lowest card must be
played, not which card that is).

The layout, top to bottom: the heading (rule set, options, bet); the seats,
beside the button that acts on them (Join in the lobby, My hand in a game);
"Now" (who is to play, with a live ``<t:…:R>`` countdown); what is on the
table, as text and as a picture; who leads; the latest moves; the session's
tally; a footer; the buttons of the phase.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import discord
from discord import ui

from cogs.custom_ids import open_activity_id, table_id
from cogs.layouts.style import accent_for, block, button, footer, heading, panel, picture, row
from cogs.layouts.words import event_line, lead_line, opening_line, play_text, rules_title, seat_line
from i18n import number, t
from runtime.snapshot import TableSnapshot
from tienlen.rules import RuleSet
from tienlen.table import Phase

__all__ = ["table_layout", "PLAY_IMAGE", "LATEST_EVENTS"]

PLAY_IMAGE = "play.jpg"
LATEST_EVENTS = 5
"""Moves shown under "Latest"."""

_PRIMARY, _SECONDARY, _SUCCESS, _DANGER = (discord.ButtonStyle.primary, discord.ButtonStyle.secondary,
                                           discord.ButtonStyle.success, discord.ButtonStyle.danger)


def table_layout(snapshot: TableSnapshot, lang: str, *, image: str | None = None,
                 activity: bool = False) -> ui.LayoutView:
    """The table message; ``image``: the attached picture of the play on top (None: no picture);
    ``activity``: the bot serves the Activity, so the table offers "Open the table"."""
    items: list[ui.Item | None] = [_heading(snapshot, lang), ui.Separator(), _seats(snapshot, lang)]
    if snapshot.phase is Phase.PLAYING:
        items += _game(snapshot, lang, image)
    elif snapshot.phase is Phase.LOBBY:
        help_key = "table.lobby_help_ranked" if snapshot.ranked else "table.lobby_help"
        items.append(block(t(lang, "table.lobby"), t(lang, help_key)))
    else:
        items.append(block(t(lang, "table.between"), t(lang, "table.between_help")))
    items += [_tally(snapshot, lang), _latest(snapshot, lang), footer(_footer(snapshot, lang))]
    buttons = _buttons(snapshot, lang, activity)
    if buttons:
        items.append(row(*buttons))
    return panel(accent_for(snapshot.rules.name), items)


def _heading(snapshot: TableSnapshot, lang: str) -> ui.TextDisplay:
    return heading(*_heading_lines(snapshot.rules, snapshot.turn_seconds, snapshot.ranked, snapshot.bet, lang))


@functools.lru_cache(maxsize=1024)
def _heading_lines(rules: RuleSet, turn_seconds: int, ranked: bool, bet: int, lang: str) -> tuple[str, str, str]:
    """A table's title, rules and bet lines: the same on every redraw of a table, so drawn once."""
    from i18n.rules_text import rules_summary

    title = t(lang, "table.title", rules=rules_title(rules.name, lang))
    if ranked:
        title = f"{title} · {t(lang, 'table.ranked')}"
    summary = rules_summary(replace(rules, turn_seconds=turn_seconds), lang).splitlines()[-1]  # the title names the preset
    return title, summary, t(lang, "table.bet_line", bet=number(bet, lang), count=bet)


def _seats(snapshot: TableSnapshot, lang: str) -> ui.Item:
    seats = "\n".join(seat_line(seat, snapshot, lang) for seat in snapshot.seats) or t(lang, "table.no_seats")
    title = t(lang, "table.seats", count=len(snapshot.seats), max=snapshot.rules.max_players)
    text = block(title, seats)
    if snapshot.closed:
        return text
    channel = snapshot.channel_id
    if snapshot.phase is Phase.PLAYING:  # the seats' cards: your own, privately
        accessory = button(table_id("hand", channel), t(lang, "button.hand"), _PRIMARY, emoji="🃏")
    else:
        accessory = button(table_id("join", channel), t(lang, "button.join"), _PRIMARY)
    return ui.Section(text, accessory=accessory)


def _game(snapshot: TableSnapshot, lang: str, image: str | None) -> list[ui.Item | None]:
    items: list[ui.Item | None] = []
    if snapshot.turn is not None:
        turn = t(lang, "table.turn", name=snapshot.seat_name(snapshot.turn))
        if snapshot.deadline is not None:
            turn += " · " + t(lang, "table.deadline", when=f"<t:{int(snapshot.deadline)}:R>")
        items.append(block(t(lang, "table.now"), turn))
    if snapshot.top is not None:
        on_table = t(lang, "table.top", name=snapshot.seat_name(snapshot.top_owner), play=play_text(snapshot.top, lang))
    else:
        on_table = opening_line(snapshot, lang)
    items.append(block(t(lang, "table.on_table"), on_table))
    if image and snapshot.top is not None:
        items.append(picture(image, description=play_text(snapshot.top, lang)))
    if snapshot.lead is not None:
        items.append(block(t(lang, "table.lead"), lead_line(snapshot, lang)))
    return items


def _tally(snapshot: TableSnapshot, lang: str) -> ui.Item | None:
    finished = snapshot.game_number - (1 if snapshot.phase is Phase.PLAYING else 0)
    if not snapshot.tally or finished <= 0:
        return None
    tally = "\n".join(f"{name}: {number(amount, lang, signed=True)}" for name, amount in snapshot.tally)
    return block(t(lang, "table.tally", games=finished, count=finished), tally)


def _latest(snapshot: TableSnapshot, lang: str) -> ui.Item | None:
    lines = [line for line in (event_line(event, lang) for event in snapshot.events[-LATEST_EVENTS:]) if line]
    return block(t(lang, "table.latest"), "\n".join(lines)) if lines else None


def _footer(snapshot: TableSnapshot, lang: str) -> str:
    if snapshot.phase is Phase.PLAYING:
        return t(lang, "table.footer", number=snapshot.game_number)
    if snapshot.game_number == 0:
        return t(lang, "table.footer_lobby")  # nothing dealt yet: not "Game 0"
    return t(lang, "table.footer_between", number=snapshot.game_number)


def _buttons(snapshot: TableSnapshot, lang: str, activity: bool) -> list[ui.Button]:
    """The phase's buttons (Join and My hand sit beside the seats)."""
    if snapshot.closed:
        return []
    channel = snapshot.channel_id
    opener = [button(open_activity_id(channel), t(lang, "activity.button.open"), _PRIMARY, emoji="🃏")
              ] if activity else []
    if snapshot.phase is Phase.PLAYING:
        return [button(table_id("leave", channel), t(lang, "button.leave_game"), _DANGER), *opener]
    buttons = []
    if snapshot.phase is Phase.BETWEEN:
        buttons.append(button(table_id("next", channel), t(lang, "button.next"), _SUCCESS, emoji="▶️"))
    buttons.append(button(table_id("leave", channel), t(lang, "button.leave"), _SECONDARY))
    if not snapshot.ranked:  # a ranked table seats people only
        buttons.append(button(table_id("ai", channel), t(lang, "button.add_ai"), _SECONDARY, emoji="🤖"))
    if snapshot.phase is Phase.LOBBY:
        buttons.append(button(table_id("start", channel), t(lang, "button.start"), _SUCCESS))
    return buttons + opener

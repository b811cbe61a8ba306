"""Turn snapshots into Discord embeds and lines of text, in one language.

Pure formatting: no I/O and no rule decisions.  Every word comes from the
``i18n`` catalogue; cards shown here are public (played cards) except in
:func:`hand_embed`, which is only ever sent to the hand's owner.
"""

from __future__ import annotations

from dataclasses import replace

import discord

from i18n import has, number, t
from runtime.snapshot import TAKEN_OVER, Event, GameSummary, HandSnapshot, SeatInfo, TableSnapshot
from tienlen import Combo, ComboKind, format_cards
from tienlen.table import Phase

__all__ = [
    "table_embed",
    "hand_embed",
    "summary_embed",
    "event_line",
    "combo_name",
    "rules_title",
    "error_text",
    "lead_line",
    "opening_line",
    "ordinal",
    "COLOUR",
]

COLOUR = discord.Colour.from_rgb(27, 94, 55)  # felt green
GOLD = discord.Colour.from_rgb(230, 180, 40)
DEALT = 13  # cards in a hand before its first play


def ordinal(place: int, lang: str) -> str:
    """'1st', '2nd' … / 'nhất', 'nhì' … for a place counted from 1."""
    key = f"ordinal.{place}"
    return t(lang, key) if has(key) else str(place)


def bets(units: int, lang: str) -> str:
    return t(lang, "count.bets", count=units)


def chips(amount: int, lang: str) -> str:
    return t(lang, "count.chips", count=amount)


def rules_title(name: str, lang: str) -> str:
    return t(lang, f"preset.{name}")


def combo_name(combo: Combo, lang: str) -> str:
    """'pair', 'straight of 5', '3 consecutive pairs' … in ``lang``."""
    kind = combo.kind
    if kind is ComboKind.STRAIGHT:
        return t(lang, "combo.straight", count=combo.size)
    if kind is ComboKind.CONSECUTIVE_PAIRS:
        return t(lang, "combo.pairs", count=combo.pairs)
    return t(lang, f"combo.{kind.value}")


def play_text(combo: Combo, lang: str) -> str:
    return f"{format_cards(combo.cards)} ({combo_name(combo, lang)})"


def _seat_line(seat: SeatInfo, snapshot: TableSnapshot, lang: str) -> str:
    marks = []
    if seat.on_turn:
        marks.append("▶")
    name = f"**{seat.name}**" if seat.on_turn else seat.name
    if seat.is_host:
        marks.append("👑")
    if seat.is_ai:
        marks.append("🤖")
    status: list[str] = []
    if snapshot.phase is Phase.PLAYING:
        if seat.place is not None and not seat.left and not seat.frozen:
            status.append(t(lang, "table.place", place=ordinal(seat.place + 1, lang)))
        elif not seat.left:
            status.append(t(lang, "table.cards_left", count=seat.cards_left))
        if seat.passed:
            status.append(t(lang, "table.passed"))
        if seat.left:
            status.append(t(lang, "table.left"))
        if seat.frozen:
            status.append(t(lang, "table.frozen"))
        if seat.afk:
            status.append(t(lang, "table.afk"))
    elif seat.ready:
        status.append(t(lang, "table.ready"))
    prefix = " ".join(marks)
    return f"{prefix} {name}".strip() + (f" — {', '.join(status)}" if status else "")


def table_embed(snapshot: TableSnapshot, lang: str, *, image: str | None = None) -> discord.Embed:
    """The public table message: seats in turn order, whose turn, last play, rules and bet."""
    title = t(lang, "table.title", rules=rules_title(snapshot.rules.name, lang))
    if snapshot.ranked:
        title = f"{title} · {t(lang, 'table.ranked')}"
    embed = discord.Embed(title=title, colour=COLOUR)
    from i18n.rules_text import rules_summary

    rules = replace(snapshot.rules, turn_seconds=snapshot.turn_seconds)
    summary = rules_summary(rules, lang).splitlines()[-1]  # the title already names the preset
    bet_line = t(lang, "table.bet_line", bet=number(snapshot.bet, lang), count=snapshot.bet)
    embed.description = "\n".join([summary, bet_line])
    seats = "\n".join(_seat_line(seat, snapshot, lang) for seat in snapshot.seats) or t(lang, "table.no_seats")
    seats_title = t(lang, "table.seats", count=len(snapshot.seats), max=snapshot.rules.max_players)
    embed.add_field(name=seats_title, value=seats, inline=False)
    if snapshot.phase is Phase.PLAYING:
        _add_game_fields(embed, snapshot, lang)
    elif snapshot.phase is Phase.LOBBY:
        help_key = "table.lobby_help_ranked" if snapshot.ranked else "table.lobby_help"
        embed.add_field(name=t(lang, "table.lobby"), value=t(lang, help_key), inline=False)
    else:
        embed.add_field(name=t(lang, "table.between"), value=t(lang, "table.between_help"), inline=False)
    finished = snapshot.game_number - (1 if snapshot.phase is Phase.PLAYING else 0)
    if snapshot.tally and finished > 0:
        tally = "\n".join(f"{name}: {number(amount, lang, signed=True)}" for name, amount in snapshot.tally)
        embed.add_field(name=t(lang, "table.tally", games=finished, count=finished), value=tally, inline=False)
    if snapshot.events:
        lines = [line for line in (event_line(event, lang) for event in snapshot.events[-5:]) if line]
        if lines:
            embed.add_field(name=t(lang, "table.latest"), value="\n".join(lines), inline=False)
    if image:
        embed.set_image(url=f"attachment://{image}")
    embed.set_footer(text=_footer(snapshot, lang))
    return embed


def _footer(snapshot: TableSnapshot, lang: str) -> str:
    if snapshot.phase is Phase.PLAYING:
        return t(lang, "table.footer", number=snapshot.game_number)
    if snapshot.game_number == 0:
        return t(lang, "table.footer_lobby")  # nothing dealt yet: not "Game 0"
    return t(lang, "table.footer_between", number=snapshot.game_number)


def _add_game_fields(embed: discord.Embed, snapshot: TableSnapshot, lang: str) -> None:
    if snapshot.turn is not None:
        turn = t(lang, "table.turn", name=snapshot.seat_name(snapshot.turn))
        if snapshot.deadline is not None:
            turn += " · " + t(lang, "table.deadline", when=f"<t:{int(snapshot.deadline)}:R>")
        embed.add_field(name=t(lang, "table.now"), value=turn, inline=False)
    if snapshot.top is not None:
        value = t(lang, "table.top", name=snapshot.seat_name(snapshot.top_owner), play=play_text(snapshot.top, lang))
    else:
        value = opening_line(snapshot, lang)
    embed.add_field(name=t(lang, "table.on_table"), value=value, inline=False)
    if snapshot.lead is not None:
        embed.add_field(name=t(lang, "table.lead"), value=lead_line(snapshot, lang), inline=False)


def lead_line(snapshot: TableSnapshot, lang: str) -> str:
    """Who leads this game and why (the engine's reason)."""
    lead = snapshot.lead
    assert lead is not None
    name = snapshot.seat_name(snapshot.turn)
    return t(lang, f"lead.{lead.reason}", name=name)


def opening_line(snapshot: TableSnapshot, lang: str) -> str:
    """Nothing on the table: who leads, and what the rules ask of that play.

    The opening play of a game led by the lowest card must contain that card
    (docs/rules.md §3; ``mien-bac``: any play), so the line says so, as the "Who
    leads" line and the rules do.  It does not name the card: the public table
    shows no card still in a hand (the leader's own hand names it).
    """
    name = snapshot.seat_name(snapshot.turn)
    if snapshot.opening_requires_lowest:
        return t(lang, "table.opening_lowest", name=name)
    if not _opening(snapshot):
        return t(lang, "table.leading", name=name)
    return t(lang, "table.opening_free", name=name)


def _opening(snapshot: TableSnapshot) -> bool:
    """No card has been played yet in this game."""
    if snapshot.lead is not None:
        return True
    playing = [seat for seat in snapshot.seats if not seat.left]
    return bool(playing) and all(seat.cards_left == DEALT for seat in playing)


def event_line(event: Event, lang: str) -> str:
    """A short, lively line for one event ("Chặt heo!")."""
    kind = event.kind
    if kind == "played" and event.combo is not None:
        return t(lang, "event.played", name=event.name, play=play_text(event.combo, lang))
    if kind == "chop" and event.combo is not None:
        target = "two" if event.combo.has_two and event.combo.bomb is None else "bomb"
        return t(lang, f"event.chop_{target}", name=event.name, other=event.other, bets=bets(event.value, lang))
    if kind == "out":
        return t(lang, "event.out", name=event.name, place=ordinal(event.value + 1, lang))
    if kind == "ai_added":
        level = f"level.{event.other}"
        return t(lang, "event.ai_added", name=event.name, other=t(lang, level) if has(level) else event.other)
    if kind == "restored" and event.other == TAKEN_OVER:
        return t(lang, "event.taken_over")
    if kind == "round_over":
        return t(lang, "event.round_over", name=event.name)
    if kind in ("passed", "timeout", "finish_penalty", "frozen", "stuck", "left_game", "afk", "back",
                "joined", "left_table", "ai_removed", "host_changed", "configured", "aborted",
                "game_over", "ready", "restored"):
        return t(lang, f"event.{kind}", name=event.name, other=event.other)
    if kind == "game_started":
        return t(lang, "event.game_started", name=event.name)
    return ""


def summary_embed(summary: GameSummary, lang: str, *, image: str | None = None) -> discord.Embed:
    """The end-of-game summary: places, every payment and why, chips after."""
    embed = discord.Embed(title=t(lang, "summary.title"), colour=GOLD)
    if summary.instant_win is not None:
        name, kind = summary.instant_win
        embed.description = t(lang, "summary.instant_win", name=name, kind=t(lang, f"instant.{kind}"))
    places = "\n".join(t(lang, "summary.place", place=index + 1, name=name) for index, name in enumerate(summary.places))
    embed.add_field(name=t(lang, "summary.places"), value=places, inline=True)
    if summary.frozen:
        embed.add_field(name=t(lang, "summary.frozen"), value=", ".join(summary.frozen), inline=True)
    payments = [
        t(lang, "summary.payment" if line.settled else "summary.payment_ai",
          payer=line.payer, payee=line.payee, bets=bets(line.units, lang),
          chips=chips(line.units * summary.bet, lang), reason=t(lang, f"reason.{line.reason}"))
        for line in summary.payments
    ]
    embed.add_field(
        name=t(lang, "summary.payments", chips=chips(summary.bet, lang)),
        value=_clip("\n".join(payments) or t(lang, "summary.no_payments")),
        inline=False,
    )
    balances = [
        t(lang, "summary.chips_line", name=name, amount=number(amount, lang, signed=True),
          balance=number(balance, lang) if balance is not None else "—")
        for name, amount, balance in summary.chips
    ]
    if balances:
        title = t(lang, "summary.chips")
        if summary.rake_percent:
            title += " " + t(lang, "summary.rake", percent=summary.rake_percent)
        embed.add_field(name=title, value=_clip("\n".join(balances)), inline=False)
    else:
        embed.add_field(name=t(lang, "summary.chips"), value=t(lang, "summary.ai_only"), inline=False)
    if summary.ratings:
        lines = [t(lang, "summary.rating_line", name=name, after=number(after, lang),
                   change=number(after - before, lang, signed=True))
                 for name, before, after in summary.ratings]
        embed.add_field(name=t(lang, "summary.ratings"), value=_clip("\n".join(lines)), inline=False)
    if image:
        embed.set_image(url=f"attachment://{image}")
    return embed


def hand_embed(hand: HandSnapshot, lang: str, *, image: str | None = None, notice: str | None = None) -> discord.Embed:
    """A player's own hand, privately: cards, what is on the table, what they may do."""
    embed = discord.Embed(title=t(lang, "hand.title", count=len(hand.cards)), colour=COLOUR)
    lines = []
    if notice:
        lines.append(notice)
    if hand.finished:
        lines.append(t(lang, "hand.game_over"))
    elif not hand.in_play:
        lines.append(t(lang, "hand.out"))
    elif hand.is_turn:
        lines.append(t(lang, "hand.your_turn"))
        if hand.deadline is not None:
            lines.append(t(lang, "table.deadline", when=f"<t:{int(hand.deadline)}:R>"))
        if hand.top is None:  # leading: what the rules allow, and no passing
            if hand.required is not None:
                lines.append(t(lang, "hand.must_include", card=str(hand.required)))
            else:
                lines.append(t(lang, "hand.lead"))
        else:
            lines.append(t(lang, "hand.top", play=play_text(hand.top, lang)))
            lines.append(t(lang, "hand.beat_or_pass" if hand.legal else "hand.cannot_beat"))
    else:
        if hand.out_of_turn:
            lines.append(t(lang, "hand.can_chop"))
        elif hand.turn_name:
            lines.append(t(lang, "hand.wait_for", name=hand.turn_name))
        else:
            lines.append(t(lang, "hand.wait"))
        if hand.top is not None:
            lines.append(t(lang, "hand.on_table", play=play_text(hand.top, lang)))
    if hand.selected:
        lines.append(t(lang, "hand.selected", cards=format_cards(hand.selected)))
    lines.append(format_cards(hand.cards))
    embed.description = "\n".join(lines)
    if image:
        embed.set_image(url=f"attachment://{image}")
    return embed


def error_text(code: str, lang: str, params: dict | None = None) -> str:
    """The catalogue text for an error code from the engine, the table or the chips layer."""
    params = dict(params or {})
    for key, value in list(params.items()):
        if key == "channels":  # channel ids: shown as the channels themselves
            params[key] = " ".join(f"<#{channel}>" for channel in value)
        elif isinstance(value, Combo):
            params[key] = play_text(value, lang)
        elif isinstance(value, (list, tuple)):
            params[key] = format_cards(value) if value and hasattr(value[0], "symbol") else ", ".join(map(str, value))
        elif value is None:
            params[key] = "—"
        else:
            params[key] = str(value) if not isinstance(value, int) else number(value, lang)
    key = f"error.{code}"
    try:
        return t(lang, key, **params)
    except (KeyError, IndexError):
        return t(lang, "error.generic")


def _clip(text: str, limit: int = 1024) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

"""The words every surface shares: seats, plays, events, places, errors, in one language.

Pure formatting: no I/O and no rule decisions.  Every word comes from the
``i18n`` catalogue; every card named here is public (played cards), except
where a hand's own layout (:mod:`cogs.layouts.hand`) names its owner's cards.

>>> from tienlen import classify, RULESETS
>>> combo_name(classify("3S 4S 5S", RULESETS["mien-nam"]), "en")
'straight of 3'
"""

from __future__ import annotations

from i18n import has, number, t
from runtime.snapshot import TAKEN_OVER, Event, SeatInfo, TableSnapshot
from tienlen import Combo, ComboKind, format_cards
from tienlen.table import Phase

__all__ = ["event_line", "combo_name", "play_text", "rules_title", "error_text", "lead_line", "opening_line",
           "ordinal", "bets", "chips", "seat_line", "seat_status", "clip"]

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


def seat_line(seat: SeatInfo, snapshot: TableSnapshot, lang: str) -> str:
    marks = []
    if seat.on_turn:
        marks.append("▶")
    name = f"**{seat.name}**" if seat.on_turn else seat.name
    if seat.is_host:
        marks.append("👑")
    if seat.is_ai:
        marks.append("🤖")
    status = seat_status(seat, snapshot, lang)
    prefix = " ".join(marks)
    return f"{prefix} {name}".strip() + (f" — {', '.join(status)}" if status else "")


def seat_status(seat: SeatInfo, snapshot: TableSnapshot, lang: str, *, with_count: bool = True) -> list[str]:
    """What a seat's line says of it: its place (or, ``with_count``, its cards left), passed, left, frozen,
    AFK; in the lobby, ready."""
    status: list[str] = []
    if snapshot.phase is Phase.PLAYING:
        if seat.place is not None and not seat.left and not seat.frozen:
            status.append(t(lang, "table.place", place=ordinal(seat.place + 1, lang)))
        elif not seat.left and with_count:
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
    return status


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


def clip(text: str, limit: int = 1024) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

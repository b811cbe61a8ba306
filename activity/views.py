"""The JSON the Activity's clients receive: the public table, and one player's own hand.

Pure functions of the runtime's snapshots (:mod:`runtime.snapshot`) and a
language, worded with the bot's own catalogue and phrases
(:mod:`cogs.layouts.words`), so the Activity and the table message say the
same things.  :func:`table_view` holds only public facts (counts, played cards,
the results of a finished game); :func:`hand_view` is one player's cards and is
only ever sent to that player's connection.  Snowflakes travel as strings
(JavaScript numbers lose them).
"""

from __future__ import annotations

import re
from typing import Any

from cogs.layouts.hand import quick_plays
from cogs.layouts.style import blocks, texts
from cogs.layouts.summary import summary_layout
from cogs.layouts.words import combo_name, event_line, lead_line, opening_line, rules_title, seat_status
from i18n import number, t
from runtime.snapshot import GameSummary, HandSnapshot, SeatInfo, TableSnapshot
from tienlen import Combo
from tienlen.table import Phase

__all__ = ["table_view", "hand_view", "combo_view", "summary_view", "plain", "LATEST_EVENTS"]

LATEST_EVENTS = 5
_MARKDOWN = re.compile(r"\*\*|__|`|<t:(\d+):[A-Za-z]>")


def plain(text: str) -> str:
    """A catalogue line without Discord's markdown (the client draws its own emphasis)."""
    return _MARKDOWN.sub(lambda match: "" if match.group(1) is None else match.group(1), text)


def combo_view(combo: Combo, lang: str) -> dict[str, Any]:
    return {"cards": [card.code for card in combo.cards], "name": combo_name(combo, lang),
            "chop": combo.bomb is not None}


def _seat(seat: SeatInfo, snapshot: TableSnapshot, lang: str) -> dict[str, Any]:
    """A seat: its number, name, user (the client asks ``/api/avatar/{user}`` for the picture) and card count
    always; its marks only when set (a table update stays small: four seats go out with every move)."""
    status = seat_status(seat, snapshot, lang, with_count=False)  # the client draws the count itself
    view: dict[str, Any] = {"seat": seat.index, "name": seat.name, "user": str(seat.user_id) if seat.user_id else None,
                            "cards": seat.cards_left}
    marks = {"ai": seat.ai_level if seat.is_ai else None, "turn": seat.on_turn, "host": seat.is_host,
             "passed": seat.passed, "out": seat.place is not None, "afk": seat.afk,
             "status": ", ".join(plain(text) for text in status)}
    view.update((key, value) for key, value in marks.items() if value)
    return view


def table_view(snapshot: TableSnapshot, lang: str) -> dict[str, Any]:
    """The public table, worded in ``lang`` (one per connection's language)."""
    playing = snapshot.phase is Phase.PLAYING
    view: dict[str, Any] = {
        "type": "table", "version": snapshot.version, "channel": str(snapshot.channel_id),
        "phase": "closed" if snapshot.closed else snapshot.phase.value,
        "title": plain(t(lang, "table.title", rules=rules_title(snapshot.rules.name, lang))),
        "bet": plain(t(lang, "table.bet_line", bet=number(snapshot.bet, lang), count=snapshot.bet)),
        "host": str(snapshot.host_id), "game": snapshot.game_number, "ranked": snapshot.ranked,
        "max_seats": snapshot.rules.max_players,
        "seats": [_seat(seat, snapshot, lang) for seat in snapshot.seats],
        "turn": snapshot.turn if playing else None,
        "deadline": snapshot.deadline if playing else None,
        "turn_seconds": snapshot.turn_seconds,
        "top": combo_view(snapshot.top, lang) if playing and snapshot.top is not None else None,
        "top_owner": snapshot.seat_name(snapshot.top_owner) if playing and snapshot.top is not None else None,
        "top_seat": snapshot.top_owner if playing and snapshot.top is not None else None,
        "events": [line for line in (plain(event_line(event, lang)) for event in snapshot.events[-LATEST_EVENTS:])
                   if line],
        "tally": [[name, number(amount, lang, signed=True)] for name, amount in snapshot.tally],
    }
    if playing and snapshot.top is None and snapshot.turn is not None:
        view["opening"] = plain(opening_line(snapshot, lang))
    if playing and snapshot.lead is not None and snapshot.turn is not None:
        view["lead"] = plain(lead_line(snapshot, lang))
    summary = snapshot.summary
    if summary is not None and not playing:
        view["summary"] = summary_view(summary, lang)
    return view


def summary_view(summary: GameSummary, lang: str) -> dict[str, Any]:
    """The end of a game as the channel's summary message words it: its headline (a tới trắng), then its
    blocks (places, frozen players, every payment and why, chips, ratings), read back from
    :func:`cogs.layouts.summary.summary_layout` so that no rule of its wording lives here twice; and
    everyone's last cards (public once the game is over, as in that message's picture)."""
    layout = summary_layout(summary, lang, image=None)
    headline: list[str] = []
    for item in texts(layout):
        first, _, rest = item.content.partition("\n")
        if first.startswith("## "):
            headline = [plain(line) for line in rest.splitlines() if line]
    sections = [{"title": plain(title), "lines": [plain(line) for line in lines if line]}
                for title, lines in blocks(layout)]
    return {"game": summary.game_id, "headline": headline, "sections": sections,
            # One string of codes a hand ("3S 10H 2D"): 52 cards fit a table update of under 2 KB.
            "hands": [[name, " ".join(card.code for card in cards)] for name, cards in summary.final_hands]}


def hand_view(hand: HandSnapshot | None, lang: str) -> dict[str, Any]:
    """``hand``'s owner's cards and what they may do now (``None``: no game of theirs here)."""
    if hand is None:
        return {"type": "hand", "hand": None}
    playable = set()
    for combo in hand.legal:
        playable.update(card.code for card in combo.cards)
    return {"type": "hand", "hand": {
        "game": hand.game_id, "seat": hand.seat, "version": hand.version,
        "cards": [card.code for card in hand.cards],
        "playable": [card.code for card in hand.cards if card.code in playable],
        "quick": [combo_view(combo, lang) for combo in quick_plays(hand.legal)],
        "turn": hand.is_turn, "can_pass": hand.can_pass, "chop": hand.out_of_turn,
        "required": hand.required.code if hand.required is not None else None,
        "finished": hand.finished, "in_play": hand.in_play,
    }}

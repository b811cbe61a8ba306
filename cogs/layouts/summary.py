"""The end-of-game summary: places, every payment and why, chips and ratings after, everyone's last cards.

Posted once per game in the table's channel, in gold.  The picture shows every
seat's remaining cards (public once the game is over); the one button opens
the game's replay, privately, for whoever presses it.
"""

from __future__ import annotations

import discord
from discord import ui

from cogs.custom_ids import replay_id
from cogs.layouts.style import GOLD, block, button, heading, panel, picture, row
from cogs.layouts.words import bets, chips
from i18n import number, t
from runtime.snapshot import GameSummary

__all__ = ["summary_layout", "FINAL_IMAGE"]

FINAL_IMAGE = "final.jpg"


def summary_layout(summary: GameSummary, lang: str, *, image: str | None = FINAL_IMAGE) -> ui.LayoutView:
    """The summary message; ``image``: the attached picture of the last cards (None: none)."""
    lines = []
    if summary.instant_win is not None:
        name, kind = summary.instant_win
        lines.append(t(lang, "summary.instant_win", name=name, kind=t(lang, f"instant.{kind}")))
    items: list[ui.Item | None] = [heading(t(lang, "summary.title"), *lines), _places(summary, lang)]
    if summary.frozen:
        items.append(block(t(lang, "summary.frozen"), ", ".join(summary.frozen)))
    items += [_payments(summary, lang), _chips(summary, lang), _ratings(summary, lang)]
    if image:
        items.append(picture(image))
    if summary.game_id:
        items.append(row(button(replay_id("open", summary.game_id, 0), t(lang, "button.replay"),
                                discord.ButtonStyle.primary, emoji="🎬")))
    return panel(GOLD, items)


def _places(summary: GameSummary, lang: str) -> ui.Item:
    places = "\n".join(t(lang, "summary.place", place=index + 1, name=name) for index, name in enumerate(summary.places))
    return block(t(lang, "summary.places"), places or "—")


def _payments(summary: GameSummary, lang: str) -> ui.Item:
    lines = [
        t(lang, "summary.payment" if line.settled else "summary.payment_ai",
          payer=line.payer, payee=line.payee, bets=bets(line.units, lang),
          chips=chips(line.units * summary.bet, lang), reason=t(lang, f"reason.{line.reason}"))
        for line in summary.payments
    ]
    return block(t(lang, "summary.payments", chips=chips(summary.bet, lang)),
                 "\n".join(lines) or t(lang, "summary.no_payments"))


def _chips(summary: GameSummary, lang: str) -> ui.Item:
    if not summary.chips:
        return block(t(lang, "summary.chips"), t(lang, "summary.ai_only"))
    lines = [t(lang, "summary.chips_line", name=name, amount=number(amount, lang, signed=True),
               balance=number(balance, lang) if balance is not None else "—")
             for name, amount, balance in summary.chips]
    title = t(lang, "summary.chips")
    if summary.rake_percent:
        title += " " + t(lang, "summary.rake", percent=summary.rake_percent)
    return block(title, "\n".join(lines))


def _ratings(summary: GameSummary, lang: str) -> ui.Item | None:
    if not summary.ratings:
        return None
    lines = [t(lang, "summary.rating_line", name=name, after=number(after, lang),
               change=number(after - before, lang, signed=True))
             for name, before, after in summary.ratings]
    return block(t(lang, "summary.ratings"), "\n".join(lines))

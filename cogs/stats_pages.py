"""Embeds for /tienlen history, /tienlen stats, /chips and /leaderboard."""

from __future__ import annotations

import discord

import db
from cogs.presenter import COLOUR
from i18n import number, t

__all__ = ["history_embed", "stats_embed", "leaderboard_embed"]


def history_embed(games: list[db.GameSummary], lang: str) -> discord.Embed:
    embed = discord.Embed(title=t(lang, "history.title"), colour=COLOUR)
    if not games:
        embed.description = t(lang, "history.empty")
        return embed
    for game in games[:10]:
        seats = sorted(game.seats, key=lambda seat: (seat.place is None, seat.place or 0))
        lines = []
        for seat in seats:
            place = f"{seat.place + 1}." if seat.place is not None else "–"
            chips = f" ({number(seat.chips, lang, signed=True)})" if seat.chips is not None else ""
            lines.append(f"{place} {seat.name}{chips}")
        when = f"<t:{int(game.started_at.timestamp())}:R>"
        name = t(lang, "history.game", number=game.game_id, rules=t(lang, f"preset.{game.rules}"), bet=game.bet)
        status = "" if game.status == "finished" else " · " + t(lang, f"history.{game.status}")
        embed.add_field(name=name[:256], value=(f"{when}{status}\n" + "\n".join(lines))[:1024], inline=False)
    return embed


def stats_embed(stats: db.PlayerStats | None, name: str, lang: str) -> discord.Embed:
    embed = discord.Embed(title=t(lang, "stats.title", name=name), colour=COLOUR)
    if stats is None:
        embed.description = t(lang, "stats.none")
        return embed
    embed.add_field(name=t(lang, "stats.balance"), value=f"{number(stats.balance, lang)} (#{stats.chips_rank})")
    embed.add_field(name=t(lang, "stats.games"), value=number(stats.games_played, lang))
    embed.add_field(name=t(lang, "stats.firsts"), value=number(stats.firsts, lang))
    embed.add_field(name=t(lang, "stats.win_rate"), value=f"{stats.win_rate:.0%} ({number(stats.wins, lang)})")
    embed.add_field(name=t(lang, "stats.chips_won"), value=f"+{number(stats.chips_won, lang)} / -{number(stats.chips_lost, lang)}")
    embed.add_field(name=t(lang, "stats.chops"), value=t(lang, "stats.chops_value", made=stats.chops_made,
                                                          suffered=stats.chops_suffered))
    return embed


def leaderboard_embed(board: db.Leaderboard, by: str, lang: str, caller_id: int) -> discord.Embed:
    embed = discord.Embed(title=t(lang, "leaderboard.title", by=t(lang, f"leaderboard.by_{by}")), colour=COLOUR)
    if not board.rows:
        embed.description = t(lang, "leaderboard.empty")
        return embed

    def value(row: db.LeaderRow) -> str:
        return f"{row.value:.0%}" if by == "winrate" else number(int(row.value), lang)

    lines = [f"**{row.rank}.** <@{row.user_id}> — {value(row)}" for row in board.rows]
    embed.description = "\n".join(lines)
    if board.caller is not None and all(row.user_id != caller_id for row in board.rows):
        embed.add_field(name=t(lang, "leaderboard.you"), value=f"**{board.caller.rank}.** {value(board.caller)}")
    return embed

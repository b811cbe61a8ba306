"""Embeds for /tienlen history, /tienlen stats, /tienlen profile, /chips and /leaderboard."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import discord

import db
from cogs.presenter import COLOUR
from i18n import number, t
from tienlen.ratings import PROVISIONAL_GAMES, Rating

__all__ = ["history_embed", "stats_embed", "leaderboard_embed", "rating_board_embed", "rating_text",
           "profile_message", "PROFILE_IMAGE", "PROFILE_GAMES"]

PROFILE_IMAGE = "profile.jpg"
PROFILE_GAMES = 50
"""Rated games the profile's charts span."""


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


def rating_text(rating: db.PlayerRating, lang: str) -> str:
    """"1,043 (#3)", with a provisional mark for fewer than PROVISIONAL_GAMES rated games."""
    shown = number(Rating(mu=rating.mu, sigma=rating.sigma).shown, lang)
    if rating.games < PROVISIONAL_GAMES:
        return t(lang, "stats.rating_provisional", rating=shown, rank=rating.rank, games=rating.games)
    return t(lang, "stats.rating_value", rating=shown, rank=rating.rank)


def stats_embed(stats: db.PlayerStats | None, name: str, lang: str,
                rating: db.PlayerRating | None = None) -> discord.Embed:
    embed = discord.Embed(title=t(lang, "stats.title", name=name), colour=COLOUR)
    if stats is None:
        embed.description = t(lang, "stats.none")
        return embed
    if rating is not None:
        embed.add_field(name=t(lang, "stats.rating"), value=rating_text(rating, lang))
        embed.add_field(name=t(lang, "stats.peak"), value=number(rating.peak, lang))
        embed.add_field(name=t(lang, "stats.rated_games"), value=number(rating.games, lang))
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


def rating_board_embed(board: db.RatingBoard, lang: str, caller_id: int) -> discord.Embed:
    """The rating leaderboard: the top established players with their games, the
    provisional ones apart, and the caller's own rank."""
    title = t(lang, "leaderboard.title", by=t(lang, "leaderboard.by_rating"))
    embed = discord.Embed(title=title, colour=COLOUR)
    if not board.rows and not board.provisional:
        embed.description = t(lang, "leaderboard.no_ratings")
        return embed

    def line(row: db.LeaderRow) -> str:
        games = t(lang, "count.games", count=row.games_played)
        return f"**{row.rank}.** <@{row.user_id}> — {number(int(row.value), lang)} · {games}"

    embed.description = "\n".join(line(row) for row in board.rows) or t(lang, "leaderboard.none_established",
                                                                        games=PROVISIONAL_GAMES)
    if board.provisional:
        embed.add_field(name=t(lang, "leaderboard.provisional", games=PROVISIONAL_GAMES),
                        value="\n".join(line(row) for row in board.provisional)[:1024], inline=False)
    listed = {row.user_id for row in [*board.rows, *board.provisional]}
    if board.caller is not None and caller_id not in listed:
        you = board.caller
        text = f"**{you.rank}.** {number(int(you.value), lang)} · {t(lang, 'count.games', count=you.games_played)}"
        if you.games_played < PROVISIONAL_GAMES:
            text += " · " + t(lang, "leaderboard.provisional_mark")
        embed.add_field(name=t(lang, "leaderboard.you"), value=text, inline=False)
    return embed


async def profile_message(database: db.Database, guild_id: int, user_id: int, name: str, lang: str) -> dict[str, Any]:
    """The /tienlen profile answer: an embed with the picture of the player's rating
    and chips over their last rated games, and their totals."""
    stats = await db.player_stats(database, guild_id, user_id)
    rating = await db.player_rating(database, guild_id, user_id)
    history = await db.rated_games(database, guild_id, user_id, limit=PROFILE_GAMES)
    best = await db.best_game(database, guild_id, user_id)
    ratings = [Rating(mu=game.mu_after, sigma=game.sigma_after).shown for game in history]
    balances = [game.balance_after for game in history]
    lines = _profile_lines(stats, rating, best, lang)
    data = await asyncio.to_thread(_profile_picture, name, ratings, balances, lines, lang)
    embed = discord.Embed(title=t(lang, "profile.title", name=name), colour=COLOUR)
    embed.set_image(url=f"attachment://{PROFILE_IMAGE}")
    return {"embed": embed, "files": [discord.File(io.BytesIO(data), filename=PROFILE_IMAGE)]}


def _profile_lines(stats: db.PlayerStats | None, rating: db.PlayerRating | None, best: tuple[int, int] | None,
                   lang: str) -> list[tuple[str, str]]:
    none = t(lang, "profile.none")
    shown = none
    if rating is not None:
        value = number(Rating(mu=rating.mu, sigma=rating.sigma).shown, lang)
        shown = (t(lang, "profile.provisional", rating=value) if rating.games < PROVISIONAL_GAMES
                 else f"{value} (#{rating.rank})")
    best_text = (t(lang, "profile.best_value", number=best[0], chips=number(best[1], lang))
                 if best is not None else none)
    return [
        (t(lang, "profile.rating"), shown),
        (t(lang, "profile.peak"), number(rating.peak, lang) if rating is not None else none),
        (t(lang, "profile.games"), number(stats.games_played if stats else 0, lang)),
        (t(lang, "profile.firsts"), number(stats.firsts if stats else 0, lang)),
        (t(lang, "profile.chops"), f"{stats.chops_made if stats else 0} / {stats.chops_suffered if stats else 0}"),
        (t(lang, "profile.best"), best_text),
    ]


def _profile_picture(name: str, ratings: list[int], balances: list[int | None], lines: list[tuple[str, str]],
                     lang: str) -> bytes:
    from render.profile import render_profile

    return render_profile(name=name, ratings=ratings, balances=balances, lines=lines,
                          rating_title=t(lang, "profile.rating_chart", count=len(ratings)),
                          balance_title=t(lang, "profile.chips_chart"), empty_text=t(lang, "profile.no_games"),
                          number=lambda value: number(value, lang))

"""/tienlen history, /tienlen stats, /tienlen profile and /leaderboard, as layouts.

Pure over what :mod:`db` returns; the profile's picture is drawn by
:func:`profile_picture` (CPU-bound: the caller runs it off the event loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from discord import ui

import db
from cogs.layouts.style import accent_for, block, heading, panel, picture, text
from i18n import number, t
from tienlen.ratings import PROVISIONAL_GAMES, Rating

__all__ = ["history_layout", "stats_layout", "leaderboard_layout", "rating_board_layout", "rating_text",
           "profile_layout", "profile_picture", "Profile", "PROFILE_IMAGE", "PROFILE_GAMES"]

ACCENT = accent_for(None)

PROFILE_IMAGE = "profile.jpg"
PROFILE_GAMES = 50
"""Rated games the profile's charts span."""


def history_layout(games: list[db.GameSummary], lang: str) -> ui.LayoutView:
    """The channel's last games: places and chips of each."""
    if not games:
        return panel(ACCENT, [heading(t(lang, "history.title"), t(lang, "history.empty"))])
    items: list[ui.Item] = [heading(t(lang, "history.title"))]
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
        items.append(block(name, f"{when}{status}\n" + "\n".join(lines)))
    return panel(ACCENT, items)


def rating_text(rating: db.PlayerRating, lang: str) -> str:
    """"1,043 (#3)", with a provisional mark for fewer than PROVISIONAL_GAMES rated games."""
    shown = number(Rating(mu=rating.mu, sigma=rating.sigma).shown, lang)
    if rating.games < PROVISIONAL_GAMES:
        return t(lang, "stats.rating_provisional", rating=shown, rank=rating.rank, games=rating.games)
    return t(lang, "stats.rating_value", rating=shown, rank=rating.rank)


def stats_layout(stats: db.PlayerStats | None, name: str, lang: str,
                 rating: db.PlayerRating | None = None) -> ui.LayoutView:
    """A player's rating (rank, peak), chips, games, wins and chops."""
    title = t(lang, "stats.title", name=name)
    if stats is None:
        return panel(ACCENT, [heading(title, t(lang, "stats.none"))])
    facts: list[tuple[str, str]] = []
    if rating is not None:
        facts += [(t(lang, "stats.rating"), rating_text(rating, lang)),
                  (t(lang, "stats.peak"), number(rating.peak, lang)),
                  (t(lang, "stats.rated_games"), number(rating.games, lang))]
    facts += [
        (t(lang, "stats.balance"), f"{number(stats.balance, lang)} (#{stats.chips_rank})"),
        (t(lang, "stats.games"), number(stats.games_played, lang)),
        (t(lang, "stats.firsts"), number(stats.firsts, lang)),
        (t(lang, "stats.win_rate"), f"{stats.win_rate:.0%} ({number(stats.wins, lang)})"),
        (t(lang, "stats.chips_won"), f"+{number(stats.chips_won, lang)} / -{number(stats.chips_lost, lang)}"),
        (t(lang, "stats.chops"), t(lang, "stats.chops_value", made=stats.chops_made, suffered=stats.chops_suffered)),
    ]
    return panel(ACCENT, [heading(title), text("\n".join(f"**{label}:** {value}" for label, value in facts))])


def leaderboard_layout(board: db.Leaderboard, by: str, lang: str, caller_id: int) -> ui.LayoutView:
    """This server's top 10 by chips, wins or win rate, and the caller's own rank."""
    title = t(lang, "leaderboard.title", by=t(lang, f"leaderboard.by_{by}"))
    if not board.rows:
        return panel(ACCENT, [heading(title, t(lang, "leaderboard.empty"))])

    def value(row: db.LeaderRow) -> str:
        return f"{row.value:.0%}" if by == "winrate" else number(int(row.value), lang)

    items: list[ui.Item] = [heading(title), text("\n".join(f"**{row.rank}.** <@{row.user_id}> — {value(row)}"
                                                            for row in board.rows))]
    if board.caller is not None and all(row.user_id != caller_id for row in board.rows):
        items.append(block(t(lang, "leaderboard.you"), f"**{board.caller.rank}.** {value(board.caller)}"))
    return panel(ACCENT, items)


def rating_board_layout(board: db.RatingBoard, lang: str, caller_id: int) -> ui.LayoutView:
    """The rating leaderboard: the top established players with their games, the
    provisional ones apart, and the caller's own rank."""
    title = t(lang, "leaderboard.title", by=t(lang, "leaderboard.by_rating"))
    if not board.rows and not board.provisional:
        return panel(ACCENT, [heading(title, t(lang, "leaderboard.no_ratings"))])

    def line(row: db.LeaderRow) -> str:
        games = t(lang, "count.games", count=row.games_played)
        return f"**{row.rank}.** <@{row.user_id}> — {number(int(row.value), lang)} · {games}"

    items: list[ui.Item] = [heading(title), text("\n".join(line(row) for row in board.rows)
                                                  or t(lang, "leaderboard.none_established", games=PROVISIONAL_GAMES))]
    if board.provisional:
        items.append(block(t(lang, "leaderboard.provisional", games=PROVISIONAL_GAMES),
                           "\n".join(line(row) for row in board.provisional)))
    listed = {row.user_id for row in [*board.rows, *board.provisional]}
    if board.caller is not None and caller_id not in listed:
        you = board.caller
        mine = f"**{you.rank}.** {number(int(you.value), lang)} · {t(lang, 'count.games', count=you.games_played)}"
        if you.games_played < PROVISIONAL_GAMES:
            mine += " · " + t(lang, "leaderboard.provisional_mark")
        items.append(block(t(lang, "leaderboard.you"), mine))
    return panel(ACCENT, items)


@dataclass(frozen=True)
class Profile:
    """What /tienlen profile shows of a player, as read from the database."""

    name: str
    stats: db.PlayerStats | None
    rating: db.PlayerRating | None
    ratings: list[int]
    """The shown rating after each of the last rated games, oldest first."""
    balances: list[int | None]
    best: tuple[int, int] | None


def profile_layout(profile: Profile, lang: str) -> ui.LayoutView:
    """The profile: its picture (:data:`PROFILE_IMAGE`) and the totals as text too."""
    lines = _profile_lines(profile.stats, profile.rating, profile.best, lang)
    return panel(ACCENT, [heading(t(lang, "profile.title", name=profile.name)),
                          picture(PROFILE_IMAGE, description=t(lang, "profile.title", name=profile.name)),
                          text("\n".join(f"**{label}:** {value}" for label, value in lines))])


def profile_picture(profile: Profile, lang: str) -> bytes:
    """The profile's charts and totals as a picture (CPU-bound: run it off the event loop)."""
    lines = _profile_lines(profile.stats, profile.rating, profile.best, lang)
    return _profile_picture(profile.name, profile.ratings, profile.balances, lines, lang)


def _profile_lines(stats: db.PlayerStats | None, rating: db.PlayerRating | None, best: tuple[int, int] | None,
                   lang: str) -> list[tuple[str, str]]:
    none = t(lang, "profile.none")
    shown = none
    if rating is not None:
        value = number(Rating(mu=rating.mu, sigma=rating.sigma).shown, lang)
        shown = (t(lang, "profile.provisional", rating=value, rank=rating.rank) if rating.games < PROVISIONAL_GAMES
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

"""Profile pictures: one fixed size for 0..50 games, flat series, gaps, odd names."""

from __future__ import annotations

import random

import pytest
from PIL import Image

import render
from render import profile
from tests.render.test_render_replay import decode

SIZE_LIMIT = 250 * 1024
LINES = [("Games", "50"), ("First places", "14 (28%)"), ("Chops made", "6"), ("Chops suffered", "3"),
         ("Best game", "+4,200"), ("Rating", "1,612"), ("Peak", "1,655")]


def draw(ratings, balances, *, name: str = "Nguyễn Văn Tường", lines=LINES) -> Image.Image:
    picture = render.render_profile(name=name, ratings=ratings, balances=balances, lines=lines,
                                    rating_title="Rating (last 50 games)", balance_title="Chips",
                                    empty_text="No rated games yet")
    assert len(picture) < SIZE_LIMIT
    image = decode(picture)
    assert image.size == render.PROFILE_SIZE
    return image


def walk(games: int, seed: int = 1) -> tuple[list[int], list[int | None]]:
    rng = random.Random(seed)
    ratings, balances = [1500], [10_000]
    for _ in range(games - 1):
        ratings.append(ratings[-1] + rng.randint(-40, 40))
        balances.append(balances[-1] + rng.randint(-2_000, 2_000))
    return ratings[:games], balances[:games]


def _near(pixel: tuple[int, int, int], ink: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 40 for a, b in zip(pixel, ink))


def ink_pixels(image: Image.Image, ink: tuple[int, int, int], chart: str) -> int:
    """Pixels of the line's colour in a chart's plot, below its title line (layout of profile.py)."""
    width, height = render.PROFILE_SIZE
    panel_top = profile.MARGIN + profile._TITLE_HEIGHT
    chart_height = (height - profile.MARGIN - panel_top - profile._PANEL_GAP) // 2
    if chart == "balance":
        panel_top += chart_height + profile._PANEL_GAP
    title = profile._INSET + profile._CHART_TITLE_HEIGHT
    right = width - profile.MARGIN - profile._LINES_WIDTH - profile._PANEL_GAP
    box = (0, panel_top + title, right, panel_top + chart_height)
    return sum(_near(pixel, ink) for pixel in image.crop(box).get_flattened_data())


GOLD, BLUE = profile._RATING_INK, profile._BALANCE_INK


@pytest.mark.parametrize("games", [0, 1, 2, 50])
def test_any_number_of_games_gives_the_same_size(games: int) -> None:
    draw(*walk(games))


def test_no_games_draws_no_line_and_one_game_a_dot() -> None:
    none, one, two = draw([], []), draw([1500], [1000]), draw(*walk(2))
    assert ink_pixels(none, GOLD, "rating") == ink_pixels(none, BLUE, "balance") == 0
    assert 10 < ink_pixels(one, GOLD, "rating") < 200 and 10 < ink_pixels(one, BLUE, "balance") < 200
    assert ink_pixels(two, GOLD, "rating") > 3 * ink_pixels(one, GOLD, "rating")


@pytest.mark.parametrize("games", [2, 50])
def test_equal_values_draw_a_flat_line(games: int) -> None:
    image = draw([1500] * games, [0] * games)
    assert ink_pixels(image, GOLD, "rating") > 600  # a 3 px line across the plot
    assert ink_pixels(image, BLUE, "balance") > 600


def test_unknown_balances_leave_a_gap() -> None:
    ratings = [1500] * 50
    known = draw(ratings, [1000] * 50)
    gapped = draw(ratings, [1000] * 20 + [None] * 10 + [1000] * 20)
    assert ink_pixels(gapped, BLUE, "balance") < ink_pixels(known, BLUE, "balance") - 100
    assert ink_pixels(gapped, GOLD, "rating") == ink_pixels(known, GOLD, "rating")


def test_a_lone_known_balance_between_gaps_is_a_dot() -> None:
    ratings = [1500] * 5
    lone = draw(ratings, [1, None, 5, None, 9])
    without = draw(ratings, [1, None, None, None, 9])
    assert ink_pixels(lone, BLUE, "balance") > ink_pixels(without, BLUE, "balance") + 10


@pytest.mark.parametrize("balances", [[None], [None, None], [None] * 49 + [5], [5] + [None] * 49,
                                      [None, 3, None, 4, None]])
def test_sparse_balances_render(balances: list[int | None]) -> None:
    draw(walk(len(balances))[0], balances)


def test_huge_and_negative_numbers_render() -> None:
    draw([-5, 10**12, 0], [-(10**15), None, 10**15])


@pytest.mark.parametrize("name", ["", "👨‍👩‍👧‍👦", "🔥👑🐉", "\x00\x07", "李小龙 Lee", "x" * 500, "word " * 200])
def test_any_name_and_long_lines_render(name: str) -> None:
    lines = [(name, name), ("Games", "1" * 300), ("x" * 300, "7")]
    draw(*walk(3), name=name, lines=lines)


def test_no_lines_and_the_most_lines_render() -> None:
    draw(*walk(5), lines=[])
    draw(*walk(5), lines=[(f"Line {number}", str(number)) for number in range(profile.MAX_LINES)])


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError):
        draw([1, 2], [1])
    with pytest.raises(ValueError):
        draw([1], [1], lines=[("a", "b")] * (profile.MAX_LINES + 1))


def test_same_input_same_picture() -> None:
    assert draw(*walk(50)).tobytes() == draw(*walk(50)).tobytes()

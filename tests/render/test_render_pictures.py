"""Card pictures: every card, hands of 1..13 cards, plays, final hands, size limits."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import render
from render import examples
from render.faces import LARGE
from tienlen.cards import Card, Suit, parse_cards

DECK = [Card.from_index(index) for index in range(52)]
SIZE_LIMIT = 200 * 1024
JPEG_SIGNATURE = b"\xff\xd8\xff"


def decode(png: bytes) -> Image.Image:
    """Fully decode a picture (not just its header), failing the test if it is broken."""
    assert png.startswith(JPEG_SIGNATURE)
    image = Image.open(io.BytesIO(png))
    assert image.format == "JPEG"
    image.load()
    return image.convert("RGB")


hands = st.lists(st.sampled_from(DECK), min_size=1, max_size=13, unique=True)


# --- every card ------------------------------------------------------------

@pytest.mark.parametrize("card", DECK, ids=lambda card: card.code)
def test_every_card_renders_alone(card: Card) -> None:
    play = decode(render.render_play([card]))
    assert play.size == (render.CARD_SIZE[0] + 2 * render.MARGIN,
                         render.CARD_SIZE[1] + 2 * render.MARGIN)
    hand = decode(render.render_hand([card]))
    assert hand.size == render.hand_size(1)


def _corner_index_pixels(card: Card) -> list[tuple[int, int, int]]:
    """Pixels of the rank and small suit in the top-left corner of a lone played card."""
    image = decode(render.render_play([card]))
    left = top = render.MARGIN
    box = (left + 4, top + 4, left + LARGE.strip - 4, top + round(LARGE.height * 0.5))
    return list(image.crop(box).get_flattened_data())


def _is_red(pixel: tuple[int, int, int]) -> bool:
    red, green, blue = pixel
    return red > 150 and green < 90 and blue < 100


def _is_black(pixel: tuple[int, int, int]) -> bool:
    return max(pixel) < 70


@pytest.mark.parametrize("card", DECK, ids=lambda card: card.code)
def test_red_suits_are_red_and_black_suits_black(card: Card) -> None:
    pixels = _corner_index_pixels(card)
    red = sum(map(_is_red, pixels))
    black = sum(map(_is_black, pixels))
    if card.suit.is_red:
        assert red > 200 and black == 0
    else:
        assert black > 200 and red == 0


def test_suit_shapes_differ() -> None:
    """Same rank, four suits: the corner symbols must not be drawn alike."""
    masks = set()
    for suit in Suit:
        pixels = _corner_index_pixels(Card(0, suit))
        masks.add(tuple(_is_red(p) or _is_black(p) for p in pixels))
    assert len(masks) == 4


# --- hands -----------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(hand=hands, data=st.data())
def test_random_hands_decode_and_stay_small(hand: list[Card], data: st.DataObject) -> None:
    selected = data.draw(st.sets(st.sampled_from(hand)))
    playable = data.draw(st.none() | st.sets(st.sampled_from(hand)))
    png = render.render_hand(hand, selected=selected, playable=playable)
    assert len(png) < SIZE_LIMIT
    assert decode(png).size == render.hand_size(len(hand))


def test_width_grows_with_card_count_and_height_does_not_change() -> None:
    sizes = [decode(render.render_hand(DECK[:count])).size for count in range(1, 14)]
    widths = [width for width, _ in sizes]
    assert widths == sorted(set(widths))
    assert len({height for _, height in sizes}) == 1
    assert widths[-1] <= render.MAX_WIDTH


@pytest.mark.parametrize("state", ["plain", "all selected", "all dimmed", "mixed"])
def test_thirteen_card_hands_stay_under_the_limit(state: str) -> None:
    hand = parse_cards("10S 10C 10D 10H JS JC JD QH QS KC KD KH 2H")  # the busiest faces
    options = {
        "plain": {},
        "all selected": {"selected": hand},
        "all dimmed": {"playable": []},
        "mixed": {"selected": hand[:3], "playable": hand[:6]},
    }[state]
    png = render.render_hand(hand, **options)
    assert len(png) < SIZE_LIMIT
    assert decode(png).size == render.hand_size(13)


def test_hand_is_sorted_whatever_the_input_order() -> None:
    hand = parse_cards("2H 3S KD 10C 5H")
    assert render.render_hand(hand) == render.render_hand(sorted(hand))
    assert render.render_hand(hand) == render.render_hand(reversed(hand))


def test_selected_card_is_raised() -> None:
    hand = parse_cards("3S 7D 2H")
    plain = decode(render.render_hand(hand))
    raised = decode(render.render_hand(hand, selected=[hand[1]]))
    # Just above where an unselected card's top edge would be, over the middle card:
    x = render.MARGIN + 2 * LARGE.strip - 6  # right of the rank, so on plain white
    y = render.MARGIN + render.RAISE // 2
    assert min(raised.getpixel((x, y))) > 200  # white card (or gold ring) now there
    assert max(plain.getpixel((x, y))) < 120  # felt
    assert plain.size == raised.size


def test_cards_not_playable_are_dimmed() -> None:
    hand = parse_cards("3S 7D 2H")
    normal = decode(render.render_hand(hand))
    dimmed = decode(render.render_hand(hand, playable=[hand[2]]))
    inside_first_card = (render.MARGIN + 10, render.MARGIN + render.RAISE + LARGE.height - 20)
    inside_last_card = (render.MARGIN + 2 * LARGE.strip + 10, inside_first_card[1])
    assert sum(dimmed.getpixel(inside_first_card)) < sum(normal.getpixel(inside_first_card)) - 60
    assert dimmed.getpixel(inside_last_card) == normal.getpixel(inside_last_card)


def test_selection_and_playable_ignore_cards_not_in_hand() -> None:
    hand = parse_cards("3S 4S")
    assert render.render_hand(hand, selected=parse_cards("2H")) == render.render_hand(hand)
    assert render.render_hand(hand, playable=hand + parse_cards("2H")) == render.render_hand(hand)


def test_empty_hand_renders_a_placeholder() -> None:
    assert decode(render.render_hand([])).width > 0


def test_duplicate_cards_are_rejected() -> None:
    with pytest.raises(ValueError, match="twice"):
        render.render_hand(parse_cards("3S 4S") + parse_cards("3S"))


# --- plays -----------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(play=hands, caption=st.none() | st.text(max_size=80))
def test_random_plays_decode(play: list[Card], caption: str | None) -> None:
    png = render.render_play(play, caption=caption)
    image = decode(png)
    assert len(png) < SIZE_LIMIT
    assert image.width <= render.MAX_WIDTH


def test_caption_adds_a_line_above_the_cards() -> None:
    cards = parse_cards("9S 9C")
    without = decode(render.render_play(cards))
    with_caption = decode(render.render_play(cards, caption="Nguyễn Văn Tường: đôi 9"))
    assert with_caption.height > without.height
    assert with_caption.width >= without.width


def test_long_caption_is_cut_to_the_maximum_width() -> None:
    image = decode(render.render_play(parse_cards("3S"), caption="Chặt heo! " * 40))
    assert image.width == render.MAX_WIDTH


def test_empty_play_is_rejected() -> None:
    with pytest.raises(ValueError):
        render.render_play([])


# --- end of game -----------------------------------------------------------

FINAL_ROWS = [
    ("Nguyễn Văn Tường", []),
    ("🔥👑🐉", parse_cards("3S 4S 2H")),
    ("李小龙 Lee", DECK[-13:]),
    ("Bảo Ngọc\nhas a\tvery long name indeed, far too long to fit", parse_cards("KD")),
]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_final_hands_render_for_two_to_four_players(players: int) -> None:
    png = render.render_final_hands(FINAL_ROWS[:players])
    image = decode(png)
    assert len(png) < SIZE_LIMIT
    assert image.height > players * render.SMALL_CARD_SIZE[1]


def test_final_hands_height_grows_with_players() -> None:
    heights = [decode(render.render_final_hands(FINAL_ROWS[:count])).height for count in (2, 3, 4)]
    assert heights == sorted(set(heights))


@pytest.mark.parametrize("name", ["", "   ", "\u200d\ufe0f", "\x00\x07", "👨‍👩‍👧‍👦", "ﷺ", "ﾃｽﾄ",
                                  "a\u0301\u0323", "\U0010fffd", "Z̷̢a̸l̵g̶o̸", "x" * 500])
def test_any_name_renders(name: str) -> None:
    decode(render.render_final_hands([(name, parse_cards("3S")), ("Minh", [])]))


def test_no_players_is_rejected() -> None:
    with pytest.raises(ValueError):
        render.render_final_hands([])


# --- caching, threads, examples --------------------------------------------

def test_renders_from_many_threads_match_serial_renders() -> None:
    jobs = [DECK[start:start + 13] for start in range(0, 39, 3)]
    serial = [render.render_hand(hand) for hand in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(render.render_hand, jobs))
        finals = list(pool.map(render.render_final_hands, [FINAL_ROWS] * 8))
    assert parallel == serial
    assert len(set(finals)) == 1


def test_warm_up_then_render() -> None:
    render.warm_up()
    decode(render.render_hand(DECK[:13]))


def test_examples_regenerate(tmp_path) -> None:
    written = examples.write_examples(tmp_path)
    assert {path.name for path in written} >= {"hand-example.jpg", "final-example.jpg"}
    for path in written:
        decode(path.read_bytes())


def test_readme_hand_example_is_current() -> None:
    """docs/images/hand-example.jpg must be what the code draws today."""
    shipped = examples.DEFAULT_FOLDER / "hand-example.jpg"
    assert shipped.is_file(), "run: python -m render.examples"
    current = decode(render.render_hand(examples.HAND, selected=examples.SELECTED,
                                        playable=examples.PLAYABLE))
    assert decode(shipped.read_bytes()).tobytes() == current.tobytes(), \
        "drawing changed: run python -m render.examples and commit docs/images"

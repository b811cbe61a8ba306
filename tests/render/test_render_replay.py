"""Replay step pictures: fixed sizes, odd names, the acting seat, exactly the cards given."""

from __future__ import annotations

import dataclasses
import io
import random
from collections import Counter

import pytest
from PIL import Image

import render
from render import pictures, replay
from render.replay import ReplaySeat, render_replay_step
from tienlen.cards import Card, parse_cards

DECK = [Card.from_index(index) for index in range(52)]
SIZE_LIMIT = 250 * 1024
GOLD = (255, 201, 40)


def decode(picture: bytes) -> Image.Image:
    assert picture.startswith(b"\xff\xd8\xff")
    image = Image.open(io.BytesIO(picture))
    assert image.format == "JPEG"
    image.load()
    return image.convert("RGB")


def random_step(rng: random.Random, seats: int) -> tuple[list[ReplaySeat], list[Card] | None]:
    """A deck split into a top play (or none) and ``seats`` hands of random sizes."""
    deck = rng.sample(DECK, 52)
    top = deck[:rng.randint(0, 6)] or None
    rest = deck[len(top or ()):]
    hands = []
    for seat in range(seats):
        count = rng.randint(0, 13)
        hands.append(ReplaySeat(f"Seat {seat}", rest[:count], rng.choice(["", "passed", "1st"]),
                                acting=seat == 0))
        rest = rest[count:]
    return hands, top


SEATS = [
    ReplaySeat("Nguyễn Văn Tường", parse_cards("3S 4C 6D 8H 10S JC QD KH AS 2C"), "passed"),
    ReplaySeat("Minh 🔥", [], "1st"),
    ReplaySeat("Bảo Ngọc\nhas a\tvery long name indeed, far too long to fit " * 5,
               parse_cards("5C 6C 7D 9D 9H JS JH QH KC AH 2S 2D 3H"), "bỏ lượt " * 20, acting=True),
    ReplaySeat("李小龙 Lee", parse_cards("8D KD")),
]


# --- sizes -----------------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 3, 4])
def test_size_depends_only_on_the_number_of_seats(seats: int) -> None:
    rng = random.Random(seats)
    steps = [random_step(rng, seats) for _ in range(6)]
    steps += [(SEATS[:seats], None), (SEATS[:seats], parse_cards("7S 8S 9S")),
              ([ReplaySeat("", []) for _ in range(seats)], DECK[:13])]
    for hands, top in steps:
        picture = render_replay_step(hands, top=top, caption="12/48 · An: 7♠ 8♠ 9♠ " * (seats - 1))
        assert len(picture) < SIZE_LIMIT
        assert decode(picture).size == render.replay_size(seats)


def test_width_is_that_of_a_full_final_hands_row_and_height_grows_with_seats() -> None:
    full_row = decode(render.render_final_hands([("Minh", DECK[:13])]))
    sizes = [render.replay_size(seats) for seats in (2, 3, 4)]
    assert {width for width, _ in sizes} == {full_row.width}
    heights = [height for _, height in sizes]
    assert heights == sorted(set(heights))


@pytest.mark.parametrize("seats", [0, 1, 5])
def test_two_to_four_seats_only(seats: int) -> None:
    with pytest.raises(ValueError):
        render_replay_step([ReplaySeat("x", []) for _ in range(seats)], top=None, caption="")


# --- exactly the cards given -----------------------------------------------

@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Card]:
    """Every card whose sprite is fetched, from whichever module draws it."""
    cards: list[Card] = []
    original = replay.card_sprite

    def recording(card: Card, *args, **kwargs):
        cards.append(card)
        return original(card, *args, **kwargs)

    for module in (replay, pictures):
        monkeypatch.setattr(module, "card_sprite", recording)
    return cards


@pytest.mark.parametrize("seed", range(12))
def test_draws_exactly_the_cards_given(drawn: list[Card], seed: int) -> None:
    rng = random.Random(seed)
    hands, top = random_step(rng, rng.randint(2, 4))
    render_replay_step(hands, top=top, caption="step")
    given = [card for seat in hands for card in seat.cards] + list(top or ())
    assert Counter(drawn) == Counter(given)  # each card once, nothing else


def test_no_card_is_drawn_when_all_hands_are_empty_and_a_round_starts(drawn: list[Card]) -> None:
    render_replay_step([ReplaySeat("A", []), ReplaySeat("B", [])], top=None, caption="")
    assert drawn == []


@pytest.mark.parametrize("top", [parse_cards("3S"), parse_cards("3C")])
def test_a_card_in_two_places_is_rejected(top: list[Card]) -> None:
    seats = [ReplaySeat("A", parse_cards("3S 4S")), ReplaySeat("B", parse_cards("3C"))]
    with pytest.raises(ValueError, match="twice"):
        render_replay_step(seats, top=top, caption="")
    with pytest.raises(ValueError, match="twice"):
        render_replay_step([ReplaySeat("A", parse_cards("3S")), ReplaySeat("B", parse_cards("3S"))],
                           top=None, caption="")


def test_more_than_thirteen_cards_in_a_seat_is_rejected() -> None:
    with pytest.raises(ValueError, match="13"):
        render_replay_step([ReplaySeat("A", DECK[:14]), ReplaySeat("B", [])], top=None, caption="")


def test_card_order_and_an_empty_top_do_not_matter() -> None:
    hand = parse_cards("2H 3S KD 10C 5H")
    forward = render_replay_step([ReplaySeat("A", hand), ReplaySeat("B", [])], top=None, caption="c")
    backward = render_replay_step([ReplaySeat("A", hand[::-1]), ReplaySeat("B", [])], top=[], caption="c")
    assert forward == backward


# --- names, statuses, the acting seat ----------------------------------------

@pytest.mark.parametrize("name", ["", "   ", "\u200d\ufe0f", "\x00\x07", "👨‍👩‍👧‍👦", "🔥👑🐉", "ﷺ",
                                  "a\u0301\u0323", "\U0010fffd", "Z̷̢a̸l̵g̶o̸", "x" * 500, "word " * 200])
def test_any_name_status_and_caption_render(name: str) -> None:
    seats = [ReplaySeat(name, parse_cards("3S"), name), ReplaySeat("Minh", [], acting=True)]
    image = decode(render_replay_step(seats, top=parse_cards("4S 4C"), caption=name))
    assert image.size == render.replay_size(2)


def _acting_bar_is_gold(image: Image.Image, seat: int) -> bool:
    """The gold bar at the left edge of a seat's row (see replay._draw_acting)."""
    row_height = render.SMALL_CARD_SIZE[1] + pictures._ROW_GAP
    y = replay._rows_top() + seat * row_height + render.SMALL_CARD_SIZE[1] // 2
    red, green, blue = image.getpixel((render.MARGIN // 2 + 2, y))
    return red > 200 and green > 150 and blue < 110


@pytest.mark.parametrize("acting", [None, 0, 1, 2, 3])
def test_only_the_acting_seat_is_highlighted(acting: int | None) -> None:
    seats = [dataclasses.replace(seat, acting=number == acting) for number, seat in enumerate(SEATS)]
    image = decode(render_replay_step(seats, top=None, caption=""))
    assert [_acting_bar_is_gold(image, number) for number in range(4)] == \
        [number == acting for number in range(4)]


def test_new_round_and_a_play_differ_but_keep_the_size() -> None:
    empty = decode(render_replay_step(SEATS, top=None, caption="x"))
    played = decode(render_replay_step(SEATS, top=parse_cards("7S 8S 9S"), caption="x"))
    assert empty.size == played.size
    assert empty.tobytes() != played.tobytes()


def test_seats_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        SEATS[0].name = "other"  # type: ignore[misc]

"""Card pictures for the bot, drawn with Pillow (no image or font downloads).

>>> from tienlen.cards import parse_cards
>>> picture = render_hand(parse_cards("3S 4S 5H 10D QC 2H"))
>>> picture[:3] == b"\\xff\\xd8\\xff"  # a JPEG (see EXTENSION)
True

Modules: :mod:`render.pictures` lays out and encodes the pictures,
:mod:`render.faces` draws and caches card sprites, :mod:`render.suits` the
vector suit symbols, :mod:`render.text` fonts and safe text for user names,
:mod:`render.replay` a step of a finished game's replay, :mod:`render.profile`
a player's profile card with their rating and chips over time,
:mod:`render.examples` regenerates the README images.
"""

from .faces import LARGE, SMALL, CardGeometry
from .pictures import (
    EXTENSION,
    MARGIN,
    MAX_WIDTH,
    RAISE,
    hand_size,
    render_final_hands,
    render_hand,
    render_play,
)
from .pictures import warm_up as _warm_up_cards
from .profile import PROFILE_SIZE, render_profile
from .replay import ReplaySeat, render_replay_step, replay_size

CARD_SIZE: tuple[int, int] = LARGE.size
"""Width and height in px of a card in hand and play pictures."""

SMALL_CARD_SIZE: tuple[int, int] = SMALL.size
"""Width and height in px of a card in the end-of-game picture."""


def warm_up() -> None:
    """Draw every cached piece now (about 0.2 s), e.g. at bot start-up, so that no
    player waits for a first-time card sprite or font size."""
    _warm_up_cards()
    render_replay_step([ReplaySeat("Nguyễn", ()), ReplaySeat("Minh", ())], top=None, caption="0/0")
    render_profile(name="Nguyễn", ratings=[1000, 1010], balances=[1000, 1100], lines=[("a", "1")],
                   rating_title="a", balance_title="b", empty_text="c")

__all__ = [
    "render_hand",
    "render_play",
    "render_final_hands",
    "render_replay_step",
    "ReplaySeat",
    "replay_size",
    "render_profile",
    "PROFILE_SIZE",
    "warm_up",
    "hand_size",
    "CARD_SIZE",
    "EXTENSION",
    "SMALL_CARD_SIZE",
    "CardGeometry",
    "MARGIN",
    "MAX_WIDTH",
    "RAISE",
]

"""Cards: the 52 immutable :class:`Card` values, parsing and formatting.

A card is identified by an index 0..51, ``rank * 4 + suit``, so that comparing
indices compares cards the way Tiến lên does: rank first (3 lowest, 2 highest),
then suit (♠ < ♣ < ♦ < ♥).  Sets of cards are held internally as 52-bit integer
masks (bit ``i`` set = card ``i`` present); :func:`mask_of` and :func:`cards_of`
convert.

>>> parse_cards("3S 10h A♦ 2C")
[Card('3S'), Card('10H'), Card('AD'), Card('2C')]
>>> format_cards(parse_cards("2h 3s"))
'3♠ 2♥'
>>> Card.parse("3S") < Card.parse("3C") < Card.parse("4S")
True
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Iterable, Iterator, Sequence

__all__ = [
    "Rank",
    "Suit",
    "Card",
    "InvalidCardError",
    "parse_cards",
    "format_cards",
    "mask_of",
    "cards_of",
    "FULL_DECK",
]


class InvalidCardError(ValueError):
    """A card could not be parsed, or the same card was given twice.

    ``token`` is the offending piece of the input text; ``reason`` is
    ``"not_a_card"`` or ``"twice"``.
    """

    def __init__(self, message: str, token: str, reason: str = "not_a_card") -> None:
        super().__init__(message)
        self.token = token
        self.reason = reason


class Suit(IntEnum):
    """Suits, low to high: bích ♠ < chuồn ♣ < rô ♦ < cơ ♥."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        return "SCDH"[self]

    @property
    def symbol(self) -> str:
        return "♠♣♦♥"[self]

    @property
    def is_red(self) -> bool:
        return self >= Suit.DIAMONDS


class Rank(IntEnum):
    """Ranks, low to high: 3 4 5 6 7 8 9 10 J Q K A 2."""

    THREE = 0
    FOUR = 1
    FIVE = 2
    SIX = 3
    SEVEN = 4
    EIGHT = 5
    NINE = 6
    TEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10
    ACE = 11
    TWO = 12

    @property
    def label(self) -> str:
        return _RANK_LABELS[self]


_RANK_LABELS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
_RANK_BY_TEXT = {label: rank for rank, label in enumerate(_RANK_LABELS)}
_RANK_BY_TEXT["T"] = Rank.TEN
_SUIT_BY_TEXT = {
    "S": 0, "C": 1, "D": 2, "H": 3,
    "♠": 0, "♣": 1, "♦": 2, "♥": 3,
    "♤": 0, "♧": 1, "♢": 2, "♡": 3,
}
_CARD_RE = re.compile(r"(10|[2-9TJQKA])([SCDH♠♣♦♥♤♧♢♡])", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;]+")


class Card:
    """One playing card; there are exactly 52 instances, compared by value.

    >>> Card(Rank.TWO, Suit.HEARTS)
    Card('2H')
    >>> Card.parse("10♠").index, Card.from_index(51)
    (28, Card('2H'))
    """

    __slots__ = ("index", "rank", "suit", "mask", "code", "symbol")

    index: int
    rank: Rank
    suit: Suit
    mask: int
    code: str
    symbol: str

    def __new__(cls, rank: int, suit: int) -> "Card":
        if not (0 <= rank <= 12 and 0 <= suit <= 3):
            raise InvalidCardError(f"no such card: rank {rank}, suit {suit}", f"{rank},{suit}")
        return _DECK[rank * 4 + suit]

    @classmethod
    def _create(cls, index: int) -> "Card":
        card = object.__new__(cls)
        rank, suit = Rank(index >> 2), Suit(index & 3)
        for name, value in (
            ("index", index),
            ("rank", rank),
            ("suit", suit),
            ("mask", 1 << index),
            ("code", rank.label + suit.letter),
            ("symbol", rank.label + suit.symbol),
        ):
            object.__setattr__(card, name, value)
        return card

    @staticmethod
    def from_index(index: int) -> "Card":
        """The card with index ``rank * 4 + suit`` (0 = 3♠ … 51 = 2♥)."""
        return _DECK[index]

    @staticmethod
    def parse(token: str) -> "Card":
        """One card from text such as ``"10H"``, ``"t♥"`` or ``"as"``."""
        match = _CARD_RE.fullmatch(token.strip())
        if not match:
            raise InvalidCardError(f"not a card: {token!r}", token)
        return _card_from_match(match)

    @property
    def is_red(self) -> bool:
        return self.suit >= 2

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self):
        return (Card.from_index, (self.index,))

    def __repr__(self) -> str:
        return f"Card('{self.code}')"

    def __str__(self) -> str:
        return self.symbol

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index

    def __le__(self, other: "Card") -> bool:
        return self.index <= other.index

    def __gt__(self, other: "Card") -> bool:
        return self.index > other.index

    def __ge__(self, other: "Card") -> bool:
        return self.index >= other.index


_DECK: tuple[Card, ...] = tuple(Card._create(i) for i in range(52))
FULL_DECK: int = (1 << 52) - 1


def _card_from_match(match: re.Match[str]) -> Card:
    rank = _RANK_BY_TEXT[match.group(1).upper()]
    suit = _SUIT_BY_TEXT[match.group(2).upper()]
    return _DECK[rank * 4 + suit]


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas, in the order given.

    Accepts ``3S``, ``3♠``, lower case, and ``T`` or ``10`` for ten; cards may
    also be written together (``3s4s5s``).  Raises :class:`InvalidCardError`
    naming the bad token for anything else, or for a card given twice.

    >>> parse_cards("3s4s5s")
    [Card('3S'), Card('4S'), Card('5S')]
    >>> parse_cards("3S 1H")
    Traceback (most recent call last):
    ...
    tienlen.cards.InvalidCardError: not a card: '1H'
    """
    cards: list[Card] = []
    seen = 0
    for token in _SEPARATORS.split(text.strip()):
        if not token:
            continue
        position = 0
        while position < len(token):
            match = _CARD_RE.match(token, position)
            if not match:
                raise InvalidCardError(f"not a card: {token!r}", token)
            card = _card_from_match(match)
            if seen & card.mask:
                raise InvalidCardError(f"card given twice: {card.code}", card.code, "twice")
            seen |= card.mask
            cards.append(card)
            position = match.end()
    return cards


def format_cards(cards: Iterable[Card], *, ascii: bool = False, sort: bool = True) -> str:
    """Cards as text, lowest first: ``'3♠ 4♠ 5♥'`` (or ``'3S 4S 5H'`` with ``ascii``)."""
    items = sorted(cards) if sort else list(cards)
    return " ".join(card.code if ascii else card.symbol for card in items)


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of a collection of cards."""
    mask = 0
    for card in cards:
        mask |= card.mask
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards of a bitmask, lowest first."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(_DECK[low.bit_length() - 1])
        mask ^= low
    return out


def iter_indices(mask: int) -> Iterator[int]:
    """Card indices present in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def as_mask(cards: "Sequence[Card] | str | int") -> int:
    """Accept cards as a list, a text or a mask; duplicates raise InvalidCardError."""
    if isinstance(cards, int):
        return cards
    if isinstance(cards, str):
        return mask_of(parse_cards(cards))
    mask = 0
    for card in cards:
        if mask & card.mask:
            raise InvalidCardError(f"card given twice: {card.code}", card.code)
        mask |= card.mask
    return mask

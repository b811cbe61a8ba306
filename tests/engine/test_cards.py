"""Cards: parsing, formatting, ordering and the bad-input errors."""

import pickle

import pytest

from tienlen import Card, InvalidCardError, Rank, Suit, format_cards, parse_cards
from tienlen.cards import FULL_DECK, cards_of, mask_of


def test_parse_plain_codes():
    assert [card.code for card in parse_cards("3S 10H AD 2C")] == ["3S", "10H", "AD", "2C"]


@pytest.mark.parametrize("text", ["3♠ 10♥ A♦ 2♣", "3s 10h ad 2c", "3S TH AD 2C", "3s,10h, ad;2c", "3S10HAD2C"])
def test_parse_accepts_symbols_lower_case_t_and_separators(text):
    assert format_cards(parse_cards(text), ascii=True, sort=False) == "3S 10H AD 2C"


@pytest.mark.parametrize("text, token", [("3S 1H", "1H"), ("3S XX", "XX"), ("11S", "11S"), ("3", "3"), ("3SS", "3SS")])
def test_malformed_card_names_the_token(text, token):
    with pytest.raises(InvalidCardError) as error:
        parse_cards(text)
    assert error.value.token == token
    assert isinstance(error.value, ValueError)


def test_duplicate_card_is_refused():
    with pytest.raises(InvalidCardError) as error:
        parse_cards("3S 4D 3♠")
    assert "twice" in str(error.value)


def test_empty_text_gives_no_cards():
    assert parse_cards("  ") == []


def test_order_is_rank_then_suit():
    deck = [Card.from_index(index) for index in range(52)]
    assert deck[0] == Card(Rank.THREE, Suit.SPADES)
    assert deck[-1] == Card(Rank.TWO, Suit.HEARTS)
    assert Card.parse("10S") > Card.parse("9H")
    assert sorted(deck, key=lambda card: (card.rank, card.suit)) == deck


def test_suit_order_spades_clubs_diamonds_hearts():
    suits = [Card.parse(code).suit for code in ("3S", "3C", "3D", "3H")]
    assert suits == sorted(suits)
    assert [Suit(s).is_red for s in range(4)] == [False, False, True, True]


def test_cards_are_interned_immutable_and_picklable():
    card = Card.parse("QH")
    assert Card(Rank.QUEEN, Suit.HEARTS) is card
    assert pickle.loads(pickle.dumps(card)) is card
    with pytest.raises(AttributeError):
        card.index = 3


def test_masks_round_trip_the_full_deck():
    deck = cards_of(FULL_DECK)
    assert len(deck) == 52
    assert mask_of(deck) == FULL_DECK


def test_format_symbols_sorted_by_default():
    assert format_cards(parse_cards("2H 3S 10D")) == "3♠ 10♦ 2♥"

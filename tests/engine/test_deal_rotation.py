"""The deal hands slot p of the shuffle to seat (dealer + 1 + p) % players:
Game.deal rotates the slots instead of walking rules.deal_order."""

import dataclasses

import pytest

from tienlen import RULESETS, Game
from tienlen.game import _dealt_slots
from tienlen.rules import deal_order


@pytest.mark.parametrize("dealer", range(5))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_follows_deal_order(dealer, players):
    rules = dataclasses.replace(RULESETS["mien-nam"], dealer_seat=dealer)
    for seed in range(25):
        slots = _dealt_slots(seed, players)
        expected = [0] * players
        for position, seat in enumerate(deal_order(rules, players)):
            expected[seat] = slots[position]
        assert [Game.deal(rules, players, seed).hand_mask(seat) for seat in range(players)] == expected

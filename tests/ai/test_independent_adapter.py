"""bench/bench_independent.py's translation layer, without the external player:
card conversion, what the independent seat is told, reply parsing, and the
refused-move fallback with fake external players."""

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from tienlen import RULESETS, Game, parse_cards
from tienlen.ai import play_game
from tienlen.cards import Card, as_mask, iter_indices

_PATH = Path(__file__).resolve().parents[2] / "bench" / "bench_independent.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_independent_under_test", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _mask(text: str) -> int:
    return as_mask(parse_cards(text))


def _reply(mask: int) -> str:
    return "PLAY " + ",".join(str(index) for index in iter_indices(mask))


def _hands(line: str) -> list[int]:
    """The hands of a bridge request (fields 12 and after)."""
    return [0 if text == "-" else sum(1 << int(part) for part in text.split(",")) for text in line.split()[12:]]


# A game where seat 0 goes out on 9S with everyone having played (no cóng): seat 1 then
# has to beat a top whose owner is out.
SMALL = ["3S 9S", "4C 8C 10C", "5D JD", "6H QH"]


def _owner_out_game() -> Game:
    game = Game(RULESETS["mien-nam"], SMALL)
    for seat, card in ((0, "3S"), (1, "4C"), (2, "5D"), (3, "6H"), (0, "9S")):
        game.play(seat, card)
    assert not game.in_play(0) and game.turn == 1 and game.top_owner == 0
    return game


def test_cards_map_one_to_one(bench):
    assert bench.to_external(Card.parse("3S").index) == (0, 0)
    assert bench.to_external(Card.parse("10D").index) == (7, 2)
    assert bench.to_external(Card.parse("2H").index) == (12, 3)
    assert [bench.from_external(*bench.to_external(index)) for index in range(52)] == list(range(52))
    with pytest.raises(ValueError):
        bench.from_external(13, 0)
    mask = _mask("3S 10D KC 2H")
    assert bench.encode_cards(mask) == "0,30,41,51"
    assert bench.decode_cards(bench.encode_cards(mask)) == mask
    assert bench.encode_cards(0) == "-" and bench.decode_cards("-") == 0
    for bad in ("0,0", "52", "x"):
        with pytest.raises(ValueError):
            bench.decode_cards(bad)


def test_replies(bench):
    assert bench.parse_reply("PLAY 0,4,8\n") == 0b100010001
    assert bench.parse_reply("PASS") is None
    for bad in ("ERR NullPointerException: x", "PLAY ", "PLAY 3,3", "hello", None):
        with pytest.raises(bench.ExternalError):
            bench.parse_reply(bad)


def test_the_seat_is_told_only_what_its_view_allows(bench):
    game = Game.deal(RULESETS["mien-nam"], 4, 11)
    view = game.view(game.turn)
    worlds = [bench.build_world(view, random.Random(seed)) for seed in range(6)]
    for world in worlds:
        assert world.seats == (0, 1, 2, 3)
        assert world.hands[view.seat] == view.hand == game.hand_mask(view.seat)
        others = [hand for seat, hand in enumerate(world.hands) if seat != view.seat]
        assert [hand.bit_count() for hand in others] == [13, 13, 13]
        union = 0
        for hand in others:
            assert not union & hand
            union |= hand
        assert union == view.unseen
        assert world.first and world.current == world.previous == view.seat and world.top_kind == "-"
    # A random deal of the unseen cards, not the real one.
    truth = tuple(game.hand_mask(seat) for seat in range(4))
    assert sum(world.hands != truth for world in worlds) >= 5
    assert len({world.hands for world in worlds}) == 6
    line = bench.request_line(worlds[0], 42, iterations=100, max_ms=500, min_ms=500)
    fields = line.split()
    assert fields[:12] == ["MOVE", "42", "500", "500", "100", "4", str(view.seat), str(view.seat), "1", "0", "-", "-"]
    assert _hands(line) == list(worlds[0].hands)


def test_a_top_whose_owner_is_out(bench):
    game = _owner_out_game()
    view = game.view(1)
    world = bench.build_world(view, random.Random(1))
    assert world.seats == (1, 2, 3)
    assert world.hands[0] == _mask("8C 10C")
    assert world.current == 0 and world.previous == 2  # seat 3 stands in for the owner
    assert world.top_kind == "single" and world.top_mask == _mask("9S") and world.passed == 0
    assert not world.first


def test_a_legal_answer_is_played(bench):
    game = _owner_out_game()
    player = bench.IndependentPlayer(lambda line: _reply(_mask("10C")))
    move = player.choose(game.view(1), random.Random(0))
    assert move is not None and move.mask == _mask("10C")
    assert player.stats.asked == player.stats.accepted == 1 and player.stats.refused_total == 0


@pytest.mark.parametrize(
    "transport, reason",
    [
        (lambda line: _reply(_mask("8C")), "single on single"),  # 8C does not beat 9S
        (lambda line: "PLAY 51", "cards not in its hand"),
        (lambda line: "PLAY 1,2", "cards not in its hand"),
        (lambda line: "ERR NullPointerException: null", "crash: NullPointerException: null"),
        (lambda line: "", "crash: unusable answer ''"),
    ],
)
def test_a_refused_answer_passes_when_it_may(bench, transport, reason):
    game = _owner_out_game()
    player = bench.IndependentPlayer(transport)
    assert player.choose(game.view(1), random.Random(0)) is None
    assert player.stats.refused == {reason: 1} and player.stats.accepted == 0


def test_a_refused_lead_plays_the_lowest_legal_combo(bench):
    game = Game(RULESETS["mien-nam"], ["3S 4S 4C 5S 5H 9D", "6C 7C", "8D JD", "10H QH"])
    view = game.view(0)

    def two_pairs(line):  # their engine's "2 đôi thông", 4 cards: no combination for us
        return "PLAY " + ",".join(str(Card.parse(code).index) for code in ("4S", "4C", "5S", "5H"))

    for transport, reason in (
        (lambda line: "PASS", "pass while leading"),
        (lambda line: _reply(_mask("5S 5H")), "opening lead without the required card"),
        (two_pairs, "two consecutive pairs (not a combination here)"),
        (lambda line: _reply(_mask("9D 9H")), "cards not in its hand"),
    ):
        player = bench.IndependentPlayer(transport)
        move = player.choose(view, random.Random(0))
        assert move is not None and move.mask == _mask("3S"), reason
        assert player.stats.refused == {reason: 1}


def test_crashes_and_time_outs_are_counted_and_do_not_stop_a_game(bench):
    calls = []

    def flaky(line):
        calls.append(line)
        if len(calls) % 3 == 0:
            raise bench.ExternalTimeout("slow")
        if len(calls) % 3 == 1:
            raise RuntimeError("boom")
        hand = _hands(line)[int(line.split()[6])]
        return _reply(hand & -hand)  # its lowest card: often not legal

    stats = bench.ExternalStats()
    players = [bench.IndependentPlayer(flaky, stats) for _ in range(4)]
    game = play_game(Game.deal(RULESETS["mien-nam"], 4, 5), players, seed=5)
    assert game.finished
    assert stats.asked == len(calls) > 10
    assert stats.timeouts == len(calls) // 3 and stats.crashes == (len(calls) + 2) // 3
    assert stats.asked == stats.accepted + stats.refused_total
    assert len(stats.latencies) == stats.asked


def test_out_of_turn_chances_are_declined(bench):
    game = Game.deal(RULESETS["mien-nam"], 4, 3)
    other = (game.turn + 1) % 4
    player = bench.IndependentPlayer(lambda line: pytest.fail("asked out of turn"))
    assert player.choose(game.view(other), random.Random(0)) is None
    assert player.stats.declined_out_of_turn == 1 and player.stats.asked == 0

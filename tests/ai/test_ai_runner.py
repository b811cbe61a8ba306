"""The bot's AI runner: hard decisions in a worker process, a bounded pool
that falls back to the normal level instead of queueing."""

import asyncio

from runtime.ai import AiRunner
from tienlen import RULESETS, Game


def _legal_masks(game: Game, seat: int) -> set[int]:
    return {combo.mask for combo in game.legal_plays(seat)}


async def test_hard_decides_a_legal_move_in_a_worker_process() -> None:
    runner = AiRunner(workers=1, budget_ms=30)
    try:
        game = Game.deal(RULESETS["mien-nam"], 4, seed=21)
        for _ in range(12):  # a few moves, so some decisions have a choice
            seat = game.turn
            mask = await runner.decide(game.view(seat), "hard", seed=7)
            if mask is None:
                game.pass_turn(seat)
            else:
                assert mask in _legal_masks(game, seat)
                game.play(seat, mask)
            if game.finished:
                break
    finally:
        runner.close()


async def test_a_busy_pool_falls_back_to_normal_instead_of_queueing() -> None:
    runner = AiRunner(workers=1, budget_ms=20)
    try:
        game = Game.deal(RULESETS["mien-nam"], 4, seed=5)
        view = game.view(game.turn)
        await runner._slots.acquire()  # every worker busy
        mask = await asyncio.wait_for(runner.decide(view, "hard", seed=1), timeout=2)
        runner._slots.release()
        assert mask in _legal_masks(game, game.turn)
        assert runner._pool is None  # answered without touching the pool
    finally:
        runner.close()


async def test_quick_levels_and_the_fallback_are_told_the_public_levels(monkeypatch) -> None:
    from tienlen import ai

    told = []
    monkeypatch.setattr(ai, "decide", lambda view, level, seed, budget_ms, levels: told.append((level, levels)))
    runner = AiRunner(workers=1, budget_ms=20)
    try:
        view = Game.deal(RULESETS["mien-nam"], 4, seed=5).view(0)
        levels = ("normal", "easy", None, "hard")
        await runner.decide(view, "normal", seed=1, levels=levels)
        await runner.decide(view, "easy", seed=1, levels=levels)
        await runner._slots.acquire()  # every worker busy: hard falls back to normal
        await runner.decide(view, "hard", seed=1, levels=levels)
        runner._slots.release()
        assert told == [("normal", levels), ("easy", levels), ("normal", levels)]
    finally:
        runner.close()

"""The terminal game, played end to end from scripted input."""

import io
import os
import subprocess
import sys

from tienlen import RULESETS, Game
from tienlen.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(argv, lines):
    out = io.StringIO()
    status = main(argv, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return status, out.getvalue()


def _seed_where_seat_zero_holds_three_of_spades():
    return next(seed for seed in range(100) if Game.deal(RULESETS["mien-nam"], 4, seed).hand_mask(0) & 1)


def test_a_whole_game_played_from_typed_cards_and_suggestions():
    seed = _seed_where_seat_zero_holds_three_of_spades()
    script = ["zz", "?", "p", "4s 4s", "3s"] + ["!"] * 300
    status, text = _run(["play", "--seed", str(seed), "--no-color"], script)
    assert status == 0
    assert "not a card: 'zz'" in text
    assert "#1: 3♠" in text  # the hint list
    assert "you lead this round, so you cannot pass" in text  # the engine's own message
    assert "card given twice: 4S" in text
    assert "You play 3♠" in text
    assert "Game over." in text
    assert "Settlement (bet units):" in text
    assert "\x1b[" not in text


def test_end_of_input_and_q_quit_cleanly():
    status, text = _run(["play", "--seed", "3", "--no-color"], [])
    assert status == 0 and "Bye." in text
    status, text = _run(["play", "--seed", "3", "--no-color"], ["q"])
    assert status == 0 and "Bye." in text and "Game over." not in text


def test_colours_mark_red_suits():
    _, text = _run(["play", "--seed", "3", "--rules", "mien-bac", "--players", "3"], ["q"])
    assert "\x1b[31m" in text and ("♦" in text or "♥" in text)


def test_python_dash_m_tienlen_play_with_a_hard_table():
    env = dict(os.environ, PYTHONPATH=ROOT)
    script = "?\n" + "!\n" * 300
    completed = subprocess.run(
        [sys.executable, "-m", "tienlen", "play", "--rules", "iwin", "--ai", "hard", "--budget-ms", "5",
         "--seed", "11", "--no-color"],
        input=script, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert "Seat 1 (hard)" in completed.stdout
    assert "Game over." in completed.stdout


def test_no_command_prints_help():
    out = io.StringIO()
    assert main([], stdout=out) == 2
    assert "play" in out.getvalue()

"""The terminal game: play Tiến lên against AI seats, without Discord.

``python -m tienlen play [--rules mien-nam] [--ai hard] [--seed N] [--players 4]``

You sit in seat 0; the other seats are AI players of the chosen level.  Plain
line-based input and output (no curses), so a game can be scripted by piping
lines into it:

* cards to play, e.g. ``3s 4s 5s``, ``10h 10d`` or ``3♠`` (``T`` = 10);
* ``p`` to pass, ``?`` for a list of your legal plays (then ``#2`` plays the
  second one), ``!`` to play what the normal AI would suggest;
* ``q`` to quit; the end of the input quits too.

Suits are coloured with ANSI codes (♦ ♥ in red) unless ``--no-color`` is
given or ``NO_COLOR`` is set.  Illegal plays are refused with the engine's
own message and you try again.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import TextIO

from tienlen.ai import DEFAULT_BUDGET_MS, LEVELS, NormalPlayer, make_player
from tienlen.ai.arena import Player
from tienlen.cards import Card, InvalidCardError, cards_of, parse_cards
from tienlen.combos import Combo
from tienlen.errors import IllegalPlayError
from tienlen.game import Game, Outcome
from tienlen.rules import RULESETS

__all__ = ["main", "TerminalGame"]

RED = "\x1b[31m"
RESET = "\x1b[0m"
PLACE_NAMES = ("1st", "2nd", "3rd", "4th")
HELP = "Type cards (e.g. 3s 4s 5s), p = pass, ? = legal plays, #n = play hint n, ! = suggested play, q = quit."


class _Quit(Exception):
    """The player typed q, or the input ended."""


class TerminalGame:
    """One game between a human in ``human`` seat and AI players elsewhere."""

    def __init__(self, game: Game, players: list[Player | None], *, human: int = 0, color: bool = True,
                 stdin: TextIO | None = None, stdout: TextIO | None = None, seed: int = 0) -> None:
        self.game = game
        self.players = players
        self.human = human
        self.color = color
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.rngs = [random.Random(seed * 1_000_003 + seat) for seat in range(game.players)]
        self.hints: list[Combo] = []
        self.advisor = NormalPlayer()

    # ------------------------------------------------------------- output
    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def cards(self, mask_or_cards) -> str:
        cards = cards_of(mask_or_cards) if isinstance(mask_or_cards, int) else list(mask_or_cards)
        return " ".join(self._card(card) for card in sorted(cards))

    def _card(self, card: Card) -> str:
        if self.color and card.is_red:
            return f"{RED}{card.symbol}{RESET}"
        return card.symbol

    def name(self, seat: int) -> str:
        if seat == self.human:
            return "You"
        player = self.players[seat]
        return f"Seat {seat} ({player.level})" if player is not None else f"Seat {seat}"

    # --------------------------------------------------------------- flow
    def run(self) -> int:
        game = self.game
        self.say(f"Tiến lên — {game.rules.name}, {game.players} players. You are seat {self.human}. {HELP}")
        if game.instant_win is not None:
            win = game.instant_win
            self.say(f"{self.name(win.seat)} wins at once with {win.kind.value}: {self.cards(game.hand_mask(win.seat))}")
        try:
            while not game.finished:
                self.step()
        except _Quit:
            self.say("Bye.")
            return 0
        self.show_result()
        return 0

    def step(self) -> None:
        """One action: an out-of-turn chop, or the move of the seat on turn."""
        game = self.game
        if self.ai_out_of_turn() or self.human_out_of_turn():
            return
        seat = game.turn
        assert seat is not None
        if seat == self.human:
            self.human_turn()
            return
        player = self.players[seat]
        assert player is not None
        move = player.choose(game.view(seat), self.rngs[seat])
        self.report(seat, move, self.apply(seat, move))

    def apply(self, seat: int, move: Combo | None) -> Outcome:
        return self.game.pass_turn(seat) if move is None else self.game.play(seat, move)

    def ai_out_of_turn(self) -> bool:
        game = self.game
        top = game.top
        if top is None or top.chop_target is None or not game.rules.four_pairs_out_of_turn:
            return False
        for seat, player in enumerate(self.players):
            if player is None or seat == game.turn or not game.legal_plays(seat):
                continue
            move = player.choose(game.view(seat), self.rngs[seat])
            if move is not None:
                self.report(seat, move, game.play(seat, move))
                return True
        return False

    def human_out_of_turn(self) -> bool:
        game = self.game
        if game.turn == self.human or not game.in_play(self.human):
            return False
        chops = game.legal_plays(self.human)
        if not chops:
            return False
        self.say(f"You may chop {self.cards(game.top.mask)} out of turn with: "
                 + ", ".join(self.cards(combo.mask) for combo in chops))
        while True:
            line = self.ask("Chop? (cards, or p to let it go) > ")
            if line.lower() in ("p", "pass", ""):
                return False
            try:
                outcome = game.play(self.human, parse_cards(line))
            except (InvalidCardError, IllegalPlayError) as error:
                self.say(f"  {error}")
                continue
            self.report(self.human, outcome.combo, outcome)
            return True

    def human_turn(self) -> None:
        self.show_table()
        while True:
            line = self.ask("> ")
            command = line.lower()
            if command in ("", "h", "help"):
                self.say(HELP)
                continue
            if command in ("?", "hint", "hints"):
                self.show_hints()
                continue
            try:
                move = self.parse_move(command, line)
                if move is False:
                    continue
                outcome = self.game.pass_turn(self.human) if move is None else self.game.play(self.human, move)
            except (InvalidCardError, IllegalPlayError) as error:
                self.say(f"  {error}")
                continue
            self.report(self.human, outcome.combo, outcome)
            return

    def parse_move(self, command: str, line: str):
        """None = pass, a combo or cards to play, False = nothing to do."""
        if command in ("p", "pass"):
            return None
        if command == "!":
            return self.advisor.choose(self.game.view(self.human), self.rngs[self.human])
        if command.startswith("#"):
            if not self.hints:
                self.hints = list(self.game.legal_plays(self.human))
            try:
                return self.hints[int(command[1:]) - 1]
            except (ValueError, IndexError):
                self.say(f"  no hint {command}; type ? to list your plays")
                return False
        return parse_cards(line)

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.say()
            raise _Quit
        line = line.strip()
        if not _is_terminal(self.stdin):
            self.say(line)  # echo piped input so a transcript reads like a session
        if line.lower() in ("q", "quit", "exit"):
            raise _Quit
        return line

    # ----------------------------------------------------------- displays
    def show_table(self) -> None:
        game = self.game
        self.say()
        for seat in range(game.players):
            if seat == self.human:
                continue
            state = []
            if not game.in_play(seat):
                place = game.place_of(seat)
                state.append(f"out ({PLACE_NAMES[place]})" if place is not None else "out")
            elif seat in game.passed:
                state.append("passed")
            self.say(f"  {self.name(seat):<18} {len(game.hand(seat)):>2} cards  {' '.join(state)}")
        if game.top is None:
            lead = " (must include " + self._card(game.required_card) + ")" if game.required_card else ""
            self.say(f"  You lead{lead}.")
        else:
            self.say(f"  Top: {self.cards(game.top.mask)}  by {self.name(game.top_owner)}")
        self.say(f"  Your hand: {self.cards(game.hand_mask(self.human))}")
        self.hints = []

    def show_hints(self) -> None:
        plays = sorted(self.game.legal_plays(self.human), key=lambda combo: (combo.size, combo.top))
        self.hints = plays
        if not plays:
            self.say("  Nothing beats the top: p to pass.")
            return
        suggestion = self.advisor.choose(self.game.view(self.human), self.rngs[self.human])
        for number, combo in enumerate(plays, 1):
            mark = "  <- suggested" if suggestion is not None and combo.mask == suggestion.mask else ""
            self.say(f"  #{number}: {self.cards(combo.mask)}{mark}")
        if suggestion is None:
            self.say("  Suggested: pass")

    def report(self, seat: int, move: Combo | None, outcome: Outcome) -> None:
        who = self.name(seat)
        if move is None:
            self.say(f"{who} {'pass' if seat == self.human else 'passes'}.")
        else:
            verb = "play" if seat == self.human else "plays"
            note = " (out of turn)" if outcome.out_of_turn else ""
            self.say(f"{who} {verb} {self.cards(move.mask)}{note}")
        if outcome.chop is not None:
            chop = outcome.chop
            self.say(f"  Chop! {self.name(chop.chopped)}'s {self.cards(chop.target.mask)} is chopped "
                     f"(chain worth {chop.chain_value} B so far).")
        if outcome.finish_penalty:
            self.say(f"  {who} went out on a 2 / four of a kind: thối, ranked last.")
        elif outcome.went_out is not None:
            self.say(f"  {who} {'are' if seat == self.human else 'is'} out: {PLACE_NAMES[outcome.went_out]} place.")
        for frozen in outcome.frozen:
            self.say(f"  {self.name(frozen)} never played a card: cóng (frozen)!")
        for stuck in outcome.stuck:
            self.say(f"  {self.name(stuck)} can only go out on a 2: thối, ranked last.")
        if outcome.round_over and not outcome.finished and outcome.leader is not None:
            self.say(f"  Round over: {self.name(outcome.leader)} {'lead' if outcome.leader == self.human else 'leads'}.")

    def show_result(self) -> None:
        game = self.game
        self.say()
        self.say("Game over.")
        for place, seat in enumerate(game.places):
            left = game.hand_mask(seat)
            held = f"  (held {self.cards(left)})" if left else ""
            self.say(f"  {PLACE_NAMES[place]}: {self.name(seat)}{held}")
        self.say("Payments:")
        for payment in game.payments():
            self.say(f"  {self.name(payment.payer)} → {self.name(payment.payee)}: "
                     f"{payment.units} B ({payment.reason.value})")
        self.say("Settlement (bet units): " + ", ".join(
            f"{self.name(seat)} {units:+d}" for seat, units in game.settlement().items()))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------ commands
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tienlen", description="Tiến lên in the terminal.")
    commands = parser.add_subparsers(dest="command")
    play = commands.add_parser("play", help="play a game against AI seats")
    play.add_argument("--rules", default="mien-nam", choices=sorted(RULESETS), help="rule preset (default mien-nam)")
    play.add_argument("--ai", default="normal", choices=LEVELS, help="level of the AI seats (default normal)")
    play.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    play.add_argument("--players", type=int, default=4, choices=(2, 3, 4), help="players at the table, you included")
    play.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS, help="thinking time of hard AI seats")
    play.add_argument("--no-color", action="store_true", help="no ANSI colours")
    return parser


def main(argv: list[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Entry point of ``python -m tienlen``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "play":
        parser.print_help(stdout if stdout is not None else sys.stdout)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    rules = RULESETS[args.rules]
    game = Game.deal(rules, args.players, seed)
    players: list[Player | None] = [make_player(args.ai, budget_ms=args.budget_ms) for _ in range(args.players)]
    players[0] = None
    color = not args.no_color and "NO_COLOR" not in os.environ
    out = stdout if stdout is not None else sys.stdout
    print(f"Seed {seed}.", file=out)
    return TerminalGame(game, players, color=color, stdin=stdin, stdout=stdout, seed=seed).run()

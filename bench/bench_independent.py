"""Our AI levels against an independent Tiến lên player that is not in this repository.

The independent player
----------------------
``dangnguyendota/Tien-Len-Card-Game-AI`` (https://github.com/dangnguyendota/Tien-Len-Card-Game-AI),
commit ``11da54e79aff7cbd451daeab88de0f2fc48d611d``: a Java Monte Carlo tree search player
(UCT with random play-outs and a money heuristic: the winner scores 1 plus what the others
"lose" for the 2s and bombs they still hold) written for a Vietnamese game server, with its own
Southern-rules engine.  It needs only a JDK (no Maven dependencies outside its HTTP
``service`` package, which is not used).  **Licence: none** — the repository has no LICENSE
file, so all rights are reserved by its author: fetch it yourself, use it locally for
measurement, never copy its code into this repository (nothing of it is committed here; the
bench talks to it through a small bridge program of ours, embedded below).

To fetch and build it (outside this repository)::

    git clone https://github.com/dangnguyendota/Tien-Len-Card-Game-AI independent-player
    cd independent-player
    git checkout 11da54e79aff7cbd451daeab88de0f2fc48d611d
    javac -encoding UTF-8 -d classes $(find src/main/java -name '*.java' -not -path '*/service/*')

``--player-path`` (or the environment variable ``INDEPENDENT_PLAYER_PATH``) points at that
directory, wherever it was cloned (its ``classes/`` are used).  At start-up the bench
compiles its own bridge (``TienLenBridge``, the Java text in :data:`BRIDGE_SOURCE`) into a
temporary directory against those classes; every worker process then runs one JVM that
answers one request per line.

The match
---------
Our engine is the referee: fixed seeded deals (``Game.deal(mien-nam, 4, seed * 1e6 + deal)``,
the same deals as ``bench_ai.py``), each deal played once per seat with the hero in that seat
(duplicate-style rotation), in both directions:

    easy-ind     easy   vs 3 x independent        ind-easy     independent vs 3 x easy
    normal-ind   normal vs 3 x independent        ind-normal   independent vs 3 x normal
    hard-ind     hard   vs 3 x independent        ind-hard     independent vs 3 x hard

Reported per pairing: the hero's first-place rate and mean bet units per game (from
``game.settlement()``), each with a 95 % CI over deals (a deal's rotations are one sample),
the hero's places, and for the independent seats: decisions asked, moves our rules refused
(by reason), crashes and time-outs, and decision latency.

The adapter (what the independent player is told)
-------------------------------------------------
Only what our :class:`~tienlen.records.SeatView` for its seat allows: its own hand, the card
counts, the public play (top combo, its owner, who passed this round) and whether the opening
lead must contain 3♠.  Their search was written for a server that knows every hand; the
adapter gives it, at each decision, **one random world**: the unseen cards dealt uniformly at
random to the other seats still in play, in their card counts (seeded, so a run is
reproducible with ``--ext-iterations``).  Seats that are out are left out of its game, so after
someone goes out it plays for first place among the rest (its engine ends at the first
winner).  Cards map one to one: their ``value`` 0..12 (3..2) and ``type`` 0..3 (♠ ♣ ♦ ♥) are
our rank and suit, so card index = value * 4 + type.

A proposed move that is not among ``view.legal_plays`` is refused and counted; the seat then
passes when passing is allowed, or plays our ``easy`` level's lowest legal combo when it leads.
A crash (an exception or an error reply), an unusable answer or a time-out (the JVM is killed
and restarted) counts the same way and never stops the run.

Rule differences (their engine vs docs/rules.md ``mien-nam``), and what the adapter does:

* two consecutive pairs (4 cards, "2 đôi thông") are a combination for them; not for us:
  refused when proposed;
* same-rank comparisons for 3, 4 and 5: any suit beats (``value < SIX`` in their ``Card``,
  ``Dub`` and ``Sequence``), e.g. 5♠ "beats" 5♥: refused;
* a single-suit straight can only be beaten by a single-suit straight (stricter than ours:
  it just never proposes such a play, no refusal);
* chops agree (3 đôi thông on a single 2; four of a kind on a 2, a pair of 2s, any 3 đôi
  thông; 4 đôi thông on all of those), except that their 4 đôi thông cannot chop three 2s
  and there is **no out-of-turn 4 đôi thông**: the adapter declines every out-of-turn chance
  (counted);
* their game ends at the first player out (no 2nd/3rd place, cóng, chop money or instant
  wins): our engine settles all of that; the adapter re-poses each decision as a game among
  the seats still in play.  When the top's owner is already out (our rule: the next seat
  leads if all pass), the adapter names the nearest earlier seat still in play as the owner,
  so the current seat still has to beat the top or pass;
* the first lead must contain 3♠ in both (their ``first_turn`` flag).

Search budget: their defaults think 2–7 s a move.  Here ``--ext-iterations`` (default 2,000
play-outs, early stop disabled: reproducible, p50 2–12 ms and p99 under 200 ms a move; 10,000
play-outs measured no stronger) or ``--ext-ms`` (wall clock, their own min/max rule with
min = 2/7 of max).

Known crash in their code (counted, about 1 decision in 2,000): leading with more than 7 cards
while every opponent holds more than 6, their root pruning drops every move that is a bomb,
holds a 2 or shares a card with one; when nothing is left ``select()`` recurses until
``StackOverflowError``.

Usage::

    nice -n 19 python bench/bench_independent.py --levels easy,normal --games 1000
    nice -n 19 python bench/bench_independent.py --levels hard --games 200 --budget-ms 300 --workers 2

Prints a markdown table; ``--json FILE`` also writes the summaries with every game's result.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from bench_ai import paired, variant_options  # noqa: E402
from tienlen import RULESETS, Game  # noqa: E402
from tienlen.ai import make_player, play_game  # noqa: E402
from tienlen.ai.easy import lowest_key  # noqa: E402
from tienlen.cards import iter_indices  # noqa: E402
from tienlen.combos import classify  # noqa: E402
from tienlen.errors import InvalidComboError  # noqa: E402
from tienlen.values import ComboKind  # noqa: E402

SOURCE_REPO = "https://github.com/dangnguyendota/Tien-Len-Card-Game-AI"
SOURCE_COMMIT = "11da54e79aff7cbd451daeab88de0f2fc48d611d"
SOURCE_LICENCE = "none (no LICENSE file: all rights reserved)"
DEFAULT_PLAYER_PATH = os.environ.get("INDEPENDENT_PLAYER_PATH", "independent-player")
"""Where the fetched player is (the docstring's clone, from the current directory, unless set)."""
LEVELS = ("easy", "normal", "hard", "heuristic", "normal+", "greedy")
PLAYERS = 4

# Our combo kinds as the bridge names them (their classes: Card, Dub, Trips, Quads, Sequence,
# TripSequence / QuadSequence).
KIND_NAMES = {
    ComboKind.SINGLE: "single",
    ComboKind.PAIR: "pair",
    ComboKind.TRIPLE: "triple",
    ComboKind.FOUR_OF_A_KIND: "four",
    ComboKind.STRAIGHT: "straight",
    ComboKind.CONSECUTIVE_PAIRS: "pairs",
}

BRIDGE_SOURCE = r"""
import com.ndn.algorithm.GameConfiguration;
import com.ndn.algorithm.MctsPlayerConfiguration;
import com.ndn.algorithm.MonteCarloTreeSearchPlayer;
import com.ndn.algorithm.TienLenGame;
import com.ndn.algorithm.TienLenPlayer;
import com.ndn.base.BaseObject;
import com.ndn.base.Card;
import com.ndn.base.Game;
import com.ndn.objects.Dub;
import com.ndn.objects.Pass;
import com.ndn.objects.QuadSequence;
import com.ndn.objects.Quads;
import com.ndn.objects.Sequence;
import com.ndn.objects.TripSequence;
import com.ndn.objects.Trips;
import com.ndn.util.DangNguyenDota;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** bench_independent.py's bridge: one request line in, one answer line out. */
public class TienLenBridge {
    static Card[] cards(String text) {
        if (text.equals("-")) return new Card[0];
        String[] parts = text.split(",");
        Card[] out = new Card[parts.length];
        for (int i = 0; i < parts.length; i++) {
            int index = Integer.parseInt(parts[i]);
            out[i] = new Card(index >> 2, index & 3);
        }
        Arrays.sort(out);
        return out;
    }

    static BaseObject top(String kind, Card[] c) {
        switch (kind) {
            case "single": return c[0];
            case "pair": return new Dub(c[0], c[1]);
            case "triple": return new Trips(c[0], c[1], c[2]);
            case "four": return new Quads(c[0], c[1], c[2], c[3]);
            case "straight": return new Sequence(c);
            case "pairs":
                if (c.length == 6) return new TripSequence(new Dub(c[0], c[1]), new Dub(c[2], c[3]), new Dub(c[4], c[5]));
                if (c.length == 8) return new QuadSequence(new Dub(c[0], c[1]), new Dub(c[2], c[3]), new Dub(c[4], c[5]), new Dub(c[6], c[7]));
                throw new IllegalArgumentException("no such consecutive pairs: " + c.length + " cards");
            default: throw new IllegalArgumentException("unknown kind " + kind);
        }
    }

    /* MOVE seed maxMs minMs iterations players current previous first passedBits topKind topCards hand... */
    static String answer(String[] f, MonteCarloTreeSearchPlayer bot) {
        long seed = Long.parseLong(f[1]);
        int players = Integer.parseInt(f[5]);
        GameConfiguration conf = new GameConfiguration();
        conf.maxPlayer = players;
        conf.passed = new boolean[players];
        int passed = Integer.parseInt(f[9]);
        for (int i = 0; i < players; i++) conf.passed[i] = ((passed >> i) & 1) == 1;
        conf.currentPlayer = Integer.parseInt(f[6]);
        conf.previousPlayer = Integer.parseInt(f[7]);
        conf.first_turn = f[8].equals("1");
        conf.lastDealt = f[10].equals("-") ? null : top(f[10], cards(f[11]));
        Game game = new TienLenGame(conf);
        for (int i = 0; i < players; i++) {
            TienLenPlayer player = new TienLenPlayer();
            player.setCards(cards(f[12 + i]));
            player.setBot(true);
            game.put(player);
        }
        MctsPlayerConfiguration search = new MctsPlayerConfiguration();
        search.maxTime = Long.parseLong(f[2]);
        search.minTime = Long.parseLong(f[3]);
        search.iterations = Integer.parseInt(f[4]);
        DangNguyenDota.random.setSeed(seed);
        BaseObject move = bot.getMove(game, search);
        if (move == null) return "ERR no move chosen";
        if (move instanceof Pass) return "PASS";
        StringBuilder out = new StringBuilder("PLAY ");
        Card[] played = move.getCards();
        for (int i = 0; i < played.length; i++) {
            if (i > 0) out.append(',');
            out.append(played[i].getValue() * 4 + played[i].getType());
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        System.setOut(new PrintStream(System.err, true, "UTF-8"));  // their debug output stays off the answers
        MonteCarloTreeSearchPlayer bot = new MonteCarloTreeSearchPlayer();
        out.println("READY");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            if (f[0].equals("QUIT")) break;
            String reply;
            try {
                reply = f[0].equals("MOVE") ? answer(f, bot) : "ERR unknown request";
            } catch (Throwable e) {
                reply = "ERR " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' ');
            }
            out.println(reply);
        }
        System.exit(0);
    }
}
"""


# ------------------------------------------------------------ translation layer
def to_external(index: int) -> tuple[int, int]:
    """Our card index -> their ``(value, type)``: value 0..12 = 3..2, type 0..3 = ♠ ♣ ♦ ♥."""
    return index >> 2, index & 3


def from_external(value: int, suit: int) -> int:
    """Their ``(value, type)`` -> our card index."""
    if not (0 <= value <= 12 and 0 <= suit <= 3):
        raise ValueError(f"no such card: value {value}, type {suit}")
    return value * 4 + suit


def encode_cards(mask: int) -> str:
    """A card mask as the bridge's text: indices, comma-separated, or "-" for none."""
    return ",".join(str(index) for index in iter_indices(mask)) or "-"


def decode_cards(text: str) -> int:
    """The bridge's card text back to a mask (duplicates and bad indices raise ValueError)."""
    mask = 0
    if text == "-":
        return 0
    for part in text.split(","):
        index = int(part)
        if not 0 <= index < 52 or mask >> index & 1:
            raise ValueError(f"bad card {part!r} in {text!r}")
        mask |= 1 << index
    return mask


class ExternalError(Exception):
    """The independent player crashed or answered something unusable."""


class ExternalTimeout(ExternalError):
    """The independent player did not answer in time."""


@dataclass(frozen=True)
class World:
    """One decision as posed to the independent player: a game among the seats in play."""

    seats: tuple[int, ...]
    """Our seats, in their player order (seat order)."""
    hands: tuple[int, ...]
    """Masks: the deciding seat's real hand, the others a random deal of the unseen cards."""
    current: int
    previous: int
    """Index (into ``seats``) of the top's owner, or ``current`` when leading."""
    passed: int
    """Bit i: player i passed in this round."""
    first: bool
    top_kind: str
    top_mask: int


def build_world(view, rng: random.Random) -> World:
    """The independent player's game for ``view`` (its seat's turn), from the view only."""
    seats = tuple(seat for seat in range(view.players) if view.in_play[seat])
    if view.seat not in seats:
        raise ValueError("the deciding seat is not in play")
    pool = list(iter_indices(view.unseen))
    rng.shuffle(pool)
    hands = []
    for seat in seats:
        if seat == view.seat:
            hands.append(view.hand)
            continue
        count = view.counts[seat]
        if count > len(pool) or count <= 0:
            raise ValueError(f"cannot deal {count} cards to seat {seat}")
        mask = 0
        for index in pool[:count]:
            mask |= 1 << index
        del pool[:count]
        hands.append(mask)
    current = seats.index(view.seat)
    top = view.top
    if top is None:
        return World(seats, tuple(hands), current, current, 0, bool(view.required), "-", 0)
    if view.top_owner in seats and view.top_owner != view.seat:
        previous = seats.index(view.top_owner)
    else:  # the owner is out: the nearest earlier seat in play stands in (not the current one)
        earlier = [seats[(current - step) % len(seats)] for step in range(1, len(seats))]
        waiting = [seat for seat in earlier if seat not in view.passed]
        previous = seats.index((waiting or earlier)[0])
    passed = 0
    for position, seat in enumerate(seats):
        if seat in view.passed and position not in (previous, current):
            passed |= 1 << position
    return World(seats, tuple(hands), current, previous, passed, False, KIND_NAMES[top.kind], top.mask)


def request_line(world: World, seed: int, *, iterations: int, max_ms: int, min_ms: int) -> str:
    """The bridge request for ``world``."""
    return " ".join([
        "MOVE", str(seed), str(max_ms), str(min_ms), str(iterations), str(len(world.seats)),
        str(world.current), str(world.previous), "1" if world.first else "0", str(world.passed),
        world.top_kind, encode_cards(world.top_mask) if world.top_kind != "-" else "-",
        *(encode_cards(hand) for hand in world.hands),
    ])


def parse_reply(line: str | None) -> int | None:
    """The mask played, or None for a pass; raises :class:`ExternalError` otherwise."""
    if line is None:
        raise ExternalError("no answer")
    line = line.strip()
    if line == "PASS":
        return None
    if line.startswith("PLAY "):
        try:
            mask = decode_cards(line[5:].strip())
        except ValueError as error:
            raise ExternalError(f"unusable answer {line!r}: {error}") from None
        if not mask:
            raise ExternalError(f"unusable answer {line!r}")
        return mask
    if line.startswith("ERR"):
        raise ExternalError(line[3:].strip() or "error")
    raise ExternalError(f"unusable answer {line!r}")


def refusal_reason(view, mask: int) -> str:
    """Why our rules refuse ``mask`` for ``view``'s seat (a short label for the report)."""
    if mask & ~view.hand:
        return "cards not in its hand"
    try:
        combo = classify(mask, view.rules)
    except InvalidComboError:
        size = mask.bit_count()
        ranks = sorted({index >> 2 for index in iter_indices(mask)})
        if size == 4 and len(ranks) == 2 and ranks[1] == ranks[0] + 1:
            return "two consecutive pairs (not a combination here)"
        return f"not a combination here ({size} cards)"
    top = view.top
    if top is None:
        if view.required and not mask & view.required:
            return "opening lead without the required card"
        return f"lead of {combo.kind.value} refused"
    same = " of the same rank" if combo.kind is top.kind and combo.rank == top.rank else ""
    return f"{combo.kind.value} on {top.kind.value}{same}"


@dataclass
class ExternalStats:
    """What happened to the independent player's decisions."""

    asked: int = 0
    accepted: int = 0
    refused: Counter = field(default_factory=Counter)
    """Reason -> count (illegal under our rules, crash, unusable answer or time-out)."""
    crashes: int = 0
    timeouts: int = 0
    declined_out_of_turn: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def refused_total(self) -> int:
        return sum(self.refused.values())

    def merge(self, other: "ExternalStats") -> None:
        self.asked += other.asked
        self.accepted += other.accepted
        self.refused.update(other.refused)
        self.crashes += other.crashes
        self.timeouts += other.timeouts
        self.declined_out_of_turn += other.declined_out_of_turn
        self.latencies += other.latencies


class IndependentPlayer:
    """A seat played by the independent player through ``transport(request) -> reply``.

    Only the :class:`~tienlen.records.SeatView` reaches it (see :func:`build_world`); every
    answer is checked against ``view.legal_plays``.
    """

    level = "independent"

    def __init__(self, transport, stats: ExternalStats | None = None, *, iterations: int = 2000,
                 max_ms: int = 20_000, min_ms: int | None = None) -> None:
        self.transport = transport
        self.stats = stats if stats is not None else ExternalStats()
        self.iterations = iterations
        self.max_ms = max_ms
        self.min_ms = max_ms if min_ms is None else min_ms

    @staticmethod
    def fallback(view):
        """Pass when allowed, else the lowest legal combo (the ``easy`` baseline)."""
        if view.top is not None or not view.legal_plays:
            return None
        return min(view.legal_plays, key=lowest_key)

    def choose(self, view, rng: random.Random):
        if view.turn != view.seat:
            # Their rules have no out-of-turn 4 đôi thông.
            self.stats.declined_out_of_turn += 1
            return None
        self.stats.asked += 1
        start = time.perf_counter()
        try:
            world = build_world(view, rng)
            line = request_line(world, rng.randrange(1 << 62), iterations=self.iterations,
                                max_ms=self.max_ms, min_ms=self.min_ms)
            mask = parse_reply(self.transport(line))
        except ExternalTimeout:
            self.stats.timeouts += 1
            self.stats.refused["time-out"] += 1
            return self.fallback(view)
        except Exception as error:  # a crash inside their code (or of the bridge) never stops the run
            self.stats.crashes += 1
            self.stats.refused[f"crash: {str(error)[:60]}"] += 1
            return self.fallback(view)
        finally:
            self.stats.latencies.append(time.perf_counter() - start)
        if mask is None:
            if view.top is not None:
                self.stats.accepted += 1
                return None
            self.stats.refused["pass while leading"] += 1
            return self.fallback(view)
        for combo in view.legal_plays:
            if combo.mask == mask:
                self.stats.accepted += 1
                return combo
        self.stats.refused[refusal_reason(view, mask)] += 1
        return self.fallback(view)


# --------------------------------------------------------------------- bridge
def prepare_bridge(player_path: str, java: str = "java") -> str:
    """Compile our bridge against the independent player's classes; returns the class path."""
    classes = os.path.join(player_path, "classes")
    if not os.path.isdir(os.path.join(classes, "com", "ndn", "algorithm")):
        raise SystemExit(
            f"no compiled independent player in {classes}; fetch and build it as the docstring says:\n"
            f"  git clone {SOURCE_REPO} {player_path} && git -C {player_path} checkout {SOURCE_COMMIT}\n"
            f"  cd {player_path} && javac -encoding UTF-8 -d classes "
            "$(find src/main/java -name '*.java' -not -path '*/service/*')")
    javac = shutil.which("javac") or os.path.join(os.path.dirname(shutil.which(java) or ""), "javac")
    build = tempfile.mkdtemp(prefix="tienlen-bridge-")
    source = os.path.join(build, "TienLenBridge.java")
    with open(source, "w", encoding="utf-8") as handle:
        handle.write(BRIDGE_SOURCE)
    subprocess.run([javac, "-encoding", "UTF-8", "-nowarn", "-cp", classes, "-d", build, source],
                   check=True, capture_output=True)
    return os.pathsep.join([classes, build])


class JavaBridge:
    """One JVM running ``TienLenBridge``; restarted after a crash or a time-out."""

    def __init__(self, classpath: str, java: str = "java", timeout_s: float = 30.0) -> None:
        self.command = [java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:ActiveProcessorCount=1",
                        "-cp", classpath, "TienLenBridge"]
        self.timeout_s = timeout_s
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.restarts = 0

    def _start(self) -> None:
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, encoding="utf-8", bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.process, self.lines), daemon=True).start()
        ready = self._get(60.0)
        if ready != "READY":
            self._kill()
            raise ExternalError(f"bridge did not start: {ready!r}")

    @staticmethod
    def _read(process: subprocess.Popen, lines: queue.Queue) -> None:
        for line in process.stdout:
            lines.put(line.strip())
        lines.put(None)

    def _get(self, timeout: float) -> str | None:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            self._kill()
            raise ExternalTimeout(f"no answer within {timeout:g} s") from None

    def _kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
            self.restarts += 1

    def __call__(self, line: str) -> str | None:
        if self.process is None or self.process.poll() is not None:
            self.process = None
            self._start()
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            self._kill()
            raise ExternalError(f"bridge gone: {error}") from None
        reply = self._get(self.timeout_s)
        if reply is None:
            self._kill()
            raise ExternalError("bridge exited")
        return reply

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                self.process.stdin.write("QUIT\n")
                self.process.stdin.flush()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
        self.process = None


_BRIDGE: dict[int, JavaBridge] = {}


def _bridge(job: "Job") -> JavaBridge:
    """This process's JVM (one per worker)."""
    bridge = _BRIDGE.get(os.getpid())
    if bridge is None:
        bridge = _BRIDGE[os.getpid()] = JavaBridge(job.classpath, job.java, job.timeout_s)
    return bridge


# ---------------------------------------------------------------------- games
@dataclass(frozen=True)
class Job:
    index: int
    pairing: str
    hero: str
    """A level, or "ind"."""
    other: str
    seed: int
    budget_ms: float
    classpath: str
    java: str
    iterations: int
    max_ms: int
    min_ms: int
    timeout_s: float
    hard_options: tuple = ()
    """Keyword overrides for ``HardPlayer`` (``--hard name=value``; ``clock=cpu`` counts CPU time)."""
    variant: int = 0


@dataclass
class GameResult:
    index: int
    deal: int
    hero_seat: int
    place: int
    units: int
    external: ExternalStats
    variant: int = 0


def _make(name: str, job: Job, stats: ExternalStats):
    if name == "ind":
        return IndependentPlayer(_bridge(job), stats, iterations=job.iterations, max_ms=job.max_ms,
                                 min_ms=job.min_ms)
    if name == "hard" and job.hard_options:
        from tienlen.ai import HardPlayer

        options = dict(job.hard_options)
        if options.get("clock") == "cpu":
            options["clock"] = time.process_time
        return HardPlayer(job.budget_ms, **options)
    return make_player(name, budget_ms=job.budget_ms)


def play_one(job: Job) -> GameResult:
    """One game: the hero in seat ``index % 4`` of deal ``index // 4``."""
    deal = job.seed * 1_000_000 + job.index // PLAYERS
    hero = job.index % PLAYERS
    game = Game.deal(RULESETS["mien-nam"], PLAYERS, deal)
    stats = ExternalStats()
    players = [_make(job.other, job, stats) for _ in range(PLAYERS)]
    players[hero] = _make(job.hero, job, stats)
    play_game(game, players, seed=job.index)
    return GameResult(job.index, deal, hero, game.places.index(hero), game.settlement()[hero], stats, job.variant)


def clustered_mean(values_by_deal: dict[int, list[float]]) -> tuple[float, float]:
    """Mean and 95 % half-width, one sample per deal (the mean of its rotations)."""
    samples = [sum(values) / len(values) for values in values_by_deal.values()]
    mean = sum(samples) / len(samples)
    if len(samples) < 2:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(samples) / math.sqrt(len(samples))


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summarise(pairing: str, results: list[GameResult], settings: dict) -> dict:
    firsts: dict[int, list[float]] = {}
    units: dict[int, list[float]] = {}
    stats = ExternalStats()
    places: Counter = Counter()
    for result in results:
        firsts.setdefault(result.deal, []).append(float(result.place == 0))
        units.setdefault(result.deal, []).append(float(result.units))
        stats.merge(result.external)
        places[result.place + 1] += 1
    first, first_ci = clustered_mean(firsts)
    mean_units, units_ci = clustered_mean(units)
    return {
        "pairing": pairing,
        "games": len(results),
        "deals": len(firsts),
        "first_rate": first,
        "first_ci95": first_ci,
        "mean_units": mean_units,
        "units_ci95": units_ci,
        "places": dict(sorted(places.items())),
        "external": {
            "asked": stats.asked,
            "accepted": stats.accepted,
            "refused": stats.refused_total,
            "refused_by_reason": dict(stats.refused.most_common()),
            "crashes": stats.crashes,
            "timeouts": stats.timeouts,
            "declined_out_of_turn": stats.declined_out_of_turn,
            "latency_p50_ms": 1000 * _percentile(stats.latencies, 0.5),
            "latency_p99_ms": 1000 * _percentile(stats.latencies, 0.99),
        },
        "per_game": [(r.index, r.deal, r.place, r.units) for r in sorted(results, key=lambda r: r.index)],
        **settings,
    }


def run_pairing(pairing: str, hero: str, other: str, args: argparse.Namespace, classpath: str) -> list[dict]:
    """One summary per ``--variant`` of ``hard`` (one without): the variants
    play the same games, taking turns game by game (the same load for all)."""
    max_ms = args.ext_ms if args.ext_ms else int(args.ext_timeout_s * 1000)
    min_ms = max(1, round(args.ext_ms * 2 / 7)) if args.ext_ms else max_ms
    iterations = 1_000_000_000 if args.ext_ms else args.ext_iterations
    variants = variant_options(args)
    jobs = [Job(index, pairing, hero, other, args.seed, args.budget_ms, classpath, args.java,
                iterations, max_ms, min_ms, args.ext_timeout_s + 10.0, options, variant)
            for index in range(args.games) for variant, (_, options) in enumerate(variants)]
    start = time.perf_counter()
    results: list[GameResult] = []
    if args.workers > 1:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            for result in pool.imap_unordered(play_one, jobs, chunksize=1):
                results.append(result)
                _progress(pairing, results, len(jobs), start)
    else:
        for job in jobs:
            results.append(play_one(job))
            _progress(pairing, results, len(jobs), start)
    settings = {
        "rules": "mien-nam", "players": PLAYERS, "seed": args.seed, "budget_ms": args.budget_ms,
        "workers": args.workers, "wall_s": time.perf_counter() - start,
        "ext_budget": f"{args.ext_ms} ms" if args.ext_ms else f"{args.ext_iterations} iterations",
        "source": {"repo": SOURCE_REPO, "commit": SOURCE_COMMIT, "licence": SOURCE_LICENCE},
    }
    return [summarise(pairing if len(variants) == 1 else f"{pairing} [{name}]",
                      [result for result in results if result.variant == number],
                      {**settings, "variant": name, "hard_options": dict(options)})
            for number, (name, options) in enumerate(variants)]


def _progress(pairing: str, results: list[GameResult], total: int, start: float) -> None:
    done = len(results)
    if done % 100 and done != total:
        return
    rate = sum(result.place == 0 for result in results) / done
    print(f"  {pairing}: {done}/{total} games, hero first {rate:.3f}, {time.perf_counter() - start:.0f} s",
          file=sys.stderr, flush=True)


def markdown(summaries: list[dict]) -> str:
    lines = [
        "| pairing | games (deals) | hero first place (95 % CI) | hero bet units / game (95 % CI) "
        "| independent decisions | refused (crash, time-out) | independent p50 / p99 | budgets | wall |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        ext = s["external"]
        lines.append(
            f"| {s['pairing']} | {s['games']} ({s['deals']}) | {100 * s['first_rate']:.1f} % ± {100 * s['first_ci95']:.1f} "
            f"| {s['mean_units']:+.2f} ± {s['units_ci95']:.2f} | {ext['asked']} "
            f"| {ext['refused']} ({ext['crashes']}, {ext['timeouts']}) "
            f"| {ext['latency_p50_ms']:.0f} / {ext['latency_p99_ms']:.0f} ms "
            f"| ind {s['ext_budget']}, hard {s['budget_ms']:g} ms | {s['wall_s']:.0f} s |")
    lines.append("")
    for s in summaries:
        places = ", ".join(f"{place}: {count}" for place, count in s["places"].items())
        reasons = "; ".join(f"{reason} {count}" for reason, count in s["external"]["refused_by_reason"].items())
        lines.append(f"- {s['pairing']}: hero places {places}; out-of-turn chances declined "
                     f"{s['external']['declined_out_of_turn']}; refused: {reasons or 'none'}")
    return "\n".join(lines)


def pairings(levels: list[str], direction: str) -> list[tuple[str, str, str]]:
    out = []
    for level in levels:
        if direction in ("both", "hero"):
            out.append((f"{level}-ind", level, "ind"))
        if direction in ("both", "independent"):
            out.append((f"ind-{level}", "ind", level))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", default="easy,normal", help="comma-separated, of " + ", ".join(LEVELS))
    parser.add_argument("--direction", default="both", choices=["both", "hero", "independent"],
                        help="hero = LEVEL vs 3 x independent; independent = independent vs 3 x LEVEL")
    parser.add_argument("--games", type=int, default=1000, help="games per pairing (a multiple of 4)")
    parser.add_argument("--budget-ms", type=float, default=300, help="hard: thinking time per decision")
    parser.add_argument("--workers", type=int, default=1, help="processes (the machine has 2 cores: use at most 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--player-path", default=DEFAULT_PLAYER_PATH,
                        help="the fetched independent player (its compiled classes/ are used)")
    parser.add_argument("--java", default="java")
    parser.add_argument("--ext-iterations", type=int, default=2000,
                        help="independent player: MCTS play-outs per decision (early stop off; reproducible)")
    parser.add_argument("--ext-ms", type=int, default=0,
                        help="independent player: wall-clock budget per decision instead (their min/max rule)")
    parser.add_argument("--ext-timeout-s", type=float, default=20.0,
                        help="a decision taking longer is a time-out (the JVM is restarted)")
    parser.add_argument("--json", help="also write the summaries (with every game's place and units) to this file")
    parser.add_argument("--hard", action="append", default=[], metavar="NAME=VALUE",
                        help="override a HardPlayer setting, e.g. --hard clock=cpu --hard scorer=shipped")
    parser.add_argument("--variant", action="append", default=[], metavar='"NAME=VALUE ..."',
                        help="a hard variant (on top of --hard), repeatable: the variants play the same games "
                             "taking turns and are compared paired with the first")
    args = parser.parse_args(argv)
    levels = [level.strip() for level in args.levels.split(",") if level.strip()]
    unknown = [level for level in levels if level not in LEVELS]
    if unknown or args.games % PLAYERS:
        parser.error(f"unknown level(s) {unknown}" if unknown else "--games must be a multiple of 4")
    classpath = prepare_bridge(args.player_path, args.java)
    summaries, comparisons = [], []
    try:
        for pairing, hero, other in pairings(levels, args.direction):
            found = run_pairing(pairing, hero, other, args, classpath)
            summaries += found
            comparisons += [f"- paired, {variant['pairing']} - {found[0]['pairing']}: {paired(found[0], variant)}"
                            for variant in found[1:]]
    finally:
        for bridge in _BRIDGE.values():
            bridge.close()
        shutil.rmtree(classpath.split(os.pathsep)[-1], ignore_errors=True)
    print("\n".join([markdown(summaries), *comparisons]))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(summaries, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

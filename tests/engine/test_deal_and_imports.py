"""The fast deal gives exactly the stdlib shuffle's deal; the engine's modules
import one another without cycles, and each imports on its own."""

import ast
import dataclasses
import pkgutil
import random
import subprocess
import sys
from pathlib import Path

import pytest

import tienlen
from tienlen import RULESETS, Game
from tienlen.game import _shuffled_deck
from tienlen.rules import deal_order

SEEDS = list(range(300)) + [2**40 + 7, -5, "table-1/game-3", "", "ván 2"]


@pytest.mark.parametrize("seed", SEEDS)
def test_shuffle_is_the_stdlib_shuffle(seed):
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    assert _shuffled_deck(seed) == deck


@pytest.mark.parametrize("dealer", range(5))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_hands_one_card_at_a_time_from_the_seat_after_the_dealer(players, dealer):
    """docs/rules.md §4, dealing order: the cards go to the seat after the dealer first
    (seat 1 when seat 0 deals), one at a time; undealt cards are set aside."""
    rules = dataclasses.replace(RULESETS["mien-nam"], dealer_seat=dealer)
    for seed in list(range(50)) + SEEDS[-5:]:
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        expected = [0] * players
        order = deal_order(rules, players)
        for position in range(13 * players):
            expected[order[position % players]] |= 1 << deck[position]
        game = Game.deal(rules, players, seed)
        assert [game.hand_mask(seat) for seat in range(players)] == expected or game.instant_win is not None
        assert list(Game.deal(rules, players, seed)._dealt) == expected


ROOT = Path(tienlen.__file__).parent
MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(tienlen.__path__, prefix="tienlen.") if not name.endswith("__main__")
)


def _runtime_imports(module: str) -> set[str]:
    """The tienlen modules ``module`` imports when it runs: at the top or inside
    functions, but not under ``if TYPE_CHECKING:`` (annotations only)."""
    path = ROOT.joinpath(*module.split(".")[1:])
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for child in ast.walk(node))
    found = set()
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:  # "from tienlen import ai" imports the module tienlen.ai
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else base)
    return {name for name in found if name in MODULES or name == "tienlen"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_engine_modules_import_without_cycles():
    graph = {module: _runtime_imports(module) - {"tienlen"} for module in MODULES}
    assert _cycles(graph) == []


def test_engine_modules_import_nothing_lazily():
    """No import inside a function was needed to dodge a cycle (the AI aside)."""
    lazy = []
    for module in MODULES:
        if module.startswith("tienlen.ai"):
            continue
        path = ROOT.joinpath(*module.split(".")[1:]).with_suffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        lazy.append((module, node.name, ast.unparse(inner)))
    assert lazy == []


def test_each_module_imports_alone():
    """Each module imported first, in a fresh interpreter."""
    code = (
        "import subprocess, sys\n"
        f"modules = {MODULES!r}\n"
        "sys.exit(max(subprocess.call([sys.executable, '-c', 'import ' + name]) for name in modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT.parent, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr

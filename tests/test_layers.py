"""The layers import downwards only (DESIGN): no circles, no shortcuts.

Every import statement of every module counts, also those inside functions
and ``if TYPE_CHECKING:`` blocks, since a circle hidden there is still a
circle for the reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tienlen", "db", "runtime", "cogs", "i18n", "render")


def _modules() -> dict[str, Path]:
    found = {"bot": ROOT / "bot.py"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def imports_of(name: str) -> set[str]:
    """Every module ``name`` imports (third-party ones by their top package)."""
    tree = ast.parse(MODULES[name].read_text())
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES}
            found.update(submodules)
            if len(submodules) < len(node.names):  # names from the module itself, not only its submodules
                found.add(base)
    return {module for module in found if module}


def internal(name: str) -> set[str]:
    return {module for module in imports_of(name) if module in MODULES and module != name}


def _cycle(names: list[str]) -> list[str] | None:
    graph = {name: internal(name) & set(names) for name in names}
    visiting: list[str] = []
    done: set[str] = set()

    def visit(node: str) -> list[str] | None:
        if node in visiting:
            return visiting[visiting.index(node):] + [node]
        if node in done:
            return None
        visiting.append(node)
        for target in sorted(graph[node]):
            found = visit(target)
            if found:
                return found
        visiting.pop()
        done.add(node)
        return None

    for name in names:
        found = visit(name)
        if found:
            return found
    return None


def _in(package: str) -> list[str]:
    return sorted(name for name in MODULES if name == package or name.startswith(package + "."))


@pytest.mark.parametrize("package", ["cogs", "runtime"])
def test_no_import_circles(package: str) -> None:
    assert _cycle(_in(package)) is None


def _top(modules: set[str]) -> set[str]:
    return {module.split(".")[0] for module in modules}


def test_the_engine_knows_nothing_of_the_bot() -> None:
    for name in _in("tienlen"):
        assert not _top(imports_of(name)) & {"discord", "db", "runtime", "cogs", "sqlalchemy", "asyncio"}, name


def test_the_data_layer_knows_no_discord_and_no_runtime() -> None:
    for name in _in("db"):
        assert not _top(imports_of(name)) & {"discord", "runtime", "cogs"}, name


def test_the_runtime_knows_no_discord_and_stores_through_the_store() -> None:
    storing = set()
    for name in _in("runtime"):
        tops = _top(imports_of(name))
        assert not tops & {"discord", "cogs"}, name
        if "db" in tops:
            storing.add(name)
    # The cluster membership (slots and forwarded interactions) is not a table's path.
    assert storing == {"runtime.store", "runtime.cluster"}


def test_no_cog_is_looked_up_by_name() -> None:
    for name in _in("cogs") + ["bot"]:
        tree = ast.parse(MODULES[name].read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get_cog":
                raise AssertionError(f"{name} looks a cog up by name")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                    and any(word in ast.unparse(node.args[0]) for word in ("client", "bot"))):
                raise AssertionError(f"{name} looks {node.args[1].value!r} up on the bot by name")


def test_incoming_handlers_and_outgoing_layouts_are_apart() -> None:
    layouts = [name for name in MODULES if name.startswith("cogs.layouts.")]
    assert layouts
    for name in layouts:
        assert "cogs.components" not in internal(name)
        assert not {module for module in internal("cogs.components") if module.startswith("cogs.layouts")}
    assert not _top(imports_of("cogs.components")) & {"runtime"}  # it parses and hands on, nothing else


def test_layouts_are_pure() -> None:
    """A layout is a function of a snapshot and a language: no delivery, no service, no database session."""
    for name in [name for name in MODULES if name.startswith("cogs.layouts.")]:
        inside = internal(name)
        assert not {module for module in inside if module.startswith(("cogs.delivery", "runtime.service",
                                                                       "runtime.store", "db.database"))}, name
        assert "async def" not in MODULES[name].read_text(), f"{name} does I/O"


def test_a_circle_would_be_found() -> None:
    """The check above is not vacuous."""
    original = internal

    def with_circle(name: str) -> set[str]:
        extra = {"cogs.layouts.words"} if name == "cogs.delivery.answers" else set()
        extra |= {"cogs.delivery.answers"} if name == "cogs.layouts.words" else set()
        return original(name) | extra

    globals()["internal"] = with_circle
    try:
        assert _cycle(_in("cogs")) is not None
    finally:
        globals()["internal"] = original

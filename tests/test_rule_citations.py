"""Rule citations point at sections that exist (issue 45).

Code, tests and documents cite the repository's rules reference as
"docs/rules.md §3" (or §3.2, or a range "§1–2").  This test reads every
tracked ``.py`` and ``.md`` file and fails when

* a citation names a section that docs/rules.md has no heading for;
* a "§N" stands alone, not as part of a "docs/rules.md §N" citation (outside
  docs/rules.md itself, where "§N" refers to its own sections);
* a file still cites the team's RULES.md, which a clone of the repository does
  not have (docs/rules.md itself may name it as its origin).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES_DOC = "docs/rules.md"
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()  # its examples of bad citations are on purpose

_NUMBER = r"\d+(?:\.\d+)*"
# "docs/rules.md §3", "docs/rules.md §3.2", "docs/rules.md §1–2", "docs/rules.md §3, §4", "docs/rules.md
# §5" across a line break.  A range needs no second "§"; a list does.
CITATION = re.compile(
    rf"docs/rules\.md\s+§\s*{_NUMBER}(?:\s*[–-]\s*§?\s*{_NUMBER}|\s*(?:,|and|or)\s*§\s*{_NUMBER})*"
)
SECTION_NUMBER = re.compile(_NUMBER)
SECTION_SIGN = re.compile(rf"§\s*({_NUMBER})")
HEADING = re.compile(rf"^#{{1,6}}\s+({_NUMBER})\.?\s")
OLD_REFERENCE = re.compile(r"RULES\.md|\bRULES\s+(?:§|example)")  # also the old shorthand "RULES example"


def headings(text: str) -> set[str]:
    """The section numbers of a markdown text: "## 3. Flow" → "3", "### 3.2 Who leads" → "3.2"."""
    found = set()
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        match = HEADING.match(line)
        if match and not in_code:
            found.add(match.group(1))
    return found


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def problems(path: str, text: str, sections: set[str]) -> list[str]:
    """Everything wrong with the rule citations of one file, as "path:line: what"."""
    out: list[str] = []
    cited_spans: list[tuple[int, int]] = []
    own_doc = path == RULES_DOC
    for match in CITATION.finditer(text):
        cited_spans.append(match.span())
        run = match.group(0)[len("docs/rules.md"):]
        for number in SECTION_NUMBER.findall(run):
            if number not in sections:
                out.append(f"{path}:{_line_of(text, match.start())}: cites docs/rules.md §{number}, "
                           f"which has no such section")
    for match in SECTION_SIGN.finditer(text):
        if any(start <= match.start() < end for start, end in cited_spans):
            continue
        if own_doc:  # docs/rules.md refers to its own sections as "§N"
            if match.group(1) not in sections:
                out.append(f"{path}:{_line_of(text, match.start())}: refers to §{match.group(1)}, "
                           f"which has no such section")
            continue
        out.append(f"{path}:{_line_of(text, match.start())}: bare {match.group(0)!r}: "
                   f"cite it as 'docs/rules.md {match.group(0)}'")
    if not own_doc:
        for match in OLD_REFERENCE.finditer(text):
            out.append(f"{path}:{_line_of(text, match.start())}: cites RULES.md, which is not in the "
                       f"repository: cite docs/rules.md §N")
    return out


def tracked_files() -> list[str]:
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z", "--", "*.py", "*.md"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return sorted(name for name in listing.split("\0") if name and (ROOT / name).is_file())


def rules_sections() -> set[str]:
    return headings((ROOT / RULES_DOC).read_text(encoding="utf-8"))


# ------------------------------------------------------------------ the repository
def test_rules_doc_has_the_numbered_sections_that_are_cited() -> None:
    sections = rules_sections()
    assert {"1", "2", "3", "4", "5", "6"} <= sections


def test_every_rule_citation_names_an_existing_section_of_docs_rules_md() -> None:
    sections = rules_sections()
    files = tracked_files()
    assert RULES_DOC in files or (ROOT / RULES_DOC).is_file()
    found = []
    cited = 0
    for name in files:
        if name == SELF:
            continue
        text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
        cited += len(CITATION.findall(text))
        found += problems(name, text, sections)
    assert found == []
    assert cited > 20  # the scan really sees the citations


# ------------------------------------------------------------------ the scanner itself
SECTIONS = {"1", "2", "3", "3.2", "4", "5", "6"}


@pytest.mark.parametrize(
    "text",
    [
        '"""Who leads (docs/rules.md §3)."""',
        "# --- chopping (docs/rules.md §2) ---",
        "see docs/rules.md §3.2 and docs/rules.md §1–2",
        "the payments (docs/rules.md\n§5) and how",
        "docs/rules.md §3, §4",
        "docs/rules.md, dealing order",
    ],
)
def test_good_citations_pass(text: str) -> None:
    assert problems("x.py", text, SECTIONS) == []


@pytest.mark.parametrize(
    "text, what",
    [
        ("docs/rules.md §9", "no such section"),
        ("docs/rules.md §3.7", "no such section"),
        ("docs/rules.md §1–8", "no such section"),
        ("docs/rules.md §3, §8", "no such section"),
        ("# --- flow (§3) ---", "bare"),
        ("# RULES §6 example", "bare"),
        ("(RULES.md §3)", "RULES.md"),
        ("the presets of ``shared/RULES.md``", "RULES.md"),
        ("# RULES example: 5C < 5D", "RULES.md"),
    ],
)
def test_bad_citations_are_caught(text: str, what: str) -> None:
    found = problems("x.py", text, SECTIONS)
    assert any(what in line for line in found), found


def test_the_rules_doc_may_name_its_origin_but_not_a_missing_section() -> None:
    assert problems(RULES_DOC, "drawn from the team's RULES.md; see §3.2", SECTIONS) == []
    assert problems(RULES_DOC, "see §7", SECTIONS) != []


def test_headings_are_read_with_and_without_a_dot() -> None:
    text = "# Title\n## 1. Combinations\n### 1.1 The kinds\n```\n## 9. not a heading\n```\n## Options\n"
    assert headings(text) == {"1", "1.1"}

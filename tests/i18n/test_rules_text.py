"""`/tienlen rules` help text: generated from the rule set, complete, in both languages.

The help must say exactly what the engine plays: every chop in ``rules.chops``
and every instant win in ``rules.instant_wins``, nothing more, and any change
to any rule-set field must show in the text.  Every value the pages show is
built from the rule set's own field, and the rules reference docs/rules.md
(its option table, chop table and place table) says what ``RULESETS`` holds.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import i18n
import i18n.rules_text as rules_text
from i18n import LANGUAGES, placeholders, t
from i18n.rules_text import PAGE_KEYS, RulesPage, preset_title, rules_pages, rules_summary
from tienlen.rules import (
    RULESETS,
    Bomb,
    ChopTarget,
    CongRule,
    FinishOnTwo,
    InstantWinKind,
    InstantWinTieBreak,
    LeftoverRule,
    OutOfTurnResume,
    RuleSet,
)

LOCALES = Path(i18n.__file__).parent / "locales"
PRESETS = sorted(RULESETS)
CASES = [(name, lang) for name in PRESETS for lang in LANGUAGES]
ALL_CHOPS = frozenset((target, bomb) for target in ChopTarget for bomb in Bomb)
PAIR_RUNS = {Bomb.THREE_PAIRS.value, Bomb.FOUR_PAIRS.value}


# ------------------------------------------------------------------ helpers
def pages_by_key(rules: RuleSet, lang: str) -> dict[str, RulesPage]:
    return dict(zip(PAGE_KEYS, rules_pages(rules, lang), strict=True))


def bodies(rules: RuleSet, lang: str) -> str:
    return "\n".join(page.body for page in rules_pages(rules, lang))


def summary_items(rules: RuleSet, lang: str) -> str:
    """The summary without its first line (the preset label, which marks any change)."""
    return rules_summary(rules, lang).split("\n", 1)[1]


def listed_chops(rules: RuleSet, lang: str) -> dict[Bomb, set[ChopTarget]]:
    """Read the chops page back: for each "• **bomb** …" line, the targets it names."""
    lines = pages_by_key(rules, lang)["chops"].body.lower().splitlines()
    found: dict[Bomb, set[ChopTarget]] = {}
    for bomb in Bomb:
        marker = "• **" + t(lang, f"rules.bomb.{bomb.value}").lower() + "**"
        matching = [line for line in lines if line.startswith(marker)]
        assert len(matching) <= 1, matching
        if matching:
            rest = matching[0][len(marker):]
            found[bomb] = {
                target for target in ChopTarget if t(lang, f"rules.target.{target.value}").lower() in rest
            }
    return found


def expected_chops(rules: RuleSet) -> dict[Bomb, set[ChopTarget]]:
    """rules.chops by bomb, leaving out đôi thông chops when the rules have no đôi thông."""
    out: dict[Bomb, set[ChopTarget]] = {}
    for target, bomb in rules.chops:
        if not rules.consecutive_pairs and not {target.value, bomb.value}.isdisjoint(PAIR_RUNS):
            continue
        out.setdefault(bomb, set()).add(target)
    return out


def instant_name(lang: str, kind: InstantWinKind) -> str:
    return t(lang, f"rules.instant.name.{kind.value}")


def listed_instant_wins(rules: RuleSet, lang: str) -> set[InstantWinKind]:
    body = pages_by_key(rules, lang)["instant"].body
    return {kind for kind in InstantWinKind if f"• **{instant_name(lang, kind)}:**" in body}


def flatten(data: dict, prefix: str = "") -> dict[str, str]:
    """Dotted keys; a plural entry (a table of forms such as one/other) is one key."""
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and "other" in value:
            out[name] = i18n.Plural(value)
        elif isinstance(value, dict):
            out |= flatten(value, name)
        else:
            out[name] = value
    return out


def load(path: Path) -> dict[str, str]:
    with path.open("rb") as handle:
        return flatten(tomllib.load(handle))


# ------------------------------------------------------------ chops and instant wins
@pytest.mark.parametrize("name,lang", CASES)
def test_every_chop_is_listed_under_its_bomb_and_nothing_else(name: str, lang: str) -> None:
    rules = RULESETS[name]
    assert rules.chops  # every preset chops something
    assert listed_chops(rules, lang) == expected_chops(rules)


@pytest.mark.parametrize("name,lang", CASES)
def test_every_instant_win_is_listed_and_no_other(name: str, lang: str) -> None:
    rules = RULESETS[name]
    body = pages_by_key(rules, lang)["instant"].body
    assert listed_instant_wins(rules, lang) == set(rules.instant_wins)
    for kind in set(InstantWinKind) - rules.instant_wins:
        assert instant_name(lang, kind).lower() not in body.lower()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_instant_wins_says_so(lang: str) -> None:
    assert not RULESETS["mien-bac"].instant_wins
    assert pages_by_key(RULESETS["mien-bac"], lang)["instant"].body == t(lang, "rules.instant.none")
    assert t(lang, "rules.instant.none") not in bodies(RULESETS["mien-nam"], lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_iwin_lists_its_extra_instant_win(lang: str) -> None:
    assert InstantWinKind.THREE_SPADES_OPENING in listed_instant_wins(RULESETS["iwin"], lang)
    assert InstantWinKind.THREE_SPADES_OPENING not in listed_instant_wins(RULESETS["mien-nam"], lang)


@settings(max_examples=60, deadline=None)
@given(
    chops=st.frozensets(st.sampled_from(sorted(ALL_CHOPS))),
    consecutive_pairs=st.booleans(),
    kinds=st.frozensets(st.sampled_from(list(InstantWinKind))),
    lang=st.sampled_from(LANGUAGES),
)
def test_any_chop_and_instant_win_set_is_read_back_exactly(chops, consecutive_pairs, kinds, lang) -> None:
    rules = replace(RULESETS["mien-nam"], chops=chops, consecutive_pairs=consecutive_pairs, instant_wins=kinds)
    assert listed_chops(rules, lang) == expected_chops(rules)
    assert listed_instant_wins(rules, lang) == set(kinds)


# --------------------------------------------------- every field shows in the text
# One change per RuleSet field, on a preset where the field matters.
FLIPS: dict[str, tuple[str, object]] = {
    "follow_suit": ("mien-nam", True),
    "twos_beat_any_suit": ("mien-bac", False),
    "consecutive_pairs": ("mien-nam", False),
    "chops": ("mien-nam", RULESETS["mien-nam"].chops - {(ChopTarget.SINGLE_TWO, Bomb.THREE_PAIRS)}),
    "four_pairs_out_of_turn": ("mien-nam", False),
    "out_of_turn_resume": ("mien-nam", OutOfTurnResume.INTERRUPTED_SEAT),
    "first_lead_must_include_lowest": ("mien-nam", False),
    "winner_left_lead": ("mien-nam", "second-place"),
    "finish_on_two": ("mien-nam", FinishOnTwo.FORBIDDEN),
    "turn_seconds": ("mien-nam", 45),
    "dealer_seat": ("mien-nam", 2),
    "instant_wins": ("mien-nam", RULESETS["mien-nam"].instant_wins - {InstantWinKind.FIVE_CONSECUTIVE_PAIRS}),
    "dragon_length": ("mien-nam", 12),
    "quad_counts_as_two_pairs": ("mien-nam", False),
    "instant_win_tie_break": ("mien-nam", InstantWinTieBreak.DEAL_ORDER),
    "instant_win_payment": ("mien-nam", 3),
    "place_payments": ("mien-nam", RULESETS["mien-bac"].place_payments),
    "chop_money": ("mien-nam", False),
    "black_two_value": ("mien-nam", 5),
    "red_two_value": ("mien-nam", 5),
    "three_pairs_value": ("mien-nam", 5),
    "four_of_a_kind_value": ("mien-nam", 5),
    "four_pairs_value": ("mien-nam", 5),
    "leftover": ("mien-nam", LeftoverRule.CHOP_VALUES),
    "north_leftover_four_of_a_kind": ("mien-bac", 4),
    "cong": ("mien-nam", CongRule.NONE),
    "cong_base": ("mien-nam", 7),
    "finish_on_two_penalty": ("mien-bac", 3),
    "leave_penalty": ("mien-nam", 0),
    "rake_percent": ("mien-nam", 7),
    "min_players": ("mien-nam", 3),
    "max_players": ("mien-nam", 3),
}


def test_every_rule_field_has_a_flip() -> None:
    """A new RuleSet field must be explained by the help (and flipped here)."""
    fields = {field.name for field in dataclasses.fields(RuleSet)} - {"name"}
    assert set(FLIPS) == fields


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("field", sorted(FLIPS))
def test_changing_any_field_changes_the_pages(field: str, lang: str) -> None:
    name, value = FLIPS[field]
    base = RULESETS[name]
    assert getattr(base, field) != value
    changed = replace(base, **{field: value})
    assert bodies(changed, lang) != bodies(base, lang)
    # The title says the table changed the preset.
    assert rules_pages(changed, lang)[0].title != rules_pages(base, lang)[0].title
    assert preset_title(name, lang) in rules_pages(changed, lang)[0].title


def fragment_cases():
    south, north = RULESETS["mien-nam"], RULESETS["mien-bac"]

    def units(lang: str, n: int) -> str:
        return t(lang, "rules.units", n=n)

    return [
        # (description, base, change, text expected only after the change, text expected only before)
        ("4 đôi thông no longer free", south, {"four_pairs_out_of_turn": False},
         None, lambda lang: t(lang, "rules.chops.free")),
        ("12-card dragon", south, {"dragon_length": 12},
         lambda lang: t(lang, "rules.instant.dragon_12", name=instant_name(lang, InstantWinKind.DRAGON)),
         lambda lang: t(lang, "rules.instant.dragon_13", name=instant_name(lang, InstantWinKind.DRAGON))),
        ("no six pairs", south, {"instant_wins": south.instant_wins - {InstantWinKind.SIX_PAIRS}},
         None, lambda lang: instant_name(lang, InstantWinKind.SIX_PAIRS)),
        ("cóng base", south, {"cong_base": 7},
         lambda lang: t(lang, "rules.money.cong", units=units(lang, 7), held=t(lang, "rules.money.held_chop")),
         lambda lang: t(lang, "rules.money.cong", units=units(lang, 2), held=t(lang, "rules.money.held_chop"))),
        ("rake", south, {"rake_percent": 7},
         lambda lang: t(lang, "rules.money.rake", percent=7), lambda lang: t(lang, "rules.money.no_rake")),
        ("no leave penalty", south, {"leave_penalty": 0},
         lambda lang: t(lang, "rules.money.leave"),
         lambda lang: t(lang, "rules.money.leave_penalty", units=units(lang, 1))),
        ("follow suit", south, {"follow_suit": True},
         lambda lang: t(lang, "rules.combos.single_suit"), lambda lang: t(lang, "rules.combos.single")),
        ("going out on a 2 penalised", south, {"finish_on_two": FinishOnTwo.PENALTY},
         lambda lang: t(lang, "rules.flow.finish.penalty", units=units(lang, 2)), None),
        ("going out on a 2 allowed", north, {"finish_on_two": FinishOnTwo.ALLOWED},
         None, lambda lang: t(lang, "rules.flow.finish.penalty", units=units(lang, 2))),
        ("going out on a 2 refused", north, {"finish_on_two": FinishOnTwo.FORBIDDEN},
         lambda lang: t(lang, "rules.flow.finish.forbidden", units=units(lang, 2)),
         lambda lang: t(lang, "rules.flow.finish.penalty", units=units(lang, 2))),
        ("chop values", south, {"four_of_a_kind_value": 5},
         lambda lang: t(lang, "rules.money.value", name=t(lang, "rules.target.four-of-a-kind"), units=units(lang, 5)),
         lambda lang: t(lang, "rules.money.value", name=t(lang, "rules.target.four-of-a-kind"), units=units(lang, 3))),
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("case", fragment_cases(), ids=lambda case: case[0])
def test_a_changed_field_changes_the_right_sentence(case, lang: str) -> None:
    _, base, change, after, before = case
    old, new = bodies(base, lang), bodies(replace(base, **change), lang)
    if after is not None:
        assert after(lang) not in old and after(lang) in new
    if before is not None:
        assert before(lang) in old and before(lang) not in new


@pytest.mark.parametrize("lang", LANGUAGES)
def test_chain_example_adds_up_the_chopped_values(lang: str) -> None:
    rules = RULESETS["mien-nam"]
    # red 2 + 3 đôi thông + tứ quý are chopped; the last 4 đôi thông is not counted.
    total = rules.red_two_value + rules.three_pairs_value + rules.four_of_a_kind_value
    assert f"2 + 2 + 3 = {t(lang, 'rules.units', n=total)}" in bodies(rules, lang)
    cheaper = replace(rules, four_of_a_kind_value=1)
    assert f"2 + 2 + 1 = {t(lang, 'rules.units', n=5)}" in bodies(cheaper, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_place_money_follows_place_lines(lang: str) -> None:
    for name in PRESETS:
        rules = RULESETS[name]
        money = pages_by_key(rules, lang)["money"].body
        for players in range(rules.min_players, rules.max_players + 1):
            for payer, payee, units in rules.place_lines(players):
                line = t(
                    lang, "rules.money.place_payment",
                    payer=t(lang, f"rules.place.{payer}"), payee=t(lang, f"rules.place.{payee}"),
                    units=t(lang, "rules.units", n=units),
                )
                assert line in money


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(
    "change,item",
    [
        ({"four_pairs_out_of_turn": False}, "rules.summary.free_four_pairs"),
        ({"instant_wins": frozenset()}, "rules.summary.instant_wins"),
        ({"cong": CongRule.NONE}, "rules.summary.cong"),
    ],
)
def test_summary_drops_what_is_switched_off(change, item: str, lang: str) -> None:
    rules = RULESETS["mien-nam"]
    assert t(lang, item) in summary_items(rules, lang)
    assert t(lang, item) not in summary_items(replace(rules, **change), lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_summary_shows_rake_turn_time_and_suit_following(lang: str) -> None:
    iwin, north = RULESETS["iwin"], RULESETS["mien-bac"]
    assert t(lang, "rules.summary.rake", percent=5) in summary_items(iwin, lang)
    assert t(lang, "rules.summary.turn", seconds=20) in summary_items(iwin, lang)
    assert t(lang, "rules.summary.follow_suit") in summary_items(north, lang)
    assert t(lang, "rules.summary.follow_suit") not in summary_items(iwin, lang)


# ------------------------------------------------------------------- sizes and form
def maximal_rules() -> RuleSet:
    """Every optional sentence switched on, for the length limits."""
    return replace(
        RULESETS["iwin"],
        follow_suit=True,
        chops=ALL_CHOPS,
        finish_on_two=FinishOnTwo.FORBIDDEN,
        instant_wins=frozenset(InstantWinKind),
        dealer_seat=3,
        leave_penalty=2,
        turn_seconds=120,
        rake_percent=10,
    )


SIZED = [RULESETS[name] for name in PRESETS] + [maximal_rules()]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rules", SIZED, ids=lambda rules: rules.name + ("*" if rules.options() else ""))
def test_pages_fit_a_discord_embed(rules: RuleSet, lang: str) -> None:
    pages = rules_pages(rules, lang)
    assert [page.title for page in pages] == [
        t(lang, "rules.page_title", page=t(lang, f"rules.page.{key}"), preset=pages[0].title.split(" · ", 1)[1])
        for key in PAGE_KEYS
    ]
    for page in pages:
        assert 0 < len(page.title) <= 256
        assert 0 < len(page.body) <= 4096
    summary = rules_summary(rules, lang)
    assert len(summary) <= 200
    assert summary.count("\n") == 1


@pytest.mark.parametrize("name,lang", CASES)
def test_preset_pages_stay_phone_sized(name: str, lang: str) -> None:
    """Aim ≤ 1500 characters a page; allow a little over for the richest preset."""
    assert max(len(page.body) for page in rules_pages(RULESETS[name], lang)) <= 1800


def check_form(rules: RuleSet, lang: str) -> None:
    texts = [rules_summary(rules, lang)]
    texts += [part for page in rules_pages(rules, lang) for part in (page.title, page.body)]
    for text in texts:
        assert "rules." not in text  # a missing key would show as itself
        assert "{" not in text and "}" not in text  # every placeholder filled
        assert "  " not in text and not text.startswith(" ")
        for line in text.splitlines():
            assert line.strip() == line and line
            assert line.count("**") % 2 == 0, line  # bold markers pair up on each line


@pytest.mark.parametrize("name,lang", CASES)
def test_preset_text_is_well_formed(name: str, lang: str) -> None:
    check_form(RULESETS[name], lang)


@settings(max_examples=80, deadline=None)
@given(
    data=st.fixed_dictionaries(
        {
            "follow_suit": st.booleans(),
            "twos_beat_any_suit": st.booleans(),
            "consecutive_pairs": st.booleans(),
            "chops": st.frozensets(st.sampled_from(sorted(ALL_CHOPS))),
            "four_pairs_out_of_turn": st.booleans(),
            "out_of_turn_resume": st.sampled_from(list(OutOfTurnResume)),
            "first_lead_must_include_lowest": st.booleans(),
            "winner_left_lead": st.sampled_from(["three-spades", "second-place"]),
            "finish_on_two": st.sampled_from(list(FinishOnTwo)),
            "turn_seconds": st.integers(10, 120),
            "dealer_seat": st.integers(0, 3),
            "instant_wins": st.frozensets(st.sampled_from(list(InstantWinKind))),
            "dragon_length": st.sampled_from([12, 13]),
            "quad_counts_as_two_pairs": st.booleans(),
            "instant_win_tie_break": st.sampled_from(list(InstantWinTieBreak)),
            "chop_money": st.booleans(),
            "leftover": st.sampled_from(list(LeftoverRule)),
            "cong": st.sampled_from(list(CongRule)),
            "cong_base": st.integers(0, 9),
            "leave_penalty": st.integers(0, 9),
            "rake_percent": st.integers(0, 20),
            "min_players": st.integers(2, 4),
        }
    ),
    base=st.sampled_from(PRESETS),
    lang=st.sampled_from(LANGUAGES),
)
def test_any_rule_set_gives_well_formed_pages_that_fit(data, base: str, lang: str) -> None:
    rules = replace(RULESETS[base], **data)
    check_form(rules, lang)
    assert all(len(page.body) <= 4096 and len(page.title) <= 256 for page in rules_pages(rules, lang))
    assert len(rules_summary(rules, lang)) <= 200


@pytest.mark.parametrize("name,lang", CASES)
def test_rebuilt_rule_set_reads_the_same(name: str, lang: str) -> None:
    rules = replace(RULESETS[name], rake_percent=3, dragon_length=12)
    rebuilt = RuleSet.from_options(name, rules.options())
    assert rules_pages(rebuilt, lang) == rules_pages(rules, lang)


def test_unknown_language_reads_english() -> None:
    rules = RULESETS["mien-nam"]
    assert rules_pages(rules, "fr") == rules_pages(rules, "en")
    assert rules_summary(rules, "fr") == rules_summary(rules, "en")


def test_preset_titles() -> None:
    assert preset_title("mien-nam", "vi") == "Miền Nam"
    assert preset_title("mien-bac", "en") == "Northern (miền Bắc)"
    assert preset_title("no-such-preset", "vi") == "no-such-preset"
    for name in PRESETS:
        assert preset_title(name, "en") != preset_title(name, "vi")


def test_pages_are_immutable() -> None:
    page = rules_pages(RULESETS["mien-nam"], "en")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        page.title = "x"  # type: ignore[misc]


# ------------------------------------------------------------- the real Vietnamese
VI_TERMS = ["heo", "đôi", "sám", "sảnh", "đôi thông", "tứ quý", "chặt", "chặt chồng", "tới trắng",
            "sảnh rồng", "cóng", "thối", "úng", "hàng", "bỏ lượt", "ba bích", "cược", "xâu"]


@pytest.mark.parametrize("name", ["mien-nam", "iwin"])
def test_vietnamese_uses_the_real_terms(name: str) -> None:
    text = bodies(RULESETS[name], "vi").lower()
    missing = [term for term in VI_TERMS if term not in text]
    assert missing == []


@pytest.mark.parametrize("name", PRESETS)
def test_english_gives_the_vietnamese_terms(name: str) -> None:
    text = bodies(RULESETS[name], "en")
    for term in ["(đôi)", "(sảnh)", "(tứ quý)", "(hàng)", "(chặt)", "**heo**"]:
        assert term in text


# ------------------------------------------------------------------ the catalogues
RULES_FILES = {lang: LOCALES / lang / "rules.toml" for lang in LANGUAGES}

# Keys whose text is rightly the same in both languages (Vietnamese terms, punctuation).
SAME_IN_BOTH = {
    "rules.list_sep", "rules.page_title", "rules.summary.line", "rules.summary.sep", "rules.summary.cong",
    "rules.target.3-consecutive-pairs", "rules.target.four-of-a-kind", "rules.target.4-consecutive-pairs",
}


def test_rules_catalogues_have_the_same_keys_and_placeholders() -> None:
    english, vietnamese = (load(RULES_FILES[lang]) for lang in LANGUAGES)
    assert sorted(english) == sorted(vietnamese)
    for key, text in english.items():
        assert placeholders(text) == placeholders(vietnamese[key]), key


def test_vietnamese_is_translated() -> None:
    english, vietnamese = load(RULES_FILES["en"]), load(RULES_FILES["vi"])
    copied = sorted(key for key in english if english[key] == vietnamese[key])
    assert set(copied) <= SAME_IN_BOTH


def test_every_key_is_under_rules_and_nowhere_else() -> None:
    """The catalogue merges all files of a language; a clash would silently replace a string."""
    for lang, path in RULES_FILES.items():
        ours = load(path)
        assert all(key.startswith("rules.") for key in ours)
        for other in sorted((LOCALES / lang).glob("*.toml")):
            if other != path:
                assert set(load(other)).isdisjoint(ours), other.name


def test_every_rules_string_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each key is looked up by some rule set, and every key looked up exists."""
    used: set[str] = set()

    def recording_t(lang: str, key: str, /, **params: object) -> str:
        used.add(key)
        return t(lang, key, **params)

    monkeypatch.setattr(rules_text, "t", recording_t)
    variants = [RULESETS[name] for name in PRESETS] + [maximal_rules()]
    variants += [replace(RULESETS[name], **{field: value}) for field, (name, value) in FLIPS.items()]
    variants += [replace(RULESETS["mien-nam"], winner_left_lead="second-place", finish_on_two=FinishOnTwo.PENALTY,
                         cong=CongRule.NONE, chop_money=False, leftover=LeftoverRule.NORTH, min_players=4,
                         chops=frozenset())]
    for rules in variants:
        for lang in LANGUAGES:
            rules_pages(rules, lang)
            rules_summary(rules, lang)
    defined = set(load(RULES_FILES["en"]))
    assert used - defined == set()
    assert defined - used == set()


def test_seconds_are_counted_in_the_right_number() -> None:
    one = bodies(replace(RULESETS["mien-nam"], turn_seconds=1), "en")
    assert "**Turn time:** 1 second." in one and "when your 1 second runs out" in one
    many = bodies(replace(RULESETS["mien-nam"], turn_seconds=30), "en")
    assert "**Turn time:** 30 seconds." in many and "when your 30 seconds run out" in many
    assert "**Thời gian mỗi lượt:** 1 giây." in bodies(replace(RULESETS["mien-nam"], turn_seconds=1), "vi")


# ------------------------------------------- every value shown comes from the RuleSet
# For each field whose value the pages show: when it applies to a rule set, and the
# sentence the pages must contain, built here from the rule set's own fields. The test
# then checks that each preset's pages say exactly that, and that another value of the
# field (the last item) is shown instead of the preset's, never beside it.
def _units(lang: str, n: int) -> str:
    return t(lang, "rules.units", n=n)


def _value(lang: str, name_key: str, n: int) -> str:
    return t(lang, "rules.money.value", name=t(lang, name_key), units=_units(lang, n))


def _held(lang: str, rules: RuleSet) -> str:
    if rules.chop_money and expected_chops(rules):
        return t(lang, "rules.money.held_chop")
    return t(lang, "rules.list_sep").join(
        [_value(lang, "rules.money.black_two", rules.black_two_value),
         _value(lang, "rules.money.red_two", rules.red_two_value)]
        + ([_value(lang, "rules.target.3-consecutive-pairs", rules.three_pairs_value)] if rules.consecutive_pairs else [])
        + [_value(lang, "rules.target.four-of-a-kind", rules.four_of_a_kind_value)]
        + ([_value(lang, "rules.target.4-consecutive-pairs", rules.four_pairs_value)] if rules.consecutive_pairs else [])
    )


def _players(lang: str, rules: RuleSet) -> str:
    if rules.min_players == rules.max_players:
        return t(lang, "rules.overview.players_fixed", n=rules.min_players)
    return t(lang, "rules.overview.players_range", min=rules.min_players, max=rules.max_players)


def _has(kind: InstantWinKind):
    return lambda rules: kind in rules.instant_wins


def _always(rules: RuleSet) -> bool:
    return True


SHOWN = {
    "turn_seconds": (
        _always,
        lambda lang, r: t(lang, "rules.overview.turn", seconds=r.turn_seconds, count=r.turn_seconds),
        lambda r: r.turn_seconds + 17,
    ),
    "min_players": (_always, _players, lambda r: 3),
    "max_players": (_always, _players, lambda r: 3),
    "follow_suit": (
        _always,
        lambda lang, r: t(lang, "rules.combos.single_suit" if r.follow_suit else "rules.combos.single"),
        lambda r: not r.follow_suit,
    ),
    "first_lead_must_include_lowest": (
        _always,
        lambda lang, r: t(lang, "rules.flow.first_lead_must" if r.first_lead_must_include_lowest
                          else "rules.flow.first_lead_free"),
        lambda r: not r.first_lead_must_include_lowest,
    ),
    "winner_left_lead": (
        _always,
        lambda lang, r: t(lang, f"rules.flow.winner_left.{r.winner_left_lead}"),
        lambda r: "second-place" if r.winner_left_lead == "three-spades" else "three-spades",
    ),
    "out_of_turn_resume": (
        lambda r: r.four_pairs_out_of_turn and r.consecutive_pairs,
        lambda lang, r: t(lang, f"rules.chops.resume.{r.out_of_turn_resume.value}"),
        lambda r: next(item for item in OutOfTurnResume if item is not r.out_of_turn_resume),
    ),
    "finish_on_two_penalty": (
        lambda r: r.finish_on_two is not FinishOnTwo.ALLOWED,
        lambda lang, r: t(lang, f"rules.flow.finish.{r.finish_on_two.value}", units=_units(lang, r.finish_on_two_penalty)),
        lambda r: r.finish_on_two_penalty + 3,
    ),
    "instant_win_payment": (
        lambda r: bool(r.instant_wins),
        lambda lang, r: t(lang, "rules.instant.intro", units=_units(lang, r.instant_win_payment)),
        lambda r: r.instant_win_payment + 5,
    ),
    "instant_win_tie_break": (
        lambda r: bool(r.instant_wins),
        lambda lang, r: t(lang, f"rules.instant.tie.{r.instant_win_tie_break.value}"),
        lambda r: next(item for item in InstantWinTieBreak if item is not r.instant_win_tie_break),
    ),
    "dealer_seat": (
        lambda r: bool(r.instant_wins),
        lambda lang, r: (t(lang, "rules.instant.deal_host") if r.dealer_seat == 0
                         else t(lang, "rules.instant.deal_seat", seat=r.dealer_seat + 1)),
        lambda r: (r.dealer_seat + 2) % 4,
    ),
    "dragon_length": (
        _has(InstantWinKind.DRAGON),
        lambda lang, r: t(lang, f"rules.instant.dragon_{r.dragon_length}", name=instant_name(lang, InstantWinKind.DRAGON)),
        lambda r: 25 - r.dragon_length,
    ),
    "quad_counts_as_two_pairs": (
        _has(InstantWinKind.SIX_PAIRS),
        lambda lang, r: t(lang, "rules.instant.six_pairs" if r.quad_counts_as_two_pairs
                          else "rules.instant.six_pairs_quad_one", name=instant_name(lang, InstantWinKind.SIX_PAIRS)),
        lambda r: not r.quad_counts_as_two_pairs,
    ),
    "black_two_value": (
        _always,
        lambda lang, r: _value(lang, "rules.money.black_two", r.black_two_value),
        lambda r: r.black_two_value + 8,
    ),
    "red_two_value": (
        _always,
        lambda lang, r: _value(lang, "rules.money.red_two", r.red_two_value),
        lambda r: r.red_two_value + 8,
    ),
    "three_pairs_value": (
        lambda r: r.chop_money and r.consecutive_pairs,
        lambda lang, r: _value(lang, "rules.target.3-consecutive-pairs", r.three_pairs_value),
        lambda r: r.three_pairs_value + 8,
    ),
    "four_of_a_kind_value": (
        lambda r: r.chop_money,
        lambda lang, r: _value(lang, "rules.target.four-of-a-kind", r.four_of_a_kind_value),
        lambda r: r.four_of_a_kind_value + 8,
    ),
    "four_pairs_value": (
        lambda r: r.chop_money and r.consecutive_pairs,
        lambda lang, r: _value(lang, "rules.target.4-consecutive-pairs", r.four_pairs_value),
        lambda r: r.four_pairs_value + 8,
    ),
    "north_leftover_four_of_a_kind": (
        lambda r: r.leftover is LeftoverRule.NORTH,
        lambda lang, r: _value(lang, "rules.target.four-of-a-kind", r.north_leftover_four_of_a_kind),
        lambda r: r.north_leftover_four_of_a_kind + 8,
    ),
    "cong_base": (
        lambda r: r.cong is not CongRule.NONE,
        lambda lang, r: t(lang, "rules.money.cong", units=_units(lang, r.cong_base), held=_held(lang, r)),
        lambda r: r.cong_base + 5,
    ),
    "leave_penalty": (
        _always,
        lambda lang, r: (t(lang, "rules.money.leave_penalty", units=_units(lang, r.leave_penalty)) if r.leave_penalty
                         else t(lang, "rules.money.leave")),
        lambda r: r.leave_penalty + 2,
    ),
    "rake_percent": (
        _always,
        lambda lang, r: (t(lang, "rules.money.rake", percent=r.rake_percent) if r.rake_percent
                         else t(lang, "rules.money.no_rake")),
        lambda r: r.rake_percent + 3,
    ),
}
# The other fields choose what is listed rather than a value in a sentence, and are
# read back from the pages by the tests named.
READ_BACK_ELSEWHERE = {
    "chops": "test_every_chop_is_listed_under_its_bomb_and_nothing_else",
    "consecutive_pairs": "test_every_chop_is_listed_under_its_bomb_and_nothing_else",
    "four_pairs_out_of_turn": "test_a_changed_field_changes_the_right_sentence",
    "twos_beat_any_suit": "test_changing_any_field_changes_the_pages",
    "finish_on_two": "test_a_changed_field_changes_the_right_sentence",
    "instant_wins": "test_every_instant_win_is_listed_and_no_other",
    "place_payments": "test_place_money_follows_place_lines",
    "chop_money": "test_changing_any_field_changes_the_pages",
    "leftover": "test_preset_leftover_and_cong_sentences_follow_the_rule_set",
    "cong": "test_preset_leftover_and_cong_sentences_follow_the_rule_set",
}
SHOWN_CASES = [
    (field, name, lang)
    for field, (applies, _, _) in SHOWN.items()
    for name in PRESETS
    if applies(RULESETS[name])
    for lang in LANGUAGES
]


def test_every_field_is_shown_from_the_rule_set_or_read_back() -> None:
    fields = {field.name for field in dataclasses.fields(RuleSet)} - {"name"}
    assert set(SHOWN) | set(READ_BACK_ELSEWHERE) == fields
    assert not set(SHOWN) & set(READ_BACK_ELSEWHERE)
    assert all(test in globals() for test in READ_BACK_ELSEWHERE.values())
    # every value-bearing field is shown by at least one preset
    assert {field for field, _, _ in SHOWN_CASES} == set(SHOWN)


@pytest.mark.parametrize("field,name,lang", SHOWN_CASES)
def test_preset_value_on_the_pages_is_the_rule_sets_own(field: str, name: str, lang: str) -> None:
    _, fragment, other = SHOWN[field]
    rules = RULESETS[name]
    assert fragment(lang, rules) in bodies(rules, lang)
    variant = replace(rules, **{field: other(rules)})
    shown = bodies(variant, lang)
    assert fragment(lang, variant) in shown
    assert fragment(lang, rules) not in shown


@pytest.mark.parametrize("name,lang", CASES)
def test_preset_leftover_and_cong_sentences_follow_the_rule_set(name: str, lang: str) -> None:
    rules = RULESETS[name]
    money = pages_by_key(rules, lang)["money"].body
    leftover_none = t(lang, "rules.money.leftover_none")
    assert (leftover_none in money) is (rules.leftover is LeftoverRule.NONE)
    assert (t(lang, "rules.money.cong_iwin", units=_units(lang, 1)) in money) is (rules.cong is CongRule.IWIN)
    assert (t(lang, "rules.summary.cong") in summary_items(rules, lang)) is (rules.cong is not CongRule.NONE)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_catalogue_states_no_amount_time_or_percentage_itself(lang: str) -> None:
    """Money, seconds and percentages on the pages come from placeholders filled
    from the rule set: no catalogue string writes one out."""
    literal = {
        "en": r"\d(B\b|\s*%|\s+s\b|\s*seconds?\b)",  # "2s" are 2s, "30 s" a time
        "vi": r"\d\s*(cược|%|giây)",
    }[lang]
    for key, text in load(RULES_FILES[lang]).items():
        forms = text.values() if isinstance(text, i18n.Plural) else [text]
        for form in forms:
            assert not re.search(literal, form), (key, form)


# ------------------------------------------------------- docs/rules.md stays in step
RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
CHOP_TABLE, PLACE_TABLE, CHOP_VALUES = "2.1", "5.1", "5.2"  # section numbers of docs/rules.md
PRESET_NAME = re.compile(r"`([a-z-]+)`")


def doc_table(heading: str) -> list[list[str]]:
    """The first markdown table after the heading that starts with ``heading``:
    its rows (header first, the ---|--- line dropped) as lists of cell texts."""
    lines = RULES_DOC.read_text(encoding="utf-8").splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("#") and
                 line.lstrip("#").strip().startswith(heading))
    rows: list[list[str]] = []
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(set(cell) <= set("-: ") for cell in cells):
                rows.append(cells)
        elif rows:
            break
    assert rows, f"no table after {heading!r} in docs/rules.md"
    return rows


def preset_columns(header: list[str]) -> dict[int, list[str]]:
    """Column index → the presets it is for ("`mien-nam`, `iwin`" is two)."""
    out = {index: PRESET_NAME.findall(cell) for index, cell in enumerate(header)}
    return {index: names for index, names in out.items() if names and set(names) <= set(RULESETS)}


def doc_value(cell: str, example: object) -> object:
    """A cell of the option table read as the type of the field's value."""
    text = cell.strip().strip("`")
    if isinstance(example, bool):
        assert text in ("yes", "no"), cell
        return text == "yes"
    if isinstance(example, int):
        return int(text)
    if isinstance(example, frozenset):  # instant_wins
        return frozenset() if text == "none" else frozenset(InstantWinKind(item.strip()) for item in text.split(","))
    if isinstance(example, (InstantWinKind, FinishOnTwo, CongRule, LeftoverRule, InstantWinTieBreak, OutOfTurnResume)):
        return type(example)(text)
    return text


CHOP_ROWS = {
    "a single 2": ChopTarget.SINGLE_TWO,
    "a pair of 2s": ChopTarget.PAIR_OF_TWOS,
    "three 2s": ChopTarget.THREE_TWOS,
    "3ĐT": ChopTarget.THREE_PAIRS,
    "TQ": ChopTarget.FOUR_OF_A_KIND,
    "4ĐT": ChopTarget.FOUR_PAIRS,
}
BOMB_WORDS = {"3ĐT": Bomb.THREE_PAIRS, "TQ": Bomb.FOUR_OF_A_KIND, "4ĐT": Bomb.FOUR_PAIRS}
PLACE = re.compile(r"(\d)(?:st|nd|rd|th) pays (\d)(?:st|nd|rd|th) (\d+)B")


def doc_chops() -> dict[str, frozenset]:
    """The chop table (docs/rules.md §2.1) read back: per preset, the (target, bomb) pairs it lists."""
    header, *rows = doc_table(CHOP_TABLE)
    columns = preset_columns(header)
    found: dict[str, set] = {name: set() for names in columns.values() for name in names}
    for row in rows:
        target = CHOP_ROWS[row[0].split(" (")[0]]
        for index, names in columns.items():
            for item in row[index].split(";"):
                bombs = [bomb for word, bomb in BOMB_WORDS.items() if re.search(rf"(?<!\w){word}(?!\w)", item)]
                assert len(bombs) <= 1, item
                for name in names:
                    found[name].update((target, bomb) for bomb in bombs)
    return {name: frozenset(pairs) for name, pairs in found.items()}


def doc_places() -> dict[str, dict[int, list[tuple[int, int, int]]]]:
    """The place-money table (docs/rules.md §5.1) read back: per preset and number of players, the lines."""
    header, *rows = doc_table(PLACE_TABLE)
    columns = preset_columns(header)
    found: dict[str, dict[int, list]] = {name: {} for names in columns.values() for name in names}
    for row in rows:
        players = int(row[0])
        for index, names in columns.items():
            lines = sorted((int(a) - 1, int(b) - 1, int(units)) for a, b, units in PLACE.findall(row[index]))
            assert len(lines) == row[index].count("pays"), row[index]
            for name in names:
                found[name][players] = lines
    return found


def test_docs_option_table_lists_every_field_with_each_presets_value() -> None:
    header, *rows = doc_table("Table options per preset")
    columns = preset_columns(header)
    assert sorted(name for names in columns.values() for name in names) == sorted(RULESETS)
    assert all(len(names) == 1 for names in columns.values())  # one column per preset
    fields = {field.name for field in dataclasses.fields(RuleSet)} - {"name"}
    listed = [row[0].strip("`") for row in rows]
    assert sorted(listed) == sorted(fields) and len(listed) == len(set(listed))
    mismatches = []
    for row in rows:
        field = row[0].strip("`")
        for index, (name,) in columns.items():
            value = getattr(RULESETS[name], field)
            if field == "chops":
                assert row[index] == f"`§{CHOP_TABLE}`", row  # the cell refers to the table
                shown = doc_chops()[name]
            elif field == "place_payments":
                assert row[index] == f"`§{PLACE_TABLE}`", row
                shown = doc_places()[name]
                value = {players: sorted(lines) for players, lines in value}
            else:
                shown = doc_value(row[index], value)
            if shown != value:
                mismatches.append((field, name, row[index], value))
    assert mismatches == []


def test_docs_chop_table_is_each_presets_chops() -> None:
    chops = doc_chops()
    assert set(chops) == set(RULESETS)
    for name, pairs in chops.items():
        assert pairs == RULESETS[name].chops, name


def test_docs_place_table_is_each_presets_place_money() -> None:
    places = doc_places()
    assert set(places) == set(RULESETS)
    for name, table in places.items():
        rules = RULESETS[name]
        assert table == {players: sorted(rules.place_lines(players))
                         for players in range(rules.min_players, rules.max_players + 1)}, name


def test_docs_chop_values_are_the_southern_presets_values() -> None:
    header, *rows = doc_table(CHOP_VALUES)
    worth = {row[0].split(" (")[0]: row[1] for row in rows}
    for name in ("mien-nam", "iwin"):
        rules = RULESETS[name]
        assert rules.chop_money
        for label, value in [("black 2", rules.black_two_value), ("red 2", rules.red_two_value),
                             ("3ĐT", rules.three_pairs_value), ("TQ", rules.four_of_a_kind_value),
                             ("4ĐT", rules.four_pairs_value)]:
            assert worth[label] == f"{value}B", (name, label)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_time_out_sentence_gives_the_seat_back_when_its_player_acts(lang: str) -> None:
    """docs/rules.md §3.6: after AFK_TIMEOUTS time-outs in a row the AI plays the seat until its player plays or
    passes again (tests/engine/test_table.py shows the engine doing so); the rules page says the same."""
    from tienlen.table import AFK_TIMEOUTS

    body = "\n".join(page.body for page in rules_pages(RULESETS["mien-nam"], lang))
    sentence = next(line for line in body.splitlines() if f"{AFK_TIMEOUTS} " in line and "AFK" in line)
    taken_back = {"en": "until you play or pass again yourself", "vi": "cho đến khi bạn tự đánh hoặc bỏ lượt lại"}
    assert taken_back[lang] in sentence

"""The `/tienlen rules` help: a paged explanation of a rule set, in the reader's language.

Every sentence is chosen and filled in from the fields of a
:class:`~tienlen.rules.RuleSet` — the same fields the engine plays by — so a
table variant made with :func:`dataclasses.replace` is explained as it is
played.  Nothing here is keyed by preset name except the preset's title.
The strings live in ``i18n/locales/<lang>/rules.toml``.

>>> from tienlen.rules import RULESETS
>>> [page.title for page in rules_pages(RULESETS["mien-nam"], "en")][:2]
['Overview and cards · Southern (miền Nam)', 'Combinations · Southern (miền Nam)']
>>> print(rules_summary(RULESETS["mien-bac"], "vi"))
**Miền Bắc**
đánh theo chất · có chặt · về bằng heo, tứ quý bị thối · thối heo, hàng · 30 giây/lượt
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from i18n import LANGUAGES, has, t
from tienlen.cards import Rank
from tienlen.instant import KIND_ORDER
from tienlen.rules import (
    Bomb,
    ChopTarget,
    CongRule,
    FinishOnTwo,
    InstantWinKind,
    LeftoverRule,
    RuleSet,
)
from tienlen.table import AFK_TIMEOUTS

__all__ = ["RulesPage", "rules_pages", "rules_summary", "preset_title", "PAGE_KEYS"]

# Page order; each key names the page title "rules.page.<key>" in the catalogue.
PAGE_KEYS = ("overview", "combos", "chops", "flow", "instant", "money")

# Bombs and chop targets made of consecutive pairs share these enum values and
# exist only in rule sets that have đôi thông.
_PAIR_RUNS = {Bomb.THREE_PAIRS.value, Bomb.FOUR_PAIRS.value}
_TWO_TARGETS = (ChopTarget.SINGLE_TWO, ChopTarget.PAIR_OF_TWOS, ChopTarget.THREE_TWOS)
_EXAMPLE_PLAYERS = "ABCD"
_EXAMPLE_CARD = "2♥"  # the chain example starts with a red 2


@dataclass(frozen=True)
class RulesPage:
    """One page of the help, sized for a Discord embed (title ≤ 256, body ≤ 4096)."""

    title: str
    body: str


# ---------------------------------------------------------------- public API
def preset_title(name: str, lang: str) -> str:
    """The display name of a preset ("Miền Nam"); an unknown name is shown as is."""
    key = f"rules.preset.{name}"
    return t(lang, key) if has(key) else name


def rules_summary(rules: RuleSet, lang: str) -> str:
    """Two lines for the table message: the preset, then what sets this rule set apart."""
    text = _Text(lang)
    items = [
        text("summary.follow_suit") if rules.follow_suit else "",
        text("summary.chops") if _chops(rules) else text("summary.no_chops"),
        text("summary.free_four_pairs") if _free_four_pairs(rules) else "",
        text("summary.instant_wins") if rules.instant_wins else "",
        text("summary.cong") if rules.cong is not CongRule.NONE else "",
        _finish_summary(rules, text),
        text("summary.leftover") if rules.leftover is not LeftoverRule.NONE else "",
        text("summary.turn", seconds=rules.turn_seconds),
        text("summary.rake", percent=rules.rake_percent) if rules.rake_percent else "",
    ]
    joined = text("summary.sep").join(item for item in items if item)
    return text("summary.line", preset=_label(rules, text), items=joined)


def rules_pages(rules: RuleSet, lang: str) -> list[RulesPage]:
    """The help pages for ``rules`` in ``lang`` ('en' or 'vi'; anything else reads English)."""
    text = _Text(lang)
    label = _label(rules, text)
    return [
        RulesPage(
            title=text("page_title", page=text(f"page.{key}"), preset=label),
            body="\n".join(line for line in builder(rules, text) if line),
        )
        for key, builder in zip(PAGE_KEYS, _BUILDERS)
    ]


# ------------------------------------------------------------------- helpers
class _Text:
    """Catalogue look-ups under "rules." in one language, plus list and money formatting."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else "en"

    def __call__(self, key: str, **params: object) -> str:
        return t(self.lang, f"rules.{key}", **params)

    def units(self, n: int) -> str:
        return self("units", n=n)

    def listing(self, items: list[str]) -> str:
        """"a, b and c" — the last two joined by the language's "and"."""
        if len(items) <= 1:
            return "".join(items)
        return self("list_sep").join(items[:-1]) + self("and") + items[-1]


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _label(rules: RuleSet, text: _Text) -> str:
    """The preset's title, marked when the table changed some of its options."""
    title = preset_title(rules.name, text.lang)
    return text("modified", preset=title) if rules.options() else title


def _chops(rules: RuleSet) -> set[tuple[ChopTarget, Bomb]]:
    """The chops that can happen: without đôi thông, chops by or on them cannot."""
    if rules.consecutive_pairs:
        return set(rules.chops)
    return {(target, bomb) for target, bomb in rules.chops if {target.value, bomb.value}.isdisjoint(_PAIR_RUNS)}


def _chopping_bombs(rules: RuleSet) -> list[Bomb]:
    """Bombs that chop something, weakest first (the enum's order)."""
    used = {bomb for _, bomb in _chops(rules)}
    return [bomb for bomb in Bomb if bomb in used]


def _free_four_pairs(rules: RuleSet) -> bool:
    """Whether 4 đôi thông really can be played out of turn under these rules."""
    return rules.four_pairs_out_of_turn and Bomb.FOUR_PAIRS in _chopping_bombs(rules)


def _finish_summary(rules: RuleSet, text: _Text) -> str:
    if rules.finish_on_two is FinishOnTwo.PENALTY:
        return text("summary.finish_penalty")
    if rules.finish_on_two is FinishOnTwo.FORBIDDEN:
        return text("summary.finish_forbidden")
    return ""


def _values(rules: RuleSet, text: _Text, *, four_of_a_kind: int) -> str:
    """"black 2 1B, red 2 2B, 3 đôi thông 2B, …": what each 2 and bomb is worth."""
    items = [(text("money.black_two"), rules.black_two_value), (text("money.red_two"), rules.red_two_value)]
    bombs = {
        ChopTarget.THREE_PAIRS: rules.three_pairs_value,
        ChopTarget.FOUR_OF_A_KIND: four_of_a_kind,
        ChopTarget.FOUR_PAIRS: rules.four_pairs_value,
    }
    for target, value in bombs.items():
        if rules.consecutive_pairs or target.value not in _PAIR_RUNS:
            items.append((text(f"target.{target.value}"), value))
    return text("list_sep").join(text("money.value", name=name, units=text.units(value)) for name, value in items)


# -------------------------------------------------------------- page 1: overview
def _overview(rules: RuleSet, text: _Text) -> list[str]:
    if rules.min_players == rules.max_players:
        players = text("overview.players_fixed", n=rules.min_players)
    else:
        players = text("overview.players_range", min=rules.min_players, max=rules.max_players)
    return [
        text("overview.goal"),
        players,
        text("overview.ranks", ranks=" ".join(rank.label for rank in Rank)),
        text("overview.suits"),
        text("overview.order"),
        text("overview.turn", seconds=rules.turn_seconds, count=rules.turn_seconds),
        text("overview.stake", unit=text.units(1)),
    ]


# ------------------------------------------------------------ page 2: combinations
def _combos(rules: RuleSet, text: _Text) -> list[str]:
    # Northern suit-following changes how singles, pairs, triples and straights beat.
    suited = "_suit" if rules.follow_suit else ""
    lines = [
        text("combos.intro"),
        text(f"combos.single{suited}"),
        text(f"combos.pair{suited}"),
        text(f"combos.triple{suited}"),
        text(f"combos.straight{suited}"),
        text("combos.consecutive_pairs") if rules.consecutive_pairs else "",
        text("combos.four_of_a_kind"),
        text("combos.no_consecutive_pairs") if not rules.consecutive_pairs else "",
        text("combos.twos_any_suit") if rules.follow_suit and rules.twos_beat_any_suit else "",
    ]
    bombs = [text(f"bomb.{bomb.value}") for bomb in _chopping_bombs(rules)]
    if bombs:
        lines.append(text("combos.bombs", bombs=text.listing(bombs)))
    return lines


# ------------------------------------------------------------------ page 3: chops
def _chop_page(rules: RuleSet, text: _Text) -> list[str]:
    chops = _chops(rules)
    if not chops:
        return [text("chops.none")]
    lines = [text("chops.intro")]
    for bomb in _chopping_bombs(rules):
        targets = [_target_name(target, bomb, text) for target in ChopTarget if (target, bomb) in chops]
        bomb_name = _capitalised(text(f"bomb.{bomb.value}"))
        lines.append(text("chops.line", bomb=bomb_name, targets=text.listing(targets)))
    lines += [text("chops.on_top"), text("chops.when")]
    if _free_four_pairs(rules):
        lines.append(text("chops.free") + " " + text(f"chops.resume.{rules.out_of_turn_resume.value}"))
    lines.append(_five_pairs_note(rules, text))
    return lines


def _target_name(target: ChopTarget, bomb: Bomb, text: _Text) -> str:
    """"a single 2 (heo)"; a bomb target is "a lower …" of its own kind, else "any …"."""
    name = text(f"target.{target.value}")
    if target in _TWO_TARGETS:
        return name
    return text("chops.lower" if target.value == bomb.value else "chops.any", target=name)


def _five_pairs_note(rules: RuleSet, text: _Text) -> str:
    """What happens to 5+ consecutive pairs: an instant win, or a long 4 đôi thông."""
    if not rules.consecutive_pairs:
        return ""
    if InstantWinKind.FIVE_CONSECUTIVE_PAIRS in rules.instant_wins:
        return text("chops.five_instant")
    if Bomb.FOUR_PAIRS in _chopping_bombs(rules):
        return text("chops.five_bomb")
    return ""


# ------------------------------------------------------------------- page 4: flow
def _flow(rules: RuleSet, text: _Text) -> list[str]:
    first = "first_lead_must" if rules.first_lead_must_include_lowest else "first_lead_free"
    finish = ""
    if rules.finish_on_two is not FinishOnTwo.ALLOWED:
        finish = text(f"flow.finish.{rules.finish_on_two.value}", units=text.units(rules.finish_on_two_penalty))
    undealt = ""
    if rules.first_lead_must_include_lowest and rules.min_players < 4:  # 3♠ may go undealt
        undealt = text("flow.first_lead_undealt")
    return [
        " ".join(part for part in (text(f"flow.{first}"), undealt) if part),
        text("flow.next_game") + " " + text(f"flow.winner_left.{rules.winner_left_lead}"),
        text("flow.turn"),
        text("flow.round"),
        text("flow.going_out"),
        finish,
        text("flow.timeout", seconds=rules.turn_seconds, strikes=AFK_TIMEOUTS, count=rules.turn_seconds),
        text("flow.leave"),
    ]


# ---------------------------------------------------------- page 5: instant wins
def _instant(rules: RuleSet, text: _Text) -> list[str]:
    if not rules.instant_wins:
        return [text("instant.none")]
    lines = [text("instant.intro", units=text.units(rules.instant_win_payment))]
    # KIND_ORDER is also the engine's tie-break order, so the list doubles as the ranking.
    for kind in KIND_ORDER:
        if kind in rules.instant_wins:
            lines.append(text(_instant_key(kind, rules), name=text(f"instant.name.{kind.value}")))
    lines.append(text(f"instant.tie.{rules.instant_win_tie_break.value}"))
    if rules.dealer_seat == 0:  # seat 0 is the host, who deals (docs/rules.md §4)
        lines.append(text("instant.deal_host"))
    else:
        lines.append(text("instant.deal_seat", seat=rules.dealer_seat + 1))
    return lines


def _instant_key(kind: InstantWinKind, rules: RuleSet) -> str:
    if kind is InstantWinKind.DRAGON:
        return f"instant.dragon_{rules.dragon_length}"
    if kind is InstantWinKind.SIX_PAIRS:
        return "instant.six_pairs" if rules.quad_counts_as_two_pairs else "instant.six_pairs_quad_one"
    if kind is InstantWinKind.FIVE_CONSECUTIVE_PAIRS:
        return "instant.five_pairs"
    if kind is InstantWinKind.FOUR_TWOS:
        return "instant.four_twos"
    return "instant.three_spades"


# ------------------------------------------------------------------ page 6: money
def _money(rules: RuleSet, text: _Text) -> list[str]:
    lines = [text("money.intro", unit=text.units(1)), text("money.places")]
    lines += [_place_line(rules, players, text) for players in range(rules.min_players, rules.max_players + 1)]
    lines += _chop_money(rules, text)
    lines += [_cong(rules, text), _leftover(rules, text), *_leaving(rules, text)]
    lines.append(text("money.rake", percent=rules.rake_percent) if rules.rake_percent else text("money.no_rake"))
    lines.append(text("money.chips"))
    return lines


def _place_line(rules: RuleSet, players: int, text: _Text) -> str:
    payments = [
        text("money.place_payment", payer=text(f"place.{payer}"), payee=text(f"place.{payee}"), units=text.units(units))
        for payer, payee, units in rules.place_lines(players)
    ]
    return text("money.place_line", players=players, payments=text("list_sep").join(payments))


def _chop_money(rules: RuleSet, text: _Text) -> list[str]:
    if not _chops(rules):
        return []
    if not rules.chop_money:
        return [text("money.no_chop_money")]
    values = _values(rules, text, four_of_a_kind=rules.four_of_a_kind_value)
    return [text("money.chop_values", values=values), text("money.chain"), _chain_example(rules, text),
            text("money.no_pay")]


def _chain_example(rules: RuleSet, text: _Text) -> str:
    """A red 2 chopped, then each stronger bomb chopping the last: shows who pays what."""
    chops = _chops(rules)
    target, bombs = ChopTarget.SINGLE_TWO, []
    for bomb in Bomb:
        if (target, bomb) in chops:
            bombs.append(bomb)
            target = ChopTarget(bomb.value)
    if len(bombs) < 2:
        return ""  # a single chop is no chain
    worth = {
        Bomb.THREE_PAIRS: rules.three_pairs_value,
        Bomb.FOUR_OF_A_KIND: rules.four_of_a_kind_value,
        Bomb.FOUR_PAIRS: rules.four_pairs_value,
    }
    chopped = [rules.red_two_value] + [worth[bomb] for bomb in bombs[:-1]]
    steps = [text("money.chain_lead", player=_EXAMPLE_PLAYERS[0], card=_EXAMPLE_CARD)]
    steps += [
        text("money.chain_chop", player=_EXAMPLE_PLAYERS[i + 1], bomb=text(f"target.{bomb.value}"))
        for i, bomb in enumerate(bombs)
    ]
    return text(
        "money.example",
        chain=text("list_sep").join(steps),
        payer=_EXAMPLE_PLAYERS[len(bombs) - 1],
        payee=_EXAMPLE_PLAYERS[len(bombs)],
        sum=" + ".join(str(value) for value in chopped),
        units=text.units(sum(chopped)),
    )


def _cong(rules: RuleSet, text: _Text) -> str:
    if rules.cong is CongRule.NONE:
        return ""
    parts = [text("money.cong", units=text.units(rules.cong_base), held=_held(rules, text))]
    if rules.cong is CongRule.IWIN:
        parts.append(text("money.cong_iwin", units=text.units(1)))  # settlement: the one left pays 1B
    if rules.leftover is not LeftoverRule.NONE:
        parts.append(text("money.cong_no_leftover"))  # settlement skips thối after cóng
    return " ".join(parts)


def _held(rules: RuleSet, text: _Text) -> str:
    """2s and bombs caught in a hand are worth their chop values: refer to the
    chop money line when the page has one, else spell the values out."""
    if rules.chop_money and _chops(rules):
        return text("money.held_chop")
    return _values(rules, text, four_of_a_kind=rules.four_of_a_kind_value)


def _leftover(rules: RuleSet, text: _Text) -> str:
    if rules.leftover is LeftoverRule.NONE:
        return text("money.leftover_none")
    if rules.leftover is LeftoverRule.NORTH:
        values = _values(rules, text, four_of_a_kind=rules.north_leftover_four_of_a_kind)
    else:
        values = _held(rules, text)
    return text("money.leftover", values=values)


def _leaving(rules: RuleSet, text: _Text) -> list[str]:
    if rules.leave_penalty:
        leave = text("money.leave_penalty", units=text.units(rules.leave_penalty))
    else:
        leave = text("money.leave")
    # The settlement drops a leaver's chop winnings whatever the penalty.
    forfeit = text("money.leave_chops") if rules.chop_money and _chops(rules) else ""
    return [f"{leave} {forfeit}".strip()]


_BUILDERS: tuple[Callable[[RuleSet, _Text], list[str]], ...] = (
    _overview,
    _combos,
    _chop_page,
    _flow,
    _instant,
    _money,
)

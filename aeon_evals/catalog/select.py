"""Which lint rules apply, as ruff decides it: the defaults, the instance's settings (evals.json's
`lint`, or aeon.yml's `aeon-evals: lint:`), then the command line's `--select`, `--extend-select`
and `--ignore`.

A selector is a rule code (`AE105`), a prefix of codes (`AE1`: every frontmatter rule) or `ALL`.
`select` replaces the default set, `extend_select` adds to it, `ignore` removes from it; where
several name one rule the most specific decides (`ignore: [AE1]` with `extend_select: [AE107]`
keeps AE107), `ignore` on a tie. On the command line `--select` replaces the instance's
`select`; `--extend-select` and `--ignore` add to the instance's. A selector that names no rule
is an error naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from aeon_evals.catalog.codes import CODES, DEFAULT_RULES, Rule
from aeon_evals.errors import UsageError
from aeon_evals.model.problems import Problem, Severity

ALL = "ALL"
KEYS = ("select", "extend_select", "ignore")


def known_codes() -> str:
    """`AE101–AE113, AE201–AE204, AE301–AE303`: every code, by hundred."""
    groups: dict[str, list[str]] = {}
    for code in sorted(CODES.values()):
        groups.setdefault(code[:3], []).append(code)
    return ", ".join(f"{g[0]}–{g[-1]}" if len(g) > 1 else g[0] for g in groups.values())


def expand(selector: str) -> frozenset[Rule]:
    """The rules a selector names: `ALL`, a code, or a prefix of codes; none when it names none."""
    wanted = selector.strip().upper()
    if wanted == ALL:
        return frozenset(Rule)
    if not wanted.startswith("AE"):
        return frozenset()
    return frozenset(rule for rule, code in CODES.items() if code.startswith(wanted))


def specificity(selector: str) -> int:
    """How specific a selector is: `ALL` 0, a prefix or a code its length (`AE1` 3, `AE107` 5)."""
    wanted = selector.strip().upper()
    return 0 if wanted == ALL else len(wanted)


_NONE = -2  # no selector names the rule
_DEFAULT = -1  # the rule is on by default (below `ALL`, so that `ignore: [ALL]` turns it off)


def _most_specific(rule: Rule, selectors: Iterable[str]) -> int:
    return max((specificity(s) for s in selectors if rule in expand(s)), default=_NONE)


@dataclass(frozen=True)
class Selection:
    """Selectors, as written: `select` None keeps the default set."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    source: str | None = None  # where the instance's settings come from, for the messages

    def rules(self) -> frozenset[Rule]:
        """The rules that apply: for each rule the most specific selector naming it decides,
        `ignore` on a tie (as ruff does); a rule no selector names is on when it is on by
        default and `select` is not set."""
        found = set()
        for rule in Rule:
            chosen = _most_specific(rule, (*(self.select or ()), *self.extend_select))
            if self.select is None and rule in DEFAULT_RULES:
                chosen = max(chosen, _DEFAULT)
            if chosen > _most_specific(rule, self.ignore):
                found.add(rule)
        return frozenset(found)

    def then(self, later: Selection) -> Selection:
        """These settings, then the command line's: its `select` replaces theirs, its
        `extend_select` and `ignore` add to theirs."""
        return Selection(
            later.select if later.select is not None else self.select,
            self.extend_select + later.extend_select,
            self.ignore + later.ignore,
            self.source,
        )


DEFAULT = Selection()


def _split(values: Iterable[str] | None) -> tuple[str, ...]:
    """`--select AE1,AE301 --select AE204` → ("AE1", "AE301", "AE204")."""
    return tuple(part.strip() for v in values or () for part in v.split(",") if part.strip())


def from_cli(
    select: Iterable[str] | None,
    extend_select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> Selection:
    """The command line's selectors (each option repeatable, comma-separated); raises
    UsageError naming a selector that names no rule."""
    found = Selection(
        _split(select) if select is not None else None, _split(extend_select), _split(ignore)
    )
    for key, option in zip(KEYS, ("--select", "--extend-select", "--ignore"), strict=True):
        for selector in getattr(found, key) or ():
            if not expand(selector):
                raise UsageError(
                    f"{option} {selector}: no such rule code (the codes are {known_codes()}; "
                    "see docs/catalog.md)"
                )
    return found


def from_settings(
    value: object, *, file: str, where: str, line_of: Callable[[str], int | None]
) -> tuple[Selection, list[Problem]]:
    """The instance's `lint` settings (`value`, found at `where` in `file`), and every problem
    in them: an unknown key or a value that is not a list of codes (warnings: ignored), a
    selector that names no rule (an error). `line_of(where)` locates a member."""
    problems: list[Problem] = []

    def problem(at: str, message: str, severity: Severity = Severity.ERROR) -> None:
        problems.append(Problem(file, at, message, severity, line_of(at)))

    if not isinstance(value, dict):
        problem(where, 'expected an object such as {"ignore": ["AE201"]}', Severity.WARNING)
        return Selection(source=file), problems
    lists: dict[str, tuple[str, ...]] = {}
    for key in sorted(set(value) - set(KEYS), key=str):
        problem(
            f"{where}.{key}",
            f"unknown key (ignored; the keys are {', '.join(KEYS)})",
            Severity.WARNING,
        )
    for key in KEYS:
        raw = value.get(key)
        if raw is None:
            continue
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            problem(
                f"{where}.{key}",
                'expected a list of rule codes such as ["AE201"]; ignored',
                Severity.WARNING,
            )
            continue
        for i, selector in enumerate(raw):
            if not expand(selector):
                problem(
                    f"{where}.{key}[{i}]",
                    f"{selector}: no such rule code (the codes are {known_codes()}; see "
                    "docs/catalog.md)",
                )
        lists[key] = tuple(s for s in raw if expand(s))
    selection = Selection(
        lists.get("select"), lists.get("extend_select", ()), lists.get("ignore", ()), file
    )
    return selection, problems

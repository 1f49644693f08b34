"""Labels that say what happened, the same on every surface (issue 34, point 2): one instance holds
a skill for every (previous, current) pair of statuses, run twice a week apart. Each skill's
label, as docs/diff-labels.md gives it, is checked on the article's Full Results, the Diff line,
`--json`, the job summary, the dashboard card, the notification and the dashboard's index, and
a move into NOT_RUN is never counted as a new pass or an improvement."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance
from test_diff_labels import DOC_CELLS

from aeon_evals.model import Status

Cli = Callable[..., tuple[int, str, str]]
WEEK1, WEEK2 = "2026-05-17T06:00:00Z", "2026-05-24T06:00:00Z"
WEEKLY = "0 7 * * 1"
WORDS = "# Report\n\n" + " ".join(["word"] * 60) + "\n"
STATES: list[Status | None] = [None, *Status]
ABSENT = "(absent)"


def _name(status: Status | None) -> str:
    return "absent" if status is None else status.value.lower().replace("_", "-")


def _skill(previous: Status | None, current: Status | None) -> str:
    return f"{_name(previous)}--{_name(current)}"


PAIRS = [(p, c) for p in STATES for c in STATES if not (p is None and c is None)]


def _label(previous: Status | None, current: Status | None) -> str:
    return DOC_CELLS[
        (
            ABSENT if previous is None else previous.value,
            ABSENT if current is None else current.value,
        )
    ]


def _setup(
    inst: Instance, skill: str, status: Status, run: str, day: str
) -> tuple[dict[str, Any], str]:
    """The spec and schedule that give `skill` `status` at a run on `day`, and its files."""
    spec: dict[str, Any] = {"output_pattern": f"articles/{skill}-{run}-*.md", "min_words": 50}
    schedule = WEEKLY
    yesterday, three_days = _shift(day, -1), _shift(day, -3)
    if status is Status.PASS:
        inst.write(f"articles/{skill}-{run}-{yesterday}.md", WORDS)
    elif status is Status.FAIL:
        inst.write(f"articles/{skill}-{run}-{yesterday}.md", "too short\n")
    elif status is Status.NO_OUTPUT:
        pass
    elif status is Status.STALE:  # 2.25 days old, expected daily: stale, not yet failing
        spec["expected_cadence"] = 1
        inst.write(f"articles/{skill}-{run}-{three_days}.md", WORDS)
    elif status is Status.QUALITY_DEGRADED:
        inst.write(f"articles/{skill}-{run}-{yesterday}.md", WORDS)
        inst.write(f"memory/skill-health/{skill}.json", json.dumps({"avg_score": 1.5}))
    elif status is Status.WARN:  # a numeric check whose pattern is not found
        inst.write(f"articles/{skill}-{run}-{yesterday}.md", WORDS)
        spec["numeric_checks"] = [{"label": "count", "pattern": "count: (\\d+)"}]
    elif status is Status.ERROR:  # a pattern RE2 refuses: the spec is broken
        inst.write(f"articles/{skill}-{run}-{yesterday}.md", WORDS)
        spec["required_patterns"] = ["(unclosed"]
    elif status is Status.NOT_RUN:  # on demand, never dispatched
        schedule = "workflow_dispatch"
    return spec, schedule


def _shift(day: str, days: int) -> str:
    from datetime import date, timedelta

    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def _run(
    inst: Instance, cli: Cli, now: str, which: int, tmp_path: Path, monkeypatch: Any
) -> dict[str, Any]:
    """Set every pair's skill to its status of run `which` (0: previous, 1: current), run, and
    read every surface."""
    for health in (inst.root / "memory/skill-health").glob("*.json"):
        health.unlink()
    day = now[:10]
    specs: dict[str, Any] = {}
    schedules: dict[str, tuple[bool, str]] = {}
    for pair in PAIRS:
        skill, status = _skill(*pair), pair[which]
        if status is None:
            schedules[skill] = (False, WEEKLY)  # not in evals.json (and disabled: no gap)
            continue
        specs[skill], schedule = _setup(inst, skill, status, f"r{which}", day)
        schedules[skill] = (True, schedule)
    inst.evals(specs)
    inst.aeon_yml(schedules)
    summary = tmp_path / f"summary-{which}.md"
    summary.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, err = cli("run", "--root", str(inst.root), "--now", now, "--json")
    assert code == 0, err
    cards = sorted((inst.root / "dashboard/outputs").glob(f"skill-evals-{day}T*.json"))
    return {
        "json": json.loads(out),
        "article": (inst.root / f"articles/skill-evals-{day}.md").read_text(),
        "summary": summary.read_text(),
        "card": json.loads(cards[-1].read_text()) if cards else None,
        "notify": inst.notifications()[-1][0] if inst.notifications() else None,
        "site": (inst.root / "site/index.html").read_text(),
    }


def _full_results(article: str) -> dict[str, tuple[str, str]]:
    """skill -> (Status cell, Diff cell) of the article's Full Results table, as written."""
    table = article.split("## Full Results\n")[1].split("\n\n")[0].splitlines()[2:]
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in table]
    return {r[0]: (r[1], r[2]) for r in rows}


_DIFF_NAMES = {
    "new fail": ("NEW_FAIL", "NEW_QUALITY_DEGRADED"),
    "fixed": ("FIXED",),
    "still failing": ("STILL_FAIL",),
    "stable": ("STABLE",),
    "new pass": ("NEW_PASS",),
    "new, not run": ("NEW_NOT_RUN",),
    "now not run": ("NOT_RUN",),
    "new error": ("NEW_ERROR",),
    "worse": ("WORSE",),
    "better": ("BETTER",),
    "no longer covered": ("NEW_NO_COVERAGE",),
}


def _diff_line(text: str) -> dict[str, int]:
    """The **Diff:** line as {name: count}."""
    found = re.search(r"(?m)^\*\*Diff:\*\* (.*?)\s*$", text)
    assert found, text[:500]
    counts = {}
    for part in found.group(1).split(" · "):
        number, name = part.split(" ", 1)
        counts[name] = int(number)
    return counts


def _expected_counts(labels: dict[str, str]) -> dict[str, int]:
    tally = Counter(labels.values())
    return {name: sum(tally[label] for label in group) for name, group in _DIFF_NAMES.items()}


class _Index(HTMLParser):
    """The dashboard index's "Skills in the latest run" table: skill -> {column: text}."""

    def __init__(self) -> None:
        super().__init__()
        self.header: list[str] = []
        self.rows: dict[str, dict[str, str]] = {}
        self._in = False
        self._cells: list[str] | None = None
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section" and ("id", "skills") in attrs:
            self._in = True
        elif self._in and tag == "tr":
            self._cells = []
        elif self._in and tag in ("th", "td") and self._cells is not None:
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._in = False
        elif tag in ("th", "td") and self._text is not None and self._cells is not None:
            self._cells.append(" ".join("".join(self._text).split()))
            self._text = None
        elif tag == "tr" and self._cells is not None:
            if not self.header:
                self.header = self._cells
            elif self._cells:
                self.rows[self._cells[0].split(" ")[0]] = dict(
                    zip(self.header, self._cells, strict=False)
                )
            self._cells = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def _listed(body: list[str], title: str) -> list[str]:
    """The skills a notification lists under `title`, and how many more it says it cut."""
    if title not in body:
        return []
    items = []
    for line in body[body.index(title) + 1 :]:
        if not line.startswith("• "):
            more = re.fullmatch(r"… and (\d+) more", line)
            if more:
                items += ["…"] * int(more.group(1))
            break
        items.append(re.split(r" — | \(|\s", line[2:], maxsplit=1)[0])
    return items


def _check_surfaces(
    s: dict[str, Any], labels: dict[str, str], not_run: set[str], *, bootstrap: bool
) -> None:
    """`labels` on every surface of the run `s`; `not_run`: its skills that moved into NOT_RUN
    from a status that was not failing (or from none)."""
    full = _full_results(s["article"])
    by_json = {row["skill"]: row for row in s["json"]["skills"]}
    site = _Index()
    site.feed(s["site"])
    for skill, label in labels.items():
        # the article's Full Results
        assert full[skill][1] == label, (skill, full[skill])
        if label == "NEW_NO_COVERAGE":  # no result: in the counts only
            assert skill not in by_json
            continue
        # --json, the dashboard's index
        assert by_json[skill]["diff"] == label, skill
        assert site.rows[skill]["Diff"] == label, (skill, site.rows.get(skill))

    # the Diff line of the article and the job summary; --json's counts
    expected = _expected_counts(labels)
    for text in (s["article"], s["summary"]):
        shown = _diff_line(text)
        assert {k: shown.get(k, 0) for k in expected} == expected
    keys = {"new fail": "new_fail", "still failing": "still_failing"}
    keys |= {name: group[0].lower() for name, group in _DIFF_NAMES.items() if name not in keys}
    diff = s["json"]["diff"]
    assert {name: diff.get(key, 0) for name, key in keys.items()} == expected
    # a move into NOT_RUN is never a new pass or an improvement
    assert not_run and {labels[k] for k in not_run} <= {"NEW_NOT_RUN", "NOT_RUN", "STABLE"}

    regressions = sorted(k for k, v in labels.items() if v in ("NEW_FAIL", "NEW_QUALITY_DEGRADED"))
    fixed = sorted(k for k, v in labels.items() if v == "FIXED")
    worse = sorted(k for k, v in labels.items() if v == "WORSE")
    # the card
    card = s["card"]
    assert card is not None
    message = card["elements"]["alert_verdict"]["props"]["message"]
    assert message.startswith(f"{expected['new fail']} new failure")
    assert f" · {expected['fixed']} fixed · {expected['still failing']} still failing" in message
    badges = [
        el["props"]["text"]
        for key, el in card["elements"].items()
        if re.fullmatch(r"regression_\d+_skill", key)
    ]
    assert badges == regressions[: len(badges)] and len(badges) == min(10, len(regressions))
    # the notification: new failures, fixed, worse; nothing else listed
    body = s["notify"].splitlines()
    for title, skills in (("New failures:", regressions), ("Fixed:", fixed), ("Worse:", worse)):
        listed = _listed(body, title)
        assert len(listed) == len(skills), (title, listed)
        shown = [x for x in listed if x != "…"]
        assert shown == skills[: len(shown)], (title, shown)
    assert len(s["notify"]) <= 2000
    # the job summary's tables
    summary = s["summary"]
    if regressions and not bootstrap:
        table = summary.split("### Regressions")[1].split("\n\n")[1]
        assert re.findall(r"(?m)^\| ([\w-]+) \|", table)[1:] == regressions


@pytest.fixture(autouse=True)
def _not_github(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_ACTIONS", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AEON_EVALS_SITE_URL", raising=False)


def test_every_pair_has_its_documented_label_on_every_surface(
    instance: Instance, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inst = instance
    inst.notifier()
    (inst.root / "dashboard/outputs").mkdir(parents=True)
    first = _run(inst, cli, WEEK1, 0, tmp_path, monkeypatch)
    boot = {
        _skill(p, c): DOC_CELLS[("BOOTSTRAP (no previous article)", p.value)]
        for p, c in PAIRS
        if p is not None
    }
    assert first["json"]["verdict"] == "SKILL_EVALS_REGRESSED"
    _check_surfaces(
        first, boot, {_skill(p, c) for p, c in PAIRS if p is Status.NOT_RUN}, bootstrap=True
    )

    second = _run(inst, cli, WEEK2, 1, tmp_path, monkeypatch)
    # every skill has the status its pair names (else the pair is not what it says)
    statuses = {row["skill"]: row["status"] for row in second["json"]["skills"]}
    for p, c in PAIRS:
        if c is not None:
            assert statuses[_skill(p, c)] == c.value, _skill(p, c)
    into = {_skill(p, c) for p, c in PAIRS if c is Status.NOT_RUN and (p is None or not p.failing)}
    _check_surfaces(second, {_skill(p, c): _label(p, c) for p, c in PAIRS}, into, bootstrap=False)

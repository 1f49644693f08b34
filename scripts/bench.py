"""Benchmark `aeon-evals run` on a generated Aeon instance (issue #7). Never part of the tests'
pass/fail.

    python scripts/bench.py                      # medium instance: 1,000 skills × 30 days, K=200
    python scripts/bench.py --skills 250 --outputs 365 --repeat 3
    python scripts/bench.py --scaling            # N=250/1,000/4,000 at M=30, and M=365 at N=1,000
    python scripts/bench.py --profile 30         # also print a cProfile top-30 of one run

It generates a synthetic instance in a temporary folder (skills, dated outputs, shared daily logs
with one `### <skill>` section per log-based skill, K past skill-evals articles in the tool's own
layout, aeon.yml with crons, cron-state, skill-health, memory/issues with INDEX.md), then:

* times the real CLI (`aeon-evals run --now … --no-notify`, with the site) as a subprocess,
  `--repeat` times, each on a fresh copy of the instance; peak memory is the child's ru_maxrss;
* runs the pipeline in a fresh interpreter with the stage functions wrapped by timers (no package
  file is edited) to attribute the time to load, glob, read, match, diff, audit, issues, render,
  site;
* runs scripts/bench_baseline.sh (ls | sort | tail -1, wc -w, grep -E per pattern) on the same
  instance and reports its time as a ratio to aeon-evals.

With the site warm (the default), the template first gets what last night's run leaves in
`.aeon-evals/cache/` and `site/`, which a nightly job keeps (the workflow restores the cache):
the dashboard of the K past articles, the SKILL.md contracts, the metric history, and the parsed
aeon.yml and cron schedules (from one run on a throw-away copy).

Copies are hard-linked (`cp -al`): aeon-evals only ever replaces files (temp file + rename) or
creates new ones, so the template is never modified; the script checks that it was not.
Nothing is deleted while measuring (used copies are moved to `trash/` in the work folder), and a
new copy is synced before its run (see `discard`).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "bench_baseline.sh"
TODAY = date(2026, 6, 1)
NOW = "2026-06-01T06:00:00Z"
SEED = 7
STAGES = ("load", "glob", "read", "match", "cadence", "diff", "audit", "issues", "render", "site")

_TEXT = (
    "the fleet shipped steady work this week with fewer retries and cleaner outputs while "
    "operators reviewed alerts trimmed noisy feeds merged small fixes across the agent stack and "
    "noted latency budgets for every scheduled job in the nightly window"
)
_WORDS = _TEXT.split(" ")


@dataclass(frozen=True)
class Config:
    skills: int = 1000
    outputs: int = 30
    log_share: float = 0.3
    words: int = 200
    articles: int = 200
    specs: str = "evals"  # "skillmd": the N skills have no evals.json entry, only their SKILL.md
    metrics: bool = False  # --history: each past article has its metrics file (docs/metrics.md)

    def label(self) -> str:
        label = (
            f"N={self.skills} M={self.outputs} log={self.log_share:.0%} words={self.words} "
            f"K={self.articles}"
        )
        return label + (" specs=SKILL.md (enforce)" if self.specs == "skillmd" else "")


@dataclass(frozen=True)
class Plan:
    """What the generator made a skill do; `status` is what aeon-evals should report."""

    name: str
    log: bool
    schedule: str
    mode: str  # pass, short, missing, forbidden, numeric, nooutput, stale, quality, warn
    status: str
    prior: str  # status in yesterday's article


# --------------------------------------------------------------------------------------------
# generator


def _metrics(
    day: date, plans: list[Plan], statuses: list[str], words: int, rng: random.Random
) -> str:
    """A past run's metrics file (aeon_evals/metrics.py's format v1), words a little noisy."""
    lines = [
        "# aeon-evals metrics v1",
        "skill\tstatus\twords\tbytes\tage_days\tquality\toutput\tsha256\tcause\tnumeric",
    ]
    for plan, status in sorted(zip(plans, statuses, strict=True), key=lambda pair: pair[0].name):
        n = int(words * (1 + rng.uniform(-0.05, 0.05)))
        where = f"memory/logs/{day}.md" if plan.log else f"articles/{plan.name}-{day}.md"
        sha = hashlib.sha256(f"{plan.name}{day}".encode()).hexdigest()
        lines.append(
            f'{plan.name}\t{status}\t{n}\t{n * 6}\t0.25\t\t{where}\t{sha}\t\t{{"count": {n % 50}}}'
        )
    return "\n".join(lines) + "\n"


def _filler(rng: random.Random, n: int) -> str:
    start = rng.randrange(len(_WORDS))
    words = [_WORDS[(start + i) % len(_WORDS)] for i in range(max(n, 0))]
    lines = [" ".join(words[i : i + 14]) for i in range(0, len(words), 14)]
    return "\n".join(lines)


def _body(plan: Plan, day: date, words: int, rng: random.Random, newest: bool) -> str:
    """The text a skill wrote for `day` (a whole file, or the body of its log section)."""
    mode = plan.mode if newest else "pass"
    items = 5000000 if mode == "numeric" else 100 + rng.randrange(900)
    head = [f"Summary: {plan.name} run for {day.isoformat()}"]
    if mode != "missing":
        head.append(f"{plan.name} complete")
    if mode != "warn":
        head.append(f"Items processed: {items:,}")
    if mode == "forbidden":
        head.append("[TODO] fill in the details")
    used = sum(len(h.split()) for h in head)
    fill = 6 if mode == "short" else words - used
    return "\n".join(head) + "\n" + _filler(rng, fill) + "\n"


def _modes(n: int, n_log: int, rng: random.Random) -> list[tuple[bool, str]]:
    """(log-based?, failure mode) per skill: about 84 % pass, the rest spread over every check."""
    share = {
        "short": 0.03,
        "missing": 0.02,
        "forbidden": 0.02,
        "numeric": 0.02,
        "quality": 0.02,
        "warn": 0.02,
    }
    file_only = {"nooutput": 0.015, "stale": 0.02}
    idx = list(range(n))
    rng.shuffle(idx)
    log_set = set(idx[:n_log])
    modes = ["pass"] * n
    order = list(range(n))
    rng.shuffle(order)
    pos = 0
    for mode, frac in {**share, **file_only}.items():
        want = max(1, round(n * frac)) if n >= 20 else 1
        placed = 0
        while placed < want and pos < len(order):
            i = order[pos]
            pos += 1
            if mode in file_only and i in log_set:
                continue
            modes[i] = mode
            placed += 1
    return [(i in log_set, modes[i]) for i in range(n)]


_STATUS = {
    "pass": "PASS",
    "short": "FAIL",
    "missing": "FAIL",
    "forbidden": "FAIL",
    "numeric": "FAIL",
    "nooutput": "NO_OUTPUT",
    "stale": "STALE",
    "quality": "QUALITY_DEGRADED",
    "warn": "WARN",
}
_CAUSE = {
    "pass": "—",
    "short": "word_count",
    "missing": "missing_pattern:complete",
    "forbidden": "forbidden_pattern:\\[TODO\\]",
    "numeric": "numeric_oob:items",
    "nooutput": "no_file_match",
    "stale": "stale_file",
    "quality": "quality_score:2.1",
    "warn": "numeric_missing:items",
}
_FAILING = {"FAIL", "NO_OUTPUT", "QUALITY_DEGRADED"}


def plan_skills(cfg: Config) -> list[Plan]:
    rng = random.Random(SEED)
    n_log = round(cfg.skills * cfg.log_share)
    plans = []
    for i, (log, mode) in enumerate(_modes(cfg.skills, n_log, rng)):
        r = rng.random()
        if r < 0.78:
            schedule = f"{rng.choice((0, 15, 30, 45))} {rng.randrange(24)} * * *"
        elif r < 0.90:
            schedule = f"0 {rng.randrange(6, 20)} * * {rng.randrange(7)}"
        elif r < 0.96:
            schedule = f"0 {rng.randrange(24)} * * 1-5"
        else:
            schedule = "workflow_dispatch"
        if log and not schedule[0].isdigit():
            schedule = "0 9 * * *"
        status = _STATUS[mode]
        # yesterday: 40 % of today's failures were passing (NEW_FAIL → issues filed); 3 % of
        # passing skills were failing (FIXED → their issues closed); the rest unchanged.
        if status in _FAILING:
            prior = "PASS" if rng.random() < 0.4 else status
        else:
            prior = "FAIL" if rng.random() < 0.03 else status
        plans.append(Plan(f"skill-{i:04d}", log, schedule, mode, status, prior))
    return plans


def _skill_md(plan: Plan) -> str:
    """A SKILL.md that states what the skill writes: the file (or the log entry), its skeleton."""
    where = "memory/logs/${today}.md" if plan.log else f"articles/{plan.name}-${{today}}.md"
    verb = "Append to" if plan.log else "Save to"
    head = f"### {plan.name}" if plan.log else f"# {plan.name} — ${{today}}"
    return (
        f"---\nname: {plan.name}\ndescription: synthetic bench skill {plan.name}\n---\n"
        f"# {plan.name}\n\nRead the previous output, then write today's.\n\n"
        f"{verb} `{where}`:\n\n```markdown\n{head}\n\nSummary: {plan.name} run for ${{today}}\n"
        "Items processed: N\n```\n"
    )


def _spec(plan: Plan, words: int) -> dict[str, object]:
    spec: dict[str, object] = {
        "output_pattern": "memory/logs/*.md" if plan.log else f"articles/{plan.name}-*.md",
        "min_words": max(words // 2, 10),
        "required_patterns": ["^Summary:", f"{plan.name} (complete|done)"],
        "forbidden_patterns": ["\\$\\{var\\}", "\\[TODO\\]"],
        "numeric_checks": [
            {"label": "items", "pattern": "Items processed: ([0-9,]+)", "min": 1, "max": 100000}
        ],
    }
    if plan.log:
        spec["section"] = f"### {plan.name}"
    return spec


def _cause(plan: Plan, status: str) -> str:
    if status == "PASS":
        return "—"
    return _CAUSE[plan.mode] if status == plan.status else "word_count"


def _row(plan: Plan, status: str, diff: str, output: str, words: int) -> str:
    cause = _cause(plan, status).replace("|", "\\|")
    quality = "avg=2.1" if plan.mode == "quality" else "unknown"
    shown = "—" if status == "NO_OUTPUT" else f"{words:,}"
    return (
        f"| {plan.name} | {status} | {diff} | {cause} | {quality} | {shown} | "
        f"{output if status != 'NO_OUTPUT' else '—'} | — |"
    )


def _article(
    day: date,
    plans: list[Plan],
    statuses: list[str],
    prev: list[str] | None,
    issue_of: dict[str, str],
    words: int,
    gaps: list[str],
) -> str:
    """One past skill-evals article, in the layout aeon_evals/render.py writes."""
    rows, still, new = [], [], []
    order = {
        "NO_OUTPUT": 0,
        "FAIL": 1,
        "STALE": 2,
        "QUALITY_DEGRADED": 3,
        "WARN": 4,
        "ERROR": 5,
        "PASS": 6,
    }
    counts: Counter[str] = Counter()
    for plan, status, before in zip(plans, statuses, prev or [None] * len(plans), strict=True):
        if before is None:
            diff = "NEW_FAIL" if status in _FAILING else "NEW_PASS"
        elif before in _FAILING and status in _FAILING:
            diff = "STILL_FAIL"
        elif before in _FAILING:
            diff = "FIXED"
        elif status in _FAILING:
            diff = "NEW_QUALITY_DEGRADED" if status == "QUALITY_DEGRADED" else "NEW_FAIL"
        else:
            diff = "STABLE" if before == status else "WORSE"
        counts[diff] += 1
        output = (
            f"memory/logs/{(day - timedelta(days=1)).isoformat()}.md"
            if plan.log
            else f"articles/{plan.name}-{(day - timedelta(days=1)).isoformat()}.md"
        )
        rows.append((order[status], plan.name, _row(plan, status, diff, output, words)))
        issue = issue_of.get(plan.name, "—")
        if diff == "STILL_FAIL":
            still.append(
                f"| {plan.name} | {status} | {_cause(plan, status)} | {issue} | "
                f"{(day - timedelta(days=9)).isoformat()} |"
            )
        elif diff.startswith("NEW_") and status in _FAILING:
            new.append(f"| {plan.name} | {diff} | {_cause(plan, status)} | {issue} |")
    rows.sort()
    actions = [f"Investigate {line.split(' | ')[0][2:]} — word_count" for line in (new + still)[:3]]
    actions += [f"Add evals.json entry for {g} — pattern: articles/{g}-*.md" for g in gaps[:2]]
    enabled = len(plans) + len(gaps)
    pct = 100 * len(plans) / enabled
    out = [
        f"# Skill Evals — {day.isoformat()}",
        "",
        f"**Verdict:** {'SKILL_EVALS_REGRESSED' if new else 'SKILL_EVALS_OK'}",
        f"**Coverage:** {len(plans)}/{enabled} ({pct:.1f}%) = vs prior {pct:.1f}%",
        f"**Diff:** {counts['NEW_FAIL'] + counts['NEW_QUALITY_DEGRADED']} new fail · "
        f"{counts['FIXED']} fixed · "
        f"{counts['STILL_FAIL']} still failing · {counts['STABLE']} stable",
        "",
        "## Action Queue",
        *[f"{i}. {a}" for i, a in enumerate(actions, 1)],
        "",
    ]
    if new:
        out += [
            "## Regressions (NEW_FAIL + NEW_QUALITY_DEGRADED)",
            "| Skill | Status | Root cause | Issue |",
            "|-------|--------|------------|-------|",
            *new,
            "",
        ]
    if still:
        out += [
            "## Still Failing",
            "| Skill | Status | Root cause | Issue | Failing since |",
            "|-------|--------|------------|-------|---------------|",
            *still,
            "",
        ]
    out += [
        "## Full Results",
        "| Skill | Status | Diff | Root cause | Quality | Words | Last output | Notes |",
        "|-------|--------|------|------------|---------|-------|-------------|-------|",
        *[r for _, _, r in rows],
        "",
    ]
    if gaps:
        out += ["## Coverage Gaps (enabled in aeon.yml, missing from evals.json)"]
        out += [f"- {g} — inferred pattern: `articles/{g}-*.md`" for g in gaps[:10]]
        if len(gaps) > 10:
            out.append(f"+{len(gaps) - 10} more")
        out.append("")
    out += [
        "## Sources",
        "- evals.json=ok · cron-state=ok · skill-health=ok · eval-audit=ok · prior-article=ok",
        "- issues filed: none",
        "- issues closed: none",
    ]
    return "\n".join(out) + "\n"


def _issue(num: int, skill: str, *, status: str, detector: str, day: date, cause: str) -> str:
    resolved = f"'{day.isoformat()}T06:00:00Z'" if status == "resolved" else "null"
    return (
        f"---\nid: ISS-{num:03d}\ntitle: '{skill}: {cause}'\nstatus: {status}\n"
        "severity: high\ncategory: prompt-bug\n"
        f"detected_by: {detector}\ndetected_at: "
        f"'{(day - timedelta(days=20)).isoformat()}T06:00:00Z'\nresolved_at: {resolved}\n"
        f"affected_skills:\n- {skill}\nroot_cause: {cause}\n---\n\n"
        f"The latest output of {skill} failed its checks: {cause}. Article: "
        f"articles/skill-evals-{(day - timedelta(days=20)).isoformat()}.md\n"
    )


def generate(root: Path, cfg: Config) -> dict[str, object]:
    """Write the synthetic instance under `root` (created) and the baseline's specs.tsv beside it.

    Returns facts about it (file counts, expected statuses) for the report.
    """
    rng = random.Random(SEED + 1)
    plans = plan_skills(cfg)
    root.mkdir(parents=True)
    days = [
        TODAY - timedelta(days=d) for d in range(cfg.outputs, 0, -1)
    ]  # oldest first, up to yesterday
    gaps = [f"uncovered-{i:02d}" for i in range(max(2, cfg.skills // 100))]
    orphans = ["skil-0001", "skill-0002x"]  # evals.json keys with no folder and no aeon.yml entry

    # skills/, aeon.yml (with an invalid-YAML chain block, as in real files), evals.json
    skills_dir = root / "skills"
    # every SKILL.md states its output as real ones do: a write instruction and a fenced skeleton
    for plan in plans:
        (skills_dir / plan.name).mkdir(parents=True)
        (skills_dir / plan.name / "SKILL.md").write_text(_skill_md(plan))
    for name in [*gaps, "skill-evals"]:
        (skills_dir / name).mkdir(parents=True)
        (skills_dir / name / "SKILL.md").write_text(
            f"# {name}\n\nWrites articles/{name}-${{today}}.md every run.\n"
        )
    yml = ["# generated by scripts/bench.py", "skills:"]
    yml += [
        f'  {p.name}: {{ enabled: true, schedule: "{p.schedule}", model: "claude-sonnet-4-6" }}'
        for p in plans
    ]
    yml += [f'  {g}: {{ enabled: true, schedule: "0 7 * * *" }}' for g in gaps]
    yml += [
        '  skill-evals: { enabled: true, schedule: "0 6 * * *" }',
        '  retired-skill: { enabled: false, schedule: "workflow_dispatch" }',
    ]
    yml += ["", "chains:", "  morning:", "    - skill: skill-0000, consume: [skill-0001]", ""]
    (root / "aeon.yml").write_text("\n".join(yml))
    specs = {p.name: _spec(p, cfg.words) for p in plans} if cfg.specs == "evals" else {}
    for o in orphans:
        specs[o] = {"output_pattern": f"articles/{o}-*.md", "min_words": 10}
    top: dict[str, object] = {"version": "1", "description": "bench", "skills": specs}
    if cfg.specs == "skillmd":
        top["contracts"] = (
            "enforce"  # the N skills are evaluated on their SKILL.md, as full citizens
        )
    (skills_dir / "skill-evals" / "evals.json").write_text(json.dumps(top, indent=2))

    # outputs: one file per day per file-based skill; one log per day holding every log-based skill
    arts = root / "articles"
    arts.mkdir()
    files = 0
    log_plans = [p for p in plans if p.log]
    for p in plans:
        if p.log or p.mode == "nooutput":
            continue
        last = days[-6] if p.mode == "stale" and len(days) >= 6 else days[-1]
        for d in days:
            if d > last:
                break
            (arts / f"{p.name}-{d.isoformat()}.md").write_text(
                f"# {p.name} — {d.isoformat()}\n\n" + _body(p, d, cfg.words, rng, d == last)
            )
            files += 1
    logs = root / "memory" / "logs"
    logs.mkdir(parents=True)
    for d in days:
        parts = [f"# {d.isoformat()}\n"]
        for p in log_plans:
            parts.append(f"### {p.name}\n" + _body(p, d, cfg.words, rng, d == days[-1]))
        (logs / f"{d.isoformat()}.md").write_text("\n".join(parts))
        files += 1

    # state: cron-state for every skill, skill-health for a few (quality-degraded ones included)
    cron = {
        p.name: {
            "last_status": "failed" if p.mode == "nooutput" else "success",
            "last_success": f"{days[-1].isoformat()}T08:00:00Z",
            "total_runs": cfg.outputs,
            "consecutive_failures": 0,
            "success_rate": 0.97,
        }
        for p in plans
    }
    cron["chain:morning"] = {"last_status": "success"}
    (root / "memory" / "cron-state.json").write_text(json.dumps(cron, indent=1))
    health = root / "memory" / "skill-health"
    health.mkdir()
    healthy = [p for p in plans if p.mode == "pass"][: max(3, cfg.skills // 25)]
    for p in [q for q in plans if q.mode == "quality"] + healthy:
        score = 2.1 if p.mode == "quality" else 4.2
        (health / f"{p.name}.json").write_text(
            json.dumps(
                {
                    "skill": p.name,
                    "avg_score": score,
                    "history": [{"date": days[-1].isoformat(), "score": round(score)}],
                }
            )
        )
    (health / "last-report.json").write_text(
        json.dumps({"generated": days[-1].isoformat(), "skills": []})
    )

    # issues: an open skill-evals issue for every skill failing yesterday, plus resolved history
    # and a few from other detectors; INDEX.md lists them all
    issues_dir = root / "memory" / "issues"
    issues_dir.mkdir()
    issue_of: dict[str, str] = {}
    open_rows, resolved_rows = [], []
    num = 0
    for p in plans:
        if p.prior in _FAILING:
            num += 1
            issue_of[p.name] = f"ISS-{num:03d}"
            (issues_dir / f"ISS-{num:03d}.md").write_text(
                _issue(
                    num,
                    p.name,
                    status="open",
                    detector="skill-evals",
                    day=TODAY,
                    cause="word_count",
                )
            )
            open_rows.append(
                f"| [ISS-{num:03d}](ISS-{num:03d}.md) | {p.name}: word_count | high | "
                f"quality-regression | {(TODAY - timedelta(days=20)).isoformat()} | {p.name} |"
            )
    for k in range(max(5, cfg.skills // 10)):
        num += 1
        p = plans[(k * 7) % len(plans)]
        detector = "skill-evals" if k % 4 else "heartbeat"
        (issues_dir / f"ISS-{num:03d}.md").write_text(
            _issue(
                num,
                p.name,
                status="resolved",
                detector=detector,
                day=TODAY - timedelta(days=30 + k),
                cause="missing_pattern:x\\|y",
            )
        )
        resolved_rows.append(
            f"| [ISS-{num:03d}](ISS-{num:03d}.md) | {p.name}: missing_pattern:x\\|y | high | — | "
            f"{(TODAY - timedelta(days=30 + k)).isoformat()} |"
        )
    index = [
        "# Issues",
        "",
        "## Open",
        "",
        "| ID | Title | Severity | Category | Detected | Affected Skills |",
        "|----|-------|----------|----------|----------|-----------------|",
        *open_rows,
        "",
        "## Resolved",
        "",
        "| ID | Title | Severity | Fix PR | Resolved |",
        "|----|-------|----------|--------|----------|",
        *resolved_rows,
        "",
    ]
    (issues_dir / "INDEX.md").write_text("\n".join(index))

    # K past articles, one per day before today (yesterday's statuses = plan.prior; older ones
    # drift a little so the flakiness window has something to look at)
    prev_status: list[str] | None = None
    article_days = [TODAY - timedelta(days=d) for d in range(cfg.articles, 0, -1)]
    for n, d in enumerate(article_days):
        if d == TODAY - timedelta(days=1):
            statuses = [p.prior for p in plans]
        else:
            statuses = [
                p.prior if (rng.random() > 0.02) else ("PASS" if p.prior in _FAILING else "FAIL")
                for p in plans
            ]
        text = _article(d, plans, statuses, prev_status if n else None, issue_of, cfg.words, gaps)
        (arts / f"skill-evals-{d.isoformat()}.md").write_text(text)
        if cfg.metrics:
            (arts / f"skill-evals-metrics-{d.isoformat()}.tsv").write_text(
                _metrics(d, plans, statuses, cfg.words, rng)
            )
        prev_status = statuses

    # the shell baseline's input: one line per skill
    tsv = []
    for name, spec in specs.items():
        checks = spec.get("numeric_checks") or [{"pattern": "-", "min": "-", "max": "-"}]
        num_check = checks[0]  # type: ignore[index]
        tsv.append(
            "\t".join(
                [
                    name,
                    str(spec["output_pattern"]),
                    str(spec.get("section") or "-"),
                    str(spec.get("min_words", 0)),
                    "\x1f".join(spec.get("required_patterns", [])) or "-",  # type: ignore[arg-type]
                    "\x1f".join(spec.get("forbidden_patterns", [])) or "-",  # type: ignore[arg-type]
                    str(num_check["pattern"]),
                    str(num_check["min"]),
                    str(num_check["max"]),
                ]
            )
        )
    specs_tsv(root).write_text("\n".join(tsv) + "\n")
    expected = Counter(p.status for p in plans)
    new_fail = sum(1 for p in plans if p.status in _FAILING and p.prior not in _FAILING)
    return {
        "output_files": files,
        "articles": cfg.articles,
        "issues": num,
        "expected": dict(expected),
        "expected_new_fail": new_fail,
        "expected_fixed": sum(1 for p in plans if p.prior in _FAILING and p.status not in _FAILING),
    }


def specs_tsv(root: Path) -> Path:
    return root.with_name(root.name + ".specs.tsv")


def prime_site(root: Path) -> float:
    """Build the dashboard of the past articles, as yesterday's run would have left it (a cold
    build: nothing cached). Runs the real CLI so the cache carries the installed code's
    fingerprint."""
    wall, _, code, tail = timed_child(
        [*_cli(), "site", "--root", str(root), "--now", "2026-05-31T06:00:00Z"]
    )
    if code != 0:
        raise SystemExit(f"aeon-evals site exited {code}:\n{tail}")
    # ... and the SKILL.md contracts and outcome vocabularies it read, kept in .aeon-evals/cache/
    # like the articles
    prime = (
        "import sys; from pathlib import Path; "
        "from aeon_evals.cache.folder import Cache; "
        "from aeon_evals.contracts.instance import load_contracts; "
        "from aeon_evals.contracts.vocab import load_vocabularies; "
        "root = Path(sys.argv[1]); cache = Cache(root); "
        "skills = [p.name for p in (root / 'skills').iterdir() if p.is_dir()]; "
        "load_contracts(root, skills, cache); load_vocabularies(root, skills, cache); "
        "cache.save()"
    )
    subprocess.run([sys.executable, "-c", prime, str(root)], check=True)
    # ... and the metric history of the past runs, which yesterday's run left in the same cache
    # (.aeon-evals/cache/metrics.json): a nightly job keeps that folder between runs.
    history = (
        "import sys; from datetime import date; from pathlib import Path; "
        "from aeon_evals.metrics.read import history_for_run; "
        "from aeon_evals.load.layout import detect; from aeon_evals.load.outputs import Outputs; "
        "from aeon_evals.articles.store import ArticleStore; "
        "root = Path(sys.argv[1]); layout = detect(root); "
        "store = ArticleStore(root, names=Outputs(root).names(layout.articles), writable=True, "
        "dirs=layout.article_dirs); "
        "history_for_run(root, store, {}, before=date.fromisoformat(sys.argv[2])); store.save()"
    )
    done = subprocess.run(
        [sys.executable, "-c", history, str(root), TODAY.isoformat()],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:  # the metrics module moved on: measured without its cache
        print(f"bench: metric history not primed: {done.stderr.strip()[-300:]}", file=sys.stderr)
    prime_run_caches(root)
    return wall


# What a run keeps for the next night whatever the day (the workflow restores .aeon-evals/cache):
# aeon.yml as parsed, the cron schedules as expanded and evals.json as validated, each keyed by
# the bytes and the code.
RUN_CACHES = ("registry.json", "cron.json")


def prime_run_caches(root: Path) -> None:
    """Run once on a hard-linked copy of `root` and keep the caches of RUN_CACHES it wrote, as
    last night's run leaves them (the copy's articles, issues and site are thrown away)."""
    copy = fresh_copy(root, root.with_name(root.name + ".prime"))
    try:
        _, _, code, tail = timed_child([*_cli(), *run_args(copy, site=False)])
        if code != 0:
            raise SystemExit(f"aeon-evals run (priming its caches) exited {code}:\n{tail}")
        for name in RUN_CACHES:
            made = copy / ".aeon-evals" / "cache" / name
            if made.is_file():  # an older tree of the code has no such cache
                shutil.copyfile(made, root / ".aeon-evals" / "cache" / name)
    finally:
        discard(copy)


def package_digest() -> str:
    """A hash of the aeon_evals sources and templates: others edit them while the bench runs."""
    import importlib.util

    spec = importlib.util.find_spec("aeon_evals")
    base = Path(spec.origin).parent if spec and spec.origin else HERE.parent / "aeon_evals"
    h = hashlib.sha256()
    for folder in (base, base.parent / "templates"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(path.as_posix().encode())
                with contextlib.suppress(OSError):
                    h.update(path.read_bytes())
    return h.hexdigest()


class Tree:
    """The package version the template's site/ was primed with; measurements restart on a change
    (the site cache is keyed by the code, and medians must not mix two versions of the code)."""

    def __init__(self, template: Path, prime: bool):
        self.template, self.prime = template, prime
        self.digest = package_digest()
        self.restarts = 0

    def changed(self) -> bool:
        now = package_digest()
        if now == self.digest:
            return False
        self.restarts += 1
        if self.restarts > 5:
            raise SystemExit(
                "the package keeps changing under the benchmark: try again when it is quiet"
            )
        print(
            "  aeon_evals changed during the benchmark: re-priming and restarting this measurement",
            file=sys.stderr,
        )
        if self.prime:
            for derived in ("site", ".aeon-evals/cache"):
                if (self.template / derived).exists():
                    discard(self.template / derived)
            compile_package()
            prime_site(self.template)
        self.digest = package_digest()
        return True


# --------------------------------------------------------------------------------------------
# measuring


# Nothing is deleted while measuring: on ext4 without a journal (this machine's disk), creating a
# file scans past every inode freed in the last five minutes nearby (`recently_deleted` in
# ext4's inode allocator), so a run just after `rm -rf` of the previous run's copy spent 2.0 s
# in the kernel instead of 0.55 s (perf: find_inode_bit, recently_deleted), and the two
# processes writing pages spun on the folder's lock. A used copy is moved into `trash/` beside
# it (a rename frees nothing) and the work folder is removed once the benchmark is over.
_TRASH: list[Path] = []  # [the trash folder (set by main, in the work folder), then what it holds]

# The work folder is removed at the end, and that frees tens of thousands of inodes: the next
# benchmark within the next five minutes would be measured on a disk that still remembers them
# (ext4 looks back RECENTCY_MIN + RECENTCY_DIRTY = 305 s at an inode whose table block is dirty,
# and the runs keep dirtying them). `--specs skillmd` measured 1.300 s two minutes after 2.5 GB
# were removed, 1.128 s on the same tree once nothing had been removed for six minutes. So the
# end of a benchmark is noted here, and the next one on such a disk waits for the rest of the
# five minutes first (`--no-wait`: measure at once).
_REMOVED = Path(tempfile.gettempdir()) / "aeon-evals-bench.removed"
SETTLE_S = 310


def forgets_slowly(path: Path) -> bool:
    """Whether `path` is on ext4 without a journal, whose inode allocator skips, one by one,
    every inode freed in the last five minutes near the folder it creates a file in."""
    try:
        st = os.stat(path)
        dev = Path(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}").resolve().name
    except OSError:
        return False
    if not Path(f"/proc/fs/ext4/{dev}").is_dir():
        return False
    try:  # a journaled ext4 has /proc/fs/jbd2/<device>-<journal inode>
        return not any(
            entry.name.startswith(f"{dev}-") for entry in Path("/proc/fs/jbd2").iterdir()
        )
    except OSError:
        return True


def removed() -> None:
    """Note that a benchmark has just removed its work folder (see `settle`)."""
    with contextlib.suppress(OSError):
        _REMOVED.touch()


def settle(where: Path, *, wait: bool) -> None:
    """On such a disk, wait until the last benchmark's removal is SETTLE_S seconds old (or say
    that this one may be slow, without `wait`)."""
    try:
        since = time.time() - _REMOVED.stat().st_mtime
    except OSError:
        return
    if since >= SETTLE_S or not forgets_slowly(where):
        return
    why = (
        f"a benchmark removed its files {since:.0f} s ago, and ext4 without a journal creates "
        "files more slowly for five minutes after"
    )
    if not wait:
        print(f"note: {why} (see bench.py `_REMOVED`)")
        return
    left = SETTLE_S - since
    print(f"waiting {left:.0f} s: {why} (--no-wait: measure now)", flush=True)
    time.sleep(left)


def discard(path: Path) -> None:
    """Move `path` out of the way without deleting it; removed with the work folder."""
    if not _TRASH:
        _TRASH.append(path.parent / "trash")
    _TRASH[0].mkdir(exist_ok=True)
    dest = _TRASH[0] / f"{len(_TRASH)}-{path.name}"
    path.rename(dest)
    _TRASH.append(dest)


def fresh_copy(template: Path, dest: Path) -> Path:
    """A hard-linked copy of `template` at `dest`, written back to disk before it is used: the
    copy's own writeback is the harness's cost, not the run's."""
    if dest.exists():
        discard(dest)
    subprocess.run(["cp", "-al", str(template), str(dest)], check=True)
    os.sync()
    return dest


def _cli() -> list[str]:
    """The console script beside this interpreter, as a venv user runs it. A version-manager shim
    found on PATH first (pyenv's is a bash script that runs `pyenv exec`) would add ~50 ms of
    its own to every timed run."""
    beside = Path(sys.executable).with_name("aeon-evals")
    if beside.is_file():
        return [str(beside)]
    exe = shutil.which("aeon-evals")
    return [exe] if exe else [sys.executable, "-m", "aeon_evals"]


def timed_child(
    cmd: list[str], *, cwd: Path | None = None, out: list[str] | None = None
) -> tuple[float, float, int, str]:
    """(wall seconds, peak RSS MiB of this child alone, exit code, stderr tail); stdout appended
    to `out`."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as std:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=std, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace")[-600:]
        if out is not None:
            std.seek(0)
            out.append(std.read().decode("utf-8", "replace"))
    return wall, usage.ru_maxrss / 1024, proc.returncode, tail


def run_args(root: Path, site: bool) -> list[str]:
    return [
        "run",
        "--root",
        str(root),
        "--now",
        NOW,
        "--no-notify",
        *([] if site else ["--no-site"]),
    ]


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for rel in (
        "memory/issues/INDEX.md",
        "memory/issues/ISS-001.md",
        f"memory/logs/{(TODAY - timedelta(days=1)).isoformat()}.md",
    ):
        with contextlib.suppress(OSError):
            h.update((root / rel).read_bytes())
    h.update(
        str(
            sorted(
                p.name for p in (root / "articles").iterdir() if p.name.startswith("skill-evals-")
            )
        ).encode()
    )
    return h.hexdigest()


def measure_runs(
    template: Path, work: Path, repeat: int, site: bool, tree: Tree
) -> dict[str, object]:
    walls: list[float] = []
    rss: list[float] = []
    before = _digest(template)
    while len(walls) < repeat:
        if tree.changed():
            walls.clear()
            rss.clear()
        copy = fresh_copy(template, work / f"run-{len(walls)}")
        wall, peak, code, tail = timed_child([*_cli(), *run_args(copy, site)])
        if code != 0:
            raise SystemExit(f"aeon-evals run exited {code}:\n{tail}")
        article = copy / "articles" / f"skill-evals-{TODAY.isoformat()}.md"
        if not article.is_file():
            raise SystemExit("aeon-evals run wrote no article")
        discard(copy)
        if package_digest() == tree.digest:  # else the code changed while it ran: not a sample
            walls.append(wall)
            rss.append(peak)
    if _digest(template) != before:
        raise SystemExit(
            "the template instance changed during a run: hard-linked copies are not safe any more"
        )
    return {
        "walls": walls,
        "median": statistics.median(walls),
        "peak_mb": max(rss),
        "restarts": tree.restarts,
    }


def compile_package() -> None:
    """Write the package's bytecode (`__pycache__`), as `pip install` does for an installed
    package: with PYTHONDONTWRITEBYTECODE set, as on the bench machine, an editable install
    would otherwise compile every module from source in every timed run (about 0.15 s)."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("aeon_evals")
    if spec and spec.origin:
        compileall.compile_dir(Path(spec.origin).parent, quiet=1)


# `aeon-evals ARGS` start-up rows: (label, argv after the console script); the demo instance
# is the repository root. `validate` is compared with an interpreter importing only what
# validation needs (issue #20).
STARTUP = (
    ("--version", ["--version"]),
    ("--help", ["--help"]),
    ("validate (demo)", ["validate", "--root", str(HERE.parent)]),
    ("audit (demo)", ["audit", "--root", str(HERE.parent)]),
    ("contracts (demo)", ["contracts", "--root", str(HERE.parent)]),
    ("lint (demo)", ["lint", "--root", str(HERE.parent)]),
    ("run --help", ["run", "--help"]),
)
BARE_VALIDATE = "import yaml, re2, croniter, json"


def startup_table(repeat: int) -> list[tuple[str, float, float]]:
    """(label, median s, min s) of each start-up row, the runs interleaved so that a busy
    moment of the machine spreads over every row alike."""
    rows = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        (f"python -c '{BARE_VALIDATE}'", [sys.executable, "-c", BARE_VALIDATE]),
        *((f"aeon-evals {label}", [*_cli(), *argv]) for label, argv in STARTUP),
    ]
    walls: dict[str, list[float]] = {label: [] for label, _ in rows}
    for _ in range(repeat):
        for label, cmd in rows:
            walls[label].append(timed_child(cmd)[0])
    return [(label, statistics.median(w), min(w)) for label, w in walls.items()]


def report_startup(table: list[tuple[str, float, float]]) -> None:
    base = table[0][1]
    bare = table[1][1]
    print("\n## start-up per command (median of interleaved runs)")
    print("| command | median ms | min ms | × `python -c pass` | × bare validate imports |")
    print("|---|---:|---:|---:|---:|")
    for label, median, least in table:
        vs_bare = f"{median / bare:.2f}×" if "validate" in label else ""
        print(
            f"| `{label}` | {median * 1000:.1f} | {least * 1000:.1f} | {median / base:.2f}× | "
            f"{vs_bare} |"
        )


def measure_startup(repeat: int) -> float:
    code = "import aeon_evals.cli, aeon_evals.site, aeon_evals.issues"
    return statistics.median(
        timed_child([sys.executable, "-c", code])[0] for _ in range(max(repeat, 3))
    )


def measure_breakdown(
    template: Path, work: Path, repeat: int, site: bool, tree: Tree
) -> dict[str, float]:
    """Median per-stage seconds over `repeat` in-process runs, each in a fresh interpreter."""
    samples: list[dict[str, float]] = []
    while len(samples) < repeat:
        if tree.changed():
            samples.clear()
        copy = fresh_copy(template, work / f"prof-{len(samples)}")
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child-breakdown",
                str(copy),
                *([] if site else ["--no-site"]),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            raise SystemExit(f"breakdown run failed:\n{out.stderr[-2000:]}")
        for line in out.stderr.splitlines():
            if line.startswith("bench:") and not samples:
                print(f"  {line}", file=sys.stderr)
        discard(copy)
        if package_digest() == tree.digest:
            samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(s[k] for s in samples) for k in samples[0]}


def measure_baseline(template: Path, work: Path, repeat: int) -> dict[str, object]:
    walls = []
    result = ""
    for i in range(repeat):
        copy = fresh_copy(template, work / f"base-{i}")
        out_file = work / "baseline.out"
        start = time.perf_counter()
        with open(out_file, "wb") as fh:
            subprocess.run(
                ["bash", str(BASELINE), str(copy), str(specs_tsv(template)), TODAY.isoformat()],
                stdout=fh,
                check=True,
            )
        walls.append(time.perf_counter() - start)
        result = out_file.read_text()
        discard(copy)
    statuses = Counter(line.split("\t")[1] for line in result.splitlines() if "\t" in line)
    return {"walls": walls, "median": statistics.median(walls), "statuses": dict(statuses)}


# --------------------------------------------------------------------------------------------
# the in-process run with stage timers (child mode)


def _install_timers() -> tuple[dict[str, float], dict[str, int]]:
    """Wrap the stage functions (module attributes, not files) with exclusive timers."""
    import functools

    from aeon_evals import site
    from aeon_evals.articles.store import ArticleStore
    from aeon_evals.checks import latest
    from aeon_evals.checks import skill as checks
    from aeon_evals.contracts import audit
    from aeon_evals.load import cadence
    from aeon_evals.load.outputs import Outputs
    from aeon_evals.report import diff as report
    from aeon_evals.report import render
    from aeon_evals.run import compose, issue_stage, loaded, pipeline

    totals: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    calls: dict[str, int] = dict.fromkeys(STAGES, 0)
    stack: list[float] = []

    def wrap(owner: object, name: str, stage: str) -> None:
        fn = getattr(owner, name)

        @functools.wraps(fn)
        def timed(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            stack.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                inner = stack.pop()
                totals[stage] += elapsed - inner
                calls[stage] += 1
                if stack:
                    stack[-1] += elapsed

        setattr(owner, name, timed)

    missing = []
    for owner, name, stage in (
        (pipeline, "load_manifest", "load"),
        (loaded, "load_registry", "load"),
        (loaded, "load_state", "load"),
        (Outputs, "matches", "glob"),
        (Outputs, "read", "read"),
        (checks, "check_content", "match"),
        (checks, "holds_entry", "match"),  # checks' own name for it, and latest's below
        (latest, "holds_entry", "match"),
        (latest, "_only_own_section", "match"),
        (cadence, "expected_cadence_days", "cadence"),
        (cadence, "previous_fire", "cadence"),
        (ArticleStore, "prior", "diff"),
        (compose, "_history", "diff"),
        (report, "build_rows", "diff"),
        (audit, "audit", "audit"),
        (issue_stage, "read_state", "issues"),
        (issue_stage, "plan_issues", "issues"),
        (issue_stage, "apply_plan", "issues"),
        (render, "render_article", "render"),
        (render, "log_section", "render"),
        (site, "build_site", "site"),
    ):
        if hasattr(owner, name):
            wrap(owner, name, stage)
        else:  # the package moved on: say so rather than crash
            missing.append(f"{getattr(owner, '__name__', owner)}.{name}")
    if missing:
        print(f"bench: not timed (no longer in the package): {', '.join(missing)}", file=sys.stderr)
    return totals, calls


def _checks_here() -> None:
    """The checks in this process, so that the stage timers and the profiler see them (a run
    checks many skills on the second core while it reads the history: evaluate.start_checks)."""
    from aeon_evals.run import evaluate

    if hasattr(evaluate, "FORK_MIN_CHECKS"):
        evaluate.FORK_MIN_CHECKS = 1 << 30


def child_breakdown(root: Path, site: bool) -> int:
    import io
    from contextlib import redirect_stdout

    from aeon_evals import cli

    _checks_here()
    totals, _calls = _install_timers()
    cli.tune_gc()  # as the console script does
    start = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        code = cli.main(run_args(root, site))
    total = time.perf_counter() - start
    if code != 0:
        return code
    result = {**totals, "other": total - sum(totals.values()), "total": total}
    print(json.dumps(result))
    return 0


def child_profile(root: Path, site: bool, top: int) -> int:
    import cProfile
    import io
    import pstats
    from contextlib import redirect_stdout

    from aeon_evals import cli

    _checks_here()
    prof = cProfile.Profile()
    cli.tune_gc()
    with redirect_stdout(io.StringIO()):
        prof.runcall(cli.main, run_args(root, site))
    for key in ("cumulative", "tottime"):
        stats = pstats.Stats(prof, stream=sys.stdout)
        stats.strip_dirs().sort_stats(key).print_stats(top)
    return 0


# --------------------------------------------------------------------------------------------
# reporting


def python_loop_ms() -> float:
    """Milliseconds a fixed pure-Python loop takes here now (the best of three): the host's
    speed, printed with every benchmark so that sittings and machines can be compared (the
    same tree's run moved by up to 20 % between sittings on one machine)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        total = 0
        for i in range(1_000_000):
            total += i * i % 7
        best = min(best, time.perf_counter() - start)
    return best * 1000


def tree_label() -> str:
    """The checkout's commit ("tree abc1234"), with a count of uncommitted changes to the
    package when there are any."""
    tree = "unknown tree"
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        head = subprocess.run(
            ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(HERE), "status", "--porcelain", "--", "../aeon_evals"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        tree = f"tree {head}" + (
            f" + {len(dirty.splitlines())} uncommitted change(s) under aeon_evals/"
            if dirty.strip()
            else ""
        )
    return tree


def machine() -> str:
    """The machine's facts, the tree, and how fast Python runs here now (python_loop_ms)."""
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"nproc={os.cpu_count()} · CPU {model} · Python {platform.python_version()} · "
        f"{platform.system()} {platform.release()} · {tree_label()} · "
        f"a fixed Python loop {python_loop_ms():.0f} ms"
    )


def bench_one(cfg: Config, args: argparse.Namespace, work: Path) -> dict[str, object]:
    template = work / "instance"
    t0 = time.perf_counter()
    facts = generate(template, cfg)
    gen = time.perf_counter() - t0
    print(
        f"[{cfg.label()}] generated {facts['output_files']:,} output files, "
        f"{cfg.articles} articles, {facts['issues']} issues in {gen:.1f}s",
        file=sys.stderr,
    )
    # the code's digest is taken before priming: an edit during the priming re-primes
    tree = Tree(template, prime=args.site and args.site_state == "warm")
    if args.site and args.site_state == "warm":
        facts["cold_site_s"] = prime_site(
            template
        )  # `aeon-evals site` over K articles, nothing cached
        print(
            f"[{cfg.label()}] primed site/ (cold build_site of {cfg.articles} articles) in "
            f"{facts['cold_site_s']:.1f}s",
            file=sys.stderr,
        )
    runs = measure_runs(template, work, args.repeat, args.site, tree)
    result: dict[str, object] = {
        "cfg": cfg,
        "facts": facts,
        "runs": runs,
        "tree": f"{tree_label()}, code {tree.digest[:10]}",
        "code": tree.digest,
    }
    if args.breakdown:
        result["breakdown"] = measure_breakdown(template, work, args.breakdown, args.site, tree)
    if args.baseline_repeat:
        result["baseline"] = measure_baseline(template, work, args.baseline_repeat)
    if args.profile:
        copy = fresh_copy(template, work / "cprofile")
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--child-profile",
                str(copy),
                str(args.profile),
                *([] if args.site else ["--no-site"]),
            ],
            check=True,
        )
        discard(copy)
    discard(template)
    specs_tsv(template).unlink()
    return result


def report(res: dict[str, object], args: argparse.Namespace, startup: float) -> None:
    cfg: Config = res["cfg"]  # type: ignore[assignment]
    runs: dict = res["runs"]  # type: ignore[type-arg]
    facts: dict = res["facts"]  # type: ignore[type-arg]
    print(
        f"\n## {cfg.label()}  ({facts['output_files']:,} output files; site "
        f"{'on, ' + args.site_state if args.site else 'off'}; {res['tree']})"
    )
    print(
        f"aeon-evals run: median {runs['median']:.3f}s over {len(runs['walls'])} runs "
        f"(min {min(runs['walls']):.3f}, max {max(runs['walls']):.3f}); peak RSS "
        f"{runs['peak_mb']:.0f} MiB"
        + (
            f"; measurement restarted {runs['restarts']}× after package edits"
            if runs.get("restarts")
            else ""
        )
    )
    print(
        f"expected statuses: {facts['expected']} · new fail {facts['expected_new_fail']} · fixed "
        f"{facts['expected_fixed']}"
    )
    if "cold_site_s" in facts:
        print(
            f"cold site build (`aeon-evals site` on yesterday's {cfg.articles} articles, nothing "
            f"cached; not in the median): {facts['cold_site_s']:.1f}s"
        )
    if "breakdown" in res:
        bd: dict[str, float] = res["breakdown"]  # type: ignore[assignment]
        print(
            f"breakdown (median of {args.breakdown} in-process runs; interpreter start + imports ≈ "
            f"{startup:.3f}s extra):"
        )
        print("| stage | seconds | share |")
        print("|---|---:|---:|")
        for stage in (*STAGES, "other"):
            print(f"| {stage} | {bd[stage]:.3f} | {100 * bd[stage] / bd['total']:.0f}% |")
        print(f"| **total in-process** | {bd['total']:.3f} | 100% |")
    if "baseline" in res:
        base: dict = res["baseline"]  # type: ignore[type-arg]
        print(
            f"shell baseline: median {base['median']:.2f}s over {len(base['walls'])} run(s) → "
            f"aeon-evals is {base['median'] / runs['median']:.1f}× faster; baseline statuses "
            f"{base['statuses']}"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--skills", type=int, default=1000, help="skills N (default 1000)")
    p.add_argument(
        "--specs",
        choices=("evals", "skillmd"),
        default="evals",
        help="evals: the N skills have evals.json entries (default); skillmd: none, each is "
        "evaluated on the output contract its SKILL.md states (contracts: enforce)",
    )
    p.add_argument(
        "--outputs",
        type=int,
        default=30,
        help="dated outputs per skill M, and daily logs (default 30)",
    )
    p.add_argument(
        "--log-share",
        type=float,
        default=0.3,
        help="share of skills writing a section of memory/logs/*.md (default 0.3)",
    )
    p.add_argument(
        "--words", type=int, default=200, help="words per output or log section (default 200)"
    )
    p.add_argument(
        "--articles", type=int, default=200, help="past skill-evals articles K (default 200)"
    )
    p.add_argument(
        "--history",
        type=int,
        default=0,
        help="N past runs, each with its article and its metrics file (sets --articles N)",
    )
    p.add_argument(
        "--repeat", type=int, default=5, help="timed CLI runs; the median is reported (default 5)"
    )
    p.add_argument(
        "--breakdown",
        type=int,
        default=3,
        metavar="N",
        help="in-process runs for the stage breakdown (default 3; 0: skip)",
    )
    p.add_argument(
        "--baseline-repeat",
        type=int,
        default=1,
        metavar="N",
        help="shell baseline runs (default 1; 0: skip)",
    )
    p.add_argument("--no-site", dest="site", action="store_false", help="run with --no-site")
    p.add_argument(
        "--site-state",
        choices=("warm", "cold"),
        default="warm",
        help="warm: the instance holds yesterday's site/ (and its parse cache), as a nightly job "
        "that keeps site/ sees it; cold: no site/ yet, every past article is parsed and rendered "
        "(default warm)",
    )
    p.add_argument(
        "--scaling",
        action="store_true",
        help="run N=250/1000/4000 at M=30 and M=365 at N=1000, print a table",
    )
    p.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="TOP",
        help="also print a cProfile top-TOP of one in-process run",
    )
    p.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where to generate (default: a temporary folder under /tmp, removed)",
    )
    p.add_argument(
        "--no-wait",
        action="store_true",
        help="measure at once even if a benchmark removed its files less than five minutes "
        "ago on ext4 without a journal (by default it waits)",
    )
    p.add_argument(
        "--startup",
        type=int,
        default=0,
        metavar="R",
        help="also time each command's start-up R times (interleaved) against python -c pass",
    )
    p.add_argument(
        "--startup-only", action="store_true", help="only the start-up table (with --startup R)"
    )
    p.add_argument("--child-breakdown", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--child-profile", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean the temporary folder on kill

    if args.child_breakdown:
        return child_breakdown(args.child_breakdown, args.site)
    if args.child_profile:
        return child_profile(Path(args.child_profile[0]), args.site, int(args.child_profile[1]))

    print(machine())
    words = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"command: python scripts/bench.py {words}".rstrip())
    settle(Path(args.workdir or tempfile.gettempdir()), wait=not args.no_wait)
    compile_package()
    if args.startup:
        report_startup(startup_table(args.startup))
        if args.startup_only:
            return 0
    startup = measure_startup(args.repeat)
    if args.history:
        args.articles = args.history
    base_cfg = Config(
        args.skills,
        args.outputs,
        args.log_share,
        args.words,
        args.articles,
        args.specs,
        metrics=bool(args.history),
    )
    if args.workdir is not None:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)  # a folder to make, not an error
    try:
        return _measure(args, base_cfg, startup)
    finally:  # the work folder was removed (TemporaryDirectory): the next benchmark waits
        removed()


def _measure(args: argparse.Namespace, base_cfg: Config, startup: float) -> int:
    """Generate, run and report in a work folder removed at the end."""
    with tempfile.TemporaryDirectory(prefix="aeon-bench-", dir=args.workdir) as tmp:
        work = Path(tmp)
        _TRASH[:] = [work / "trash"]
        if not args.scaling:
            report(bench_one(base_cfg, args, work), args, startup)
            return 0
        configs = [
            Config(n, 30, args.log_share, args.words, args.articles) for n in (250, 1000, 4000)
        ]
        configs.append(Config(1000, 365, args.log_share, args.words, args.articles))
        results = []
        for cfg in configs:
            res = bench_one(cfg, args, work)
            report(res, args, startup)
            results.append(res)
    print("\n## scaling")
    print("| N | M | output files | median s | min–max s | peak MiB | vs previous row |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for i, res in enumerate(results):
        cfg, runs, facts = res["cfg"], res["runs"], res["facts"]
        note = ""
        if i in (1, 2):  # N grows 4× at M=30
            note = (
                f"4× N → {runs['median'] / results[i - 1]['runs']['median']:.2f}× time (target ≤ "
                "4.5×)"
            )
        elif i == 3:  # M grows 30 → 365 at N=1000
            note = (
                f"M 30→365 → {runs['median'] / results[1]['runs']['median']:.2f}× time (target < "
                "2×)"
            )
        print(
            f"| {cfg.skills:,} | {cfg.outputs} | {facts['output_files']:,} | {runs['median']:.3f} "
            "| "
            f"{min(runs['walls']):.3f}–{max(runs['walls']):.3f} | {runs['peak_mb']:.0f} | {note} |"
        )
    if len({res["code"] for res in results}) > 1:
        trees = sorted({str(res["tree"]) for res in results})
        print(
            f"warning: the rows were measured on different package code ({'; '.join(trees)}): "
            "rerun when the tree is quiet"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One set of numbers (issue 15, point 4): one run's article, `--json`, dashboard page, job
summary, JUnit and notification agree on every number; disabled and muted skills are counted
apart everywhere; after an article that counted coverage another way no surface shows a delta."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Instance

Cli = Callable[..., tuple[int, str, str]]
WORDS = " ".join(["word"] * 60)
WEEK1, WEEK2 = "2026-05-17T06:00:00Z", "2026-05-24T06:00:00Z"


@pytest.fixture(autouse=True)
def _not_github(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_ACTIONS", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(name, raising=False)


def _fleet(inst: Instance) -> Instance:
    weekly = "0 7 * * 1"
    inst.aeon_yml(
        {
            "stays-bad": (True, weekly),
            "breaks": (True, weekly),
            "recovers": (True, weekly),
            "fine": (True, weekly),
            "off-bad": (False, weekly),  # disabled, failing
            "muted-bad": (True, weekly),  # muted, failing
            "uncovered": (True, weekly),
        }
    )
    spec = {"min_words": 50}
    inst.evals(
        {
            name: {"output_pattern": f"articles/{name}-*.md", **spec}
            for name in ("stays-bad", "breaks", "recovers", "fine", "off-bad")
        }
        | {
            "muted-bad": {
                "output_pattern": "articles/muted-bad-*.md",
                "mute": {"until": "2026-12-31", "reason": "vendor down"},
            }
        }
    )
    for name in ("breaks", "fine"):
        inst.write(f"articles/{name}-2026-05-16.md", WORDS)
    inst.write("skills/uncovered/SKILL.md", "Writes `articles/uncovered-${today}.md`.\n")
    inst.notifier()
    return inst


def _week2(inst: Instance) -> None:
    inst.write("articles/breaks-2026-05-23.md", "too short\n")
    inst.write("articles/recovers-2026-05-23.md", WORDS)
    inst.write("articles/fine-2026-05-23.md", WORDS)


def _text(page: str) -> str:
    """An HTML page's text, tags dropped, white space folded."""
    page = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", page)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _surfaces(
    inst: Instance, cli: Cli, now: str, tmp_path: Path, monkeypatch: Any
) -> dict[str, Any]:
    summary = tmp_path / "summary.md"
    summary.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit = tmp_path / "junit.xml"
    code, out, err = cli(
        "run", "--root", str(inst.root), "--now", now, "--json", "--junit", str(junit)
    )
    assert code == 0, err
    day = now[:10]
    return {
        "json": json.loads(out),
        "article": (inst.root / f"articles/skill-evals-{day}.md").read_text(),
        "dashboard": _text((inst.root / "site/index.html").read_text()),
        "summary": summary.read_text(),
        "junit": junit.read_text(),
        "notify": inst.notifications()[-1][0] if inst.notifications() else None,
        "log": (inst.root / f"memory/logs/{day}.md").read_text(),
    }


def _article_numbers(article: str) -> dict[str, Any]:
    verdict = re.search(r"\*\*Verdict:\*\* (\S+)", article)
    cov = re.search(r"\*\*Coverage:\*\* (\d+)/(\d+) \(([\d.]+)%\)(.*)", article)
    diff = re.search(r"\*\*Diff:\*\* (.*)", article)
    assert verdict and cov and diff
    delta = re.search(r"\(([+-][\d.]+) pp\)", cov.group(4))
    still = (
        article.split("## Still Failing")[1].split("\n\n")[0]
        if "## Still Failing" in article
        else ""
    )
    queue = re.findall(r"(?m)^\d+\. (.*)$", article.split("## Action Queue")[1].split("\n\n")[0])
    return {
        "verdict": verdict.group(1),
        "covered": int(cov.group(1)),
        "enabled": int(cov.group(2)),
        "pct": float(cov.group(3)),
        "delta": float(delta.group(1)) if delta else None,
        "diff": diff.group(1).strip(),
        "still": re.findall(r"(?m)^\| ([\w-]+) \|", still)[1:],
        "queue": queue,
    }


def test_every_surface_shows_the_same_numbers(
    instance: Instance, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inst = _fleet(instance)
    _surfaces(inst, cli, WEEK1, tmp_path, monkeypatch)
    inst.write("skills/uncovered/SKILL.md", "gone\n")  # coverage moves: 5/6 → 5/6 (renamed below)
    inst.aeon_yml(
        {
            name: (name != "off-bad", "0 7 * * 1")
            for name in ("stays-bad", "breaks", "recovers", "fine", "off-bad", "muted-bad")
        }
        | {"uncovered": (True, "0 7 * * 1"), "also-uncovered": (True, "0 7 * * 1")}
    )
    _week2(inst)
    s = _surfaces(inst, cli, WEEK2, tmp_path, monkeypatch)
    a = _article_numbers(s["article"])
    j = s["json"]

    # the run itself: what the numbers must be
    assert a["verdict"] == "SKILL_EVALS_REGRESSED"
    assert (a["covered"], a["enabled"], a["pct"]) == (5, 7, 71.4)
    assert a["delta"] == -11.9  # 83.3 % → 71.4 %
    assert a["still"] == ["stays-bad"]
    assert j["failing"] == {
        "count": 2,
        "of": 4,
        "skills": ["breaks", "stays-bad"],
        "still_failing": ["stays-bad"],
        "regressions": ["breaks"],
        "disabled_or_muted": ["muted-bad", "off-bad"],
    }

    # --json
    assert j["verdict"] == a["verdict"]
    assert (j["coverage"]["covered"], j["coverage"]["enabled"]) == (a["covered"], a["enabled"])
    assert round(j["coverage"]["pct"], 1) == a["pct"] and j["coverage"][
        "delta_pts"
    ] == pytest.approx(a["delta"], abs=0.05)
    diff = j["diff"]
    assert a["diff"].startswith(
        f"{diff['new_fail']} new fail · {diff['fixed']} fixed · {diff['still_failing']} still "
        "failing"
        f" · {diff['stable']} stable · {diff['ignored']} disabled or muted"
    )
    assert j["action_queue"] == a["queue"]

    # dashboard
    d = s["dashboard"]
    assert (
        f"Coverage {a['covered']}/{a['enabled']} ({a['pct']:g}%) ↓{abs(a['delta']):g} pts vs prior"
        in d
    )
    assert (
        "Failing now 2 of 4 FAIL, QUALITY_DEGRADED or NO_OUTPUT; 2 disabled or muted not counted"
        in d
    )
    assert "Diff " + " ".join(a["diff"].split(" · ")) + " Action Queue" in d  # one chip each
    for item in a["queue"]:
        assert " ".join(item.replace("`", "").split()) in d

    # job summary
    summary = s["summary"]
    assert f"**Verdict:** `{a['verdict']}`" in summary
    assert f"**Coverage:** {a['covered']}/{a['enabled']} ({a['pct']:g}%)" in summary
    assert f"({a['delta']:+.1f} pp)" in summary
    assert f"**Diff:** {a['diff']}" in summary
    assert "**Failing now:** 2 of 4 (2 disabled or muted, not counted)" in summary
    still = summary.split("### Still Failing")[1].split("\n\n")[1]
    assert re.findall(r"(?m)^\| ([\w-]+) \|", still)[1:] == a["still"]  # not off-bad, muted-bad
    for i, item in enumerate(a["queue"], 1):
        assert f"{i}. {item}" in summary

    # JUnit
    assert '<property name="failing" value="2" />' in s["junit"]
    assert '<property name="failing_disabled_or_muted" value="2" />' in s["junit"]
    assert f'<property name="coverage" value="{a["covered"]}/{a["enabled"]}" />' in s["junit"]

    # notification
    body = s["notify"].splitlines()
    assert body[0] == f"*Skill Evals — {a['verdict']}*"
    assert (
        body[1] == f"{diff['new_fail']} new fail · {diff['fixed']} fixed · coverage {a['pct']:g}%"
    )
    # what changed first: the new failures, each with its cause; then the top action
    assert body[2] == "New failures:"
    listed = body[3 : body.index(next(line for line in body[3:] if not line.startswith("• ")))]
    assert [line[2:].split(" — ")[0] for line in listed] == j["failing"]["regressions"]
    assert f"Top action: {a['queue'][0]}" in body

    # the log section
    assert f"- Diff: {a['diff']}" in s["log"] and f"- Verdict: {a['verdict']}" in s["log"]


def test_after_an_llm_article_no_surface_shows_a_coverage_delta(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anajuliabit's 05-31 run after the LLM-written 05-24 article: the dashboard said
    "↓36.2 pts vs prior" while the article said "not compared"."""
    from realdata import anajuliabit_instance

    inst = Instance(anajuliabit_instance(tmp_path / "ana"))
    s = _surfaces(inst, cli, "2026-05-31T06:57:14Z", tmp_path, monkeypatch)
    assert "not compared" in s["article"] and " pp)" not in s["article"]
    assert (
        s["json"]["coverage"]["delta_pts"] is None and s["json"]["coverage"]["previous_pct"] is None
    )
    assert s["json"]["coverage"]["legacy_pct"] is not None
    assert "pts vs prior" not in s["dashboard"]
    assert "not compared: the prior run counted coverage another way" in s["dashboard"]
    assert "not compared" in s["summary"] and " pp)" not in s["summary"]
    # disabled skills apart: the dashboard's failing count is the article's
    a = _article_numbers(s["article"])
    j = s["json"]
    assert f"Failing now {j['failing']['count']} of {j['failing']['of']}" in s["dashboard"]
    assert j["failing"]["count"] == j["diff"]["new_fail"] + j["diff"]["still_failing"]
    assert a["still"] == j["failing"]["still_failing"]


def test_an_unchanged_coverage_of_7_of_9_is_no_change_on_any_surface(
    tmp_path: Path, cli: Cli
) -> None:
    """miroshark at 7/9 two weeks running: the article said "= vs prior 77.8%" while --json gave
    delta_pts -0.02 and the dashboard card "−0pp", trend down (77.78 against the 77.8 read back
    from the prior article)."""
    from realdata import whole_instance

    root = whole_instance("aaronjmars__miroshark-aeon@2026-08-22", tmp_path / "ms")
    assert cli("run", "--root", str(root), "--now", "2026-08-22T17:07:26Z")[0] == 0
    code, out, err = cli(
        "run", "--root", str(root), "--now", "2026-08-29T17:00:00Z", "--json", "--no-notify"
    )
    assert code == 0, err
    coverage = json.loads(out)["coverage"]
    assert round(coverage["pct"], 1) == coverage["previous_pct"]  # unchanged, as the test needs
    assert coverage["delta_pts"] == 0
    article = (root / "output/articles/skill-evals-2026-08-29.md").read_text()
    assert f"= vs prior {coverage['previous_pct']:g}%" in article
    cards = sorted(root.glob("**/outputs/skill-evals-2026-08-29T*.json"))
    assert cards
    props = [
        el["props"]
        for el in json.loads(cards[-1].read_text())["elements"].values()
        if el.get("props", {}).get("label") == "Coverage"
    ]
    assert props and props[0]["trend"] == "neutral", props

"""The dashboard's page per skill and its badges (issue 18): built by real runs, golden, sized."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from conftest import Instance
from golden import assert_golden
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import escape
from test_metrics import _fleet, _week
from test_run_scope import _contract_fleet
from test_site import NOW as SITE_NOW
from test_site import write_history

from aeon_evals import site
from aeon_evals.metrics.history import Sample, render_tsv
from aeon_evals.model import Status
from aeon_evals.site import skill_site
from aeon_evals.site.skill_charts import escaped
from aeon_evals.site.skill_pages import pretty_json

Cli = Callable[..., tuple[int, str, str]]
NOW = datetime(2027, 6, 1, 6, tzinfo=UTC)


def ten_weeks(inst: Instance, cli: Cli) -> Path:
    """cost-report at ~565 words for 8 weekly runs, then 210 for two: drift on the last."""
    _fleet(inst)
    for n in range(8):
        assert _week(inst, cli, n, 560 + 5 * (n % 3))[0] == 0
    _week(inst, cli, 8, 210)
    _week(inst, cli, 9, 212)
    return inst.root / "site"


@pytest.fixture
def built(instance: Instance, cli: Cli) -> Path:
    return ten_weeks(instance, cli)


def test_golden_skill_page(built: Path) -> None:
    assert_golden("site/skill-cost-report.html", (built / "skills/cost-report.html").read_text())


def test_skill_page_shows_strip_charts_outputs_and_spec(built: Path) -> None:
    html = (built / "skills/cost-report.html").read_text()
    assert html.count('class="tick s-pass"') == 9 and html.count('class="tick s-warn"') == 1
    tick = 'href="../runs/skill-evals-2026-05-04.html" title="2026-05-04 · WARN · drift:words'
    assert f'{tick} · run: ok"' in html
    assert "Passing, last 30 days: <strong>100% of 5 runs</strong>" in html
    assert html.count('<figure class="chart metric"') == 2  # words and the dollars check
    # regression: a marker's hover text once replaced the chart's caption
    assert re.findall(r"<figcaption>([^<]*)</figcaption>", html) == ["Words", "dollars"]
    assert 'class="step worse"' in html and 'class="band"' in html
    assert "words 212 vs 565 (median of 8 runs), since 2026-04-27" in html
    assert html.count('class="dot flag"') == 1  # the run the drift was flagged on
    assert '<a href="../../articles/cost-report-2026-05-04.md">' in html
    assert "&#34;output_pattern&#34;: &#34;articles/cost-report-*.md&#34;" in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    # the stylesheet once beside the pages (what every page inlined), no script
    assert '<link rel="stylesheet" href="../style.css">' in html and "<style>" not in html
    assert "<script" not in html
    style = (built / "style.css").read_text()
    assert ".strip" in style and style in (built / "index.html").read_text()


def test_every_grid_row_links_its_skill_page(built: Path) -> None:
    index = (built / "index.html").read_text()
    for skill in ("cost-report", "steady"):
        assert index.count(f'<a href="skills/{skill}.html">{skill}</a>') == 2  # grid + list
        assert (built / f"skills/{skill}.html").is_file()


def test_badges_follow_the_shields_endpoint_schema(built: Path) -> None:
    endpoint = json.loads((built / "badges/cost-report.json").read_text())
    assert endpoint == {
        "schemaVersion": 1,
        "label": "cost-report",
        "message": "WARN",
        "color": "yellow",
    }
    fleet = json.loads((built / "badges/fleet.json").read_text())
    assert fleet == {
        "schemaVersion": 1,
        "label": "skill evals",
        "message": "2/2 passing",
        "color": "brightgreen",
    }
    svg = (built / "badges/cost-report.svg").read_text()
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert "<title>cost-report: WARN</title>" in svg and 'fill="#dfb317"' in svg


def test_a_failing_skill_turns_its_badge_and_the_fleet_red(instance: Instance, cli: Cli) -> None:
    ten_weeks(instance, cli)
    _week(instance, cli, 10, 20)  # under min_words: FAIL
    built = instance.root / "site"
    assert json.loads((built / "badges/cost-report.json").read_text())["color"] == "red"
    fleet = json.loads((built / "badges/fleet.json").read_text())
    assert fleet["message"] == "1/2 passing" and fleet["color"] == "red"


def test_a_skill_name_that_cannot_be_a_file_gets_no_page(tmp_path: Path) -> None:
    root = tmp_path
    day = date(2026, 6, 1)
    samples = [("../escape", Sample(day, Status.PASS)), ("ok", Sample(day, Status.PASS))]
    (root / "articles").mkdir()
    (root / "articles/skill-evals-metrics-2026-06-01.tsv").write_text(render_tsv(samples))
    outcome = site.build_site(root, root / "site", now=NOW)
    assert outcome.skills is not None
    assert "skills/ok.html" in outcome.skills.written
    assert sorted(p.name for p in (root / "site/skills").iterdir()) == ["ok.html"]
    assert not (root / "escape.html").exists() and not (root / "site/escape.html").exists()


def year_of_runs(root: Path, skills: int = 3) -> None:
    """365 daily metrics files with words, quality and two numeric checks per skill."""
    (root / "articles").mkdir(parents=True)
    start = date(2026, 6, 1)
    for i in range(365):
        day = start + timedelta(days=i)
        rows = [
            (
                f"skill-{k}",
                Sample(
                    day,
                    Status.PASS if i % 17 else Status.FAIL,
                    words=500 + (i * 7919 + k) % 60,
                    bytes=3000 + i,
                    age_days=0.25,
                    quality=4.0 + (i % 5) / 10,
                    output=f"articles/skill-{k}-{day}.md",
                    sha256=f"{i:064x}",
                    cause="" if i % 17 else "word_count",
                    numeric=(("dollar amount", 2000.0 + i % 30), ("items", 12.0 + i % 3)),
                ),
            )
            for k in range(skills)
        ]
        (root / f"articles/skill-evals-metrics-{day}.tsv").write_text(render_tsv(rows))


def test_a_year_of_daily_runs_keeps_a_skill_page_under_200_kb(tmp_path: Path) -> None:
    year_of_runs(tmp_path)
    site.build_site(tmp_path, tmp_path / "site", now=NOW)
    page = tmp_path / "site/skills/skill-0.html"
    html = page.read_text()
    assert html.count('<a class="tick ') == 365  # (the strip's key: three spans)
    assert html.count('<figure class="chart metric"') == 4  # words, quality, 2 numeric checks
    assert page.stat().st_size < 200_000, page.stat().st_size


def test_the_backfill_from_articles_is_read_from_the_cache_the_second_time(
    tmp_path: Path,
) -> None:
    write_history(tmp_path)
    site.build_site(tmp_path, tmp_path / "site", now=SITE_NOW)
    cache = tmp_path / ".aeon-evals/cache/metrics.json"
    envelope = json.loads(cache.read_text())
    entries = envelope["data"]
    key = "articles/skill-evals-2026-08-16.md"
    assert sorted(entries) == [
        "articles/skill-evals-2026-08-02.md",
        "articles/skill-evals-2026-08-09.md",
        key,
    ]
    # an article whose stamp still matches is taken from the cache, not parsed again: prove it
    # by changing what the cache says it holds
    row = entries[key]["rows"][0]
    row[2] = 123456
    cache.write_text(json.dumps({**envelope, "data": entries}))
    (tmp_path / ".aeon-evals/cache/history.bin").unlink()  # the history is read again
    site.build_site(tmp_path, tmp_path / "site", now=SITE_NOW)
    assert "123,456" in (tmp_path / f"site/skills/{row[0]}.html").read_text()


def test_the_run_and_site_count_the_skill_pages_and_badges_they_write(
    instance: Instance, cli: Cli
) -> None:
    """Bug: the ledger said `site/index.html (4 written)` while the run also wrote every skill
    page and badge (2 skills: 2 pages, 2 × 2 badge files, the fleet's 2)."""
    _fleet(instance)
    code, out, err = _week(instance, cli, 0, 300)
    assert code == 0, err
    site_line = next(line for line in out.splitlines() if "site/index.html" in line)
    assert site_line.endswith(", 8 skill pages and badges (0 unchanged))"), site_line
    code, out, _err = cli("site", "--root", str(instance.root), "--now", "2026-03-02T09:00:00Z")
    assert code == 0
    assert "pages (" in out and ", 0 skill pages and badges (8 unchanged) to " in out, out


def test_the_fleet_badge_counts_what_the_verdict_counts_not_report_only_rows(
    instance: Instance, cli: Cli
) -> None:
    """Bug: an inferred contract in report mode (its own article section, never in the verdict)
    that failed turned the fleet badge red: `1/2 passing` beside an OK verdict."""
    inst = _contract_fleet(instance)
    code, _out, err = cli("run", "--root", str(inst.root), "--now", "2026-05-31T06:00:00Z")
    assert code == 0, err
    article = (inst.root / "articles/skill-evals-2026-05-31.md").read_text()
    assert "**Verdict:** SKILL_EVALS_OK" in article and "| brief | FAIL |" in article
    fleet = json.loads((inst.root / "site/badges/fleet.json").read_text())
    assert (fleet["message"], fleet["color"]) == ("1/1 passing", "brightgreen")
    assert json.loads((inst.root / "site/badges/brief.json").read_text())["message"] == "FAIL"
    # `aeon-evals site` counts the same rows (from the article, which the metrics file cannot
    # tell apart)
    (inst.root / "site/badges/fleet.json").unlink()
    assert cli("site", "--root", str(inst.root), "--now", "2026-05-31T07:00:00Z")[0] == 0
    assert json.loads((inst.root / "site/badges/fleet.json").read_text()) == fleet


def _stamps(root: Path, out: Path) -> dict[str, str]:
    from aeon_evals.articles.store import ArticleStore

    return ArticleStore(root).pages(out)


def test_a_page_is_remembered_as_written_and_a_page_edited_since_is_rewritten(
    instance: Instance, cli: Cli
) -> None:
    built = ten_weeks(instance, cli)
    page = built / "skills/cost-report.html"
    stamps = _stamps(instance.root, built)
    digest, size, mtime = stamps["skills/cost-report.html"].split(":")
    raw = page.read_bytes()
    assert (hashlib.sha256(raw).hexdigest(), int(size)) == (digest, len(raw))
    assert int(mtime) == page.stat().st_mtime_ns
    assert {"badges/fleet.svg", "badges/steady.json", "skills/steady.html"} <= set(stamps)
    # unchanged: not written again (same inode); an edit by hand (same size) is found and undone
    inode = page.stat().st_ino
    code, _out, _ = cli("site", "--root", str(instance.root), "--now", "2026-05-04T09:00:00Z")
    assert code == 0 and page.stat().st_ino == inode
    page.write_bytes(raw.replace(b"<h1>", b"<h2>", 1))
    cli("site", "--root", str(instance.root), "--now", "2026-05-04T09:00:00Z")
    assert page.read_bytes() == raw and page.stat().st_ino != inode
    assert not list(built.rglob("*.tmp"))


def test_skill_pages_written_by_a_forked_child_are_those_written_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    year_of_runs(tmp_path / "a")
    year_of_runs(tmp_path / "b")
    in_process = site.build_site(tmp_path / "a", tmp_path / "a/site", now=NOW)
    monkeypatch.setattr(skill_site, "FORK_MIN_SKILLS", 0)
    forked = site.build_site(tmp_path / "b", tmp_path / "b/site", now=NOW)
    assert in_process.skills is not None and forked.skills is not None
    assert forked.skills.written == in_process.skills.written and forked.warnings == ()
    for rel in in_process.skills.written:
        assert (tmp_path / "b/site" / rel).read_bytes() == (tmp_path / "a/site" / rel).read_bytes()
    assert _stamps(tmp_path / "b", tmp_path / "b/site").keys() == (
        _stamps(tmp_path / "a", tmp_path / "a/site").keys()
    )


def test_an_error_in_the_forked_child_is_raised_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    year_of_runs(tmp_path)
    (tmp_path / "site").mkdir()
    (tmp_path / "site/badges").write_text("a file where the badges folder goes\n")
    monkeypatch.setattr(skill_site, "FORK_MIN_SKILLS", 0)
    with pytest.raises(OSError) as caught:
        site.build_site(tmp_path, tmp_path / "site", now=NOW)
    assert "badges" in str(caught.value)
    assert (tmp_path / "site/skills/skill-0.html").is_file()  # written by the child before


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(JSON)
def test_a_spec_is_shown_as_json_dumps_indents_it(value: object) -> None:
    assert pretty_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


@given(st.text())
def test_the_pages_fast_escape_is_markupsafes(text: str) -> None:
    assert escaped(text) == str(escape(text))


def _every_shape(inst: Instance, cli: Cli) -> Path:
    """ten_weeks plus skills of every shape the page has (with and without charts, outputs,
    issues, spec, SKILL.md) and text to escape in causes, paths, titles and specs."""
    ten_weeks(inst, cli)
    day = date(2026, 5, 11)
    rows = [
        ("bare", Sample(day, None)),
        ("md-only", Sample(day, Status.FAIL, cause='numeric_missing:a<b & "c"')),
        (
            "odd-output",
            Sample(
                day,
                Status.WARN,
                words=12,
                bytes=99,
                output="articles/a&b <c>.md",
                sha256="ab" * 32,
                cause="drift:words",
            ),
        ),
    ]
    inst.write(f"articles/skill-evals-metrics-{day}.tsv", render_tsv(rows))
    inst.write("skills/md-only/SKILL.md", "---\nname: md-only\n---\nWrites nothing.\n")
    evals = json.loads((inst.root / "skills/skill-evals/evals.json").read_text())
    evals["skills"]["odd-output"] = {"output_pattern": "articles/a&b*.md", "note": "<'x'>"}
    inst.write("skills/skill-evals/evals.json", json.dumps(evals))
    inst.write(
        "memory/issues/ISS-900.md",
        "---\nid: ISS-900\ntitle: 'md-only: <b>a & b</b>'\nstatus: open\nseverity: high\n"
        "category: prompt-bug\ndetected_by: skill-evals\ndetected_at: '2026-05-01T06:00:00Z'\n"
        "resolved_at: null\naffected_skills:\n- md-only\n- bare\nroot_cause: x\n---\n\nBody.\n",
    )
    return inst.root


def test_every_page_shape_escapes_what_the_instance_wrote(instance: Instance, cli: Cli) -> None:
    """Pages with and without charts, outputs, issues and a spec: every field the instance wrote
    (an output's name, a spec's note, an issue's title) is escaped once."""
    root = _every_shape(instance, cli)
    built = site.build_site(root, root / "site", now=datetime(2026, 5, 12, 6, tzinfo=UTC))
    assert built.skills is not None
    pages = [rel for rel in built.skills.written if rel.startswith("skills/")]
    assert sorted(pages) == [
        f"skills/{s}.html" for s in ("bare", "cost-report", "md-only", "odd-output", "steady")
    ]
    odd = (root / "site/skills/odd-output.html").read_text()
    assert "articles/a&amp;b &lt;c&gt;.md" in odd and "&lt;&#39;x&#39;&gt;" in odd
    md_only = (root / "site/skills/md-only.html").read_text()
    title = "md-only: &lt;b&gt;a &amp; b&lt;/b&gt;"
    assert f'<td data-label="Title" class="wrap">{title}</td>' in md_only
    # the lead names the issue too, escaped once, with the cause as the metrics file wrote it
    assert "ISS-900</a> md-only: &lt;b&gt;a &amp; b&lt;/b&gt;" in md_only
    assert "numeric_missing:a&lt;b &amp; &#34;c&#34;" in md_only


def test_an_override_of_the_skill_page_template_is_still_used(instance: Instance, cli: Cli) -> None:
    root = ten_weeks(instance, cli).parent
    packaged = (Path(site.__file__).parents[2] / "templates/skill.html").read_text()
    mine = packaged.replace("<h1>{{ page.skill }}</h1>", "<h1>{{ page.skill|upper }}!</h1>")
    instance.write(".aeon-evals/templates/skill.html", mine)
    assert cli("site", "--root", str(root), "--now", "2026-05-04T09:00:00Z")[0] == 0
    assert "<h1>COST-REPORT!</h1>" in (root / "site/skills/cost-report.html").read_text()


def test_charts_drawn_with_the_builds_shared_memo_are_those_drawn_alone(tmp_path: Path) -> None:
    """ChartMemo reuses the places of the last days met for a span: skills on the same first
    and last day and as many runs but other days between must not get each other's places."""
    from aeon_evals.articles.store import ArticleStore
    from aeon_evals.site.skill_charts import ChartMemo, charts_for

    (tmp_path / "articles").mkdir()
    start = date(2026, 6, 1)
    ran = {"a": (0, 1, 3), "b": (0, 2, 3), "c": (0, 1, 3), "d": (0, 3)}
    for offset in range(4):
        day = start + timedelta(days=offset)
        rows = [
            (skill, Sample(day, Status.PASS, words=100 + 7 * offset + len(skill)))
            for skill, days in ran.items()
            if offset in days
        ]
        (tmp_path / f"articles/skill-evals-metrics-{day}.tsv").write_text(render_tsv(rows))
    history = skill_site.site_history(tmp_path, ArticleStore(tmp_path))
    shared = ChartMemo()
    for skill in ("a", "b", "c", "d", "b"):
        assert charts_for(skill, history, shared) == charts_for(skill, history, ChartMemo())
    assert charts_for("a", history, shared)[0].line != charts_for("b", history, shared)[0].line


_DAY0 = date(2027, 1, 1)


@given(
    st.lists(st.tuples(st.integers(0, 120), st.sampled_from([None, *Status])), max_size=60).map(
        lambda runs: sorted(runs, key=lambda run: run[0])  # oldest first, as a history is
    ),
    st.integers(0, 130),
    st.sampled_from([1, 30, 90]),
)
def test_pass_rate_counts_the_judged_runs_of_the_window(
    runs: list[tuple[int, Status | None]], today_at: int, window: int
) -> None:
    """The share of passing runs among those with a status in (today - window, today]."""
    from aeon_evals.model import FAILING
    from aeon_evals.site.skill_pages import pass_rate

    days = [_DAY0 + timedelta(days=at) for at, _ in runs]
    statuses = [status for _, status in runs]
    today = _DAY0 + timedelta(days=today_at)
    judged = [
        s
        for d, s in zip(days, statuses, strict=True)
        if today - timedelta(days=window) < d <= today and s is not None
    ]
    said = pass_rate(days, statuses, today, window)
    if not judged:
        assert said == "no runs"
        return
    passing = sum(s not in FAILING for s in judged)
    plural = "s" if len(judged) != 1 else ""
    assert said == f"{100 * passing / len(judged):.0f}% of {len(judged)} run{plural}"


def test_pass_rate_window_bounds() -> None:
    """A run on the window's first excluded day, one after today and one not evaluated are not
    counted; two runs of one day both are."""
    from aeon_evals.site.skill_pages import pass_rate

    today = date(2027, 3, 31)
    days = [date(2027, 3, 1), date(2027, 3, 2), date(2027, 3, 20), date(2027, 3, 20), today]
    days.append(date(2027, 4, 1))
    statuses = [Status.FAIL, Status.PASS, Status.FAIL, None, Status.WARN, Status.FAIL]
    assert pass_rate(days, statuses, today, 30) == "67% of 3 runs"
    assert pass_rate(days, statuses, today, 1) == "100% of 1 run"
    assert pass_rate(days[:1], statuses[:1], today, 30) == "no runs"

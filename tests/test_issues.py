"""Issue keeping (SPEC §6) on copies of every real memory/issues layout, plus the edge cases."""

from __future__ import annotations

import os
import re
import shutil
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml
from realdata import realdata

from aeon_evals import issues
from aeon_evals.issues import IssueRequest, keep_issues, read_issues
from aeon_evals.issues import index as index_md
from aeon_evals.model import DiffLabel, Status

NOW = datetime(2026, 5, 31, 6, 0, tzinfo=UTC)
TODAY = date(2026, 5, 31)
ARTICLE = "articles/skill-evals-2026-05-31.md"


# --- helpers ---------------------------------------------------------------------------------


def request(
    skill: str = "brand-new-skill",
    *,
    label: DiffLabel = DiffLabel.NEW_FAIL,
    status: Status = Status.FAIL,
    root_cause: str = "word_count",
    detail: str = "412 words, minimum 500",
    output_path: str | None = "articles/brand-new-skill-2026-05-30.md",
    flaky: bool = False,
) -> IssueRequest:
    return IssueRequest(skill, label, status, root_cause, detail, output_path, flaky)


def keep(
    root: Path, to_file: list[IssueRequest], to_close: list[str], **kw: object
) -> issues.IssueOutcome:
    return keep_issues(root, to_file, to_close, now=NOW, today=TODAY, article_path=ARTICLE, **kw)  # type: ignore[arg-type]


def snapshot(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = "link:" + os.readlink(p)
        elif p.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = p.read_bytes()
    return out


def write_issue(root: Path, name: str, text: str) -> Path:
    path = root / "memory" / "issues" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def issue_text(
    iid: str,
    *,
    title: str,
    skills: str,
    detected_by: str = "skill-evals",
    status: str = "open",
) -> str:
    return (
        f"---\nid: {iid}\ntitle: {title!r}\nstatus: {status}\nseverity: high\ncategory: "
        "prompt-bug\n"
        f"detected_by: {detected_by}\ndetected_at: 2026-05-01\nresolved_at:\naffected_skills: "
        f"{skills}\n"
        f"root_cause: 'missing_pattern:x'\n---\n\nBody of {iid}.\n"
    )


def frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    head, _ = text[4:].split("\n---\n", 1)
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


def table(text: str, section: str) -> tuple[list[str], list[str]]:
    """(header cells, row lines) of the first table under `## <section>`."""
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if re.match(rf"##\s+{section}\b", ln, re.I))
    i = next(j for j in range(start + 1, len(lines)) if lines[j].startswith("|"))
    header = index_md.cells(lines[i])
    rows = []
    for ln in lines[i + 2 :]:
        if not ln.startswith("|"):
            break
        rows.append(ln)
    return header, rows


# --- real data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    repo: str
    version: str  # of INDEX.md
    next_id: str
    linked: bool

    @property
    def key(self) -> str:
        return f"{self.repo}@{self.version}"


VARIANTS = [
    Variant("aaronjmars__aeon-nur", "2026-06-19_d0e63de3", "ISS-002", True),
    Variant("aaronjmars__aeon-nur", "2026-07-10_3fa9260a", "ISS-003", True),
    Variant("aaronjmars__aeon-nur", "2026-07-11_88371f86_okf-frontmatter", "ISS-003", True),
    Variant("aaronjmars__miroshark-aeon", "2026-06-11_1252375c", "ISS-001", True),
    Variant("aaronjmars__miroshark-aeon", "2026-07-10_5a009f0f", "ISS-001", True),
    Variant("aeonfun__aeon", "2026-04-26_533505db", "ISS-012", True),
    Variant("aeonfun__aeon", "2026-05-03_c31d240f", "ISS-020", True),
    Variant("anajuliabit__aeon", "2026-06-02_HEAD", "ISS-018", False),
    Variant("anajuliabit__aeon", "2026-07-05_4886d3c", "ISS-027", False),
]


def copy_snapshot(repo: str, version: str, dest: Path) -> Path:
    """INDEX.md@version plus, per ISS id, its newest real version dated on or before the INDEX."""
    src = realdata() / repo / "memory" / "issues"
    target = dest / "memory" / "issues"
    target.mkdir(parents=True)
    shutil.copyfile(src / f"INDEX.md@{version}", target / "INDEX.md")
    newest: dict[str, tuple[str, Path]] = {}
    for f in src.glob("ISS-*.md@*"):
        name, ver = f.name.split("@", 1)
        if ver[:10] <= version[:10] and (name not in newest or ver > newest[name][0]):
            newest[name] = (ver, f)
    for name, (_, f) in newest.items():
        shutil.copyfile(f, target / name)
    return dest


def test_every_real_index_variant_is_covered() -> None:
    found = {
        f"{p.parents[2].name}@{p.name.split('@', 1)[1]}"
        for p in realdata().glob("*/memory/issues/INDEX.md@*")
    }
    assert found == {v.key for v in VARIANTS}


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.key)
def test_filing_on_real_layouts(variant: Variant, tmp_path: Path) -> None:
    root = copy_snapshot(variant.repo, variant.version, tmp_path)
    index = root / "memory" / "issues" / "INDEX.md"
    before = snapshot(root)
    original = index.read_text(encoding="utf-8")

    outcome = keep(root, [request()], [])

    assert [r.id for r in outcome.filed] == [variant.next_id]
    assert outcome.warnings == ()
    after = snapshot(root)
    new_name = f"memory/issues/{variant.next_id}.md"
    assert set(after) - set(before) == {new_name}
    assert {k: v for k, v in after.items() if k not in (new_name, "memory/issues/INDEX.md")} == {
        k: v for k, v in before.items() if k != "memory/issues/INDEX.md"
    }

    text = index.read_text(encoding="utf-8")
    header, rows = table(text, "Open")
    new_rows = [r for r in rows if variant.next_id in r.split("|")[1]]
    assert len(new_rows) == 1
    assert rows[-1] == new_rows[0], "the new row goes last in the Open table"
    assert text.replace(new_rows[0] + "\n", "", 1) == original, "everything else byte-identical"
    cells = dict(zip(header, index_md.cells(new_rows[0]), strict=True))
    expected_id = (
        f"[{variant.next_id}]({variant.next_id}.md)" if variant.linked else variant.next_id
    )
    expected = {
        "ID": expected_id,
        "Title": "brand-new-skill: word_count",
        "Severity": "high",
        "Category": "quality-regression",
        "Detected": "2026-05-31",
        "Detected by": "skill-evals",
        "Affected Skills": "brand-new-skill",
    }
    assert cells == {k: expected[k] for k in header}


def test_new_issue_file_layout(tmp_path: Path) -> None:
    root = copy_snapshot("aaronjmars__miroshark-aeon", "2026-07-10_5a009f0f", tmp_path)
    keep(root, [request(output_path="articles/x.md")], [])
    text = (root / "memory/issues/ISS-001.md").read_text(encoding="utf-8")
    assert text == (
        "---\n"
        "id: ISS-001\n"
        "title: 'brand-new-skill: word_count'\n"
        "status: open\n"
        "severity: high\n"
        "category: quality-regression\n"
        "detected_by: skill-evals\n"
        "detected_at: '2026-05-31T06:00:00Z'\n"
        "resolved_at: null\n"
        "affected_skills: [brand-new-skill]\n"
        "root_cause: word_count\n"
        "---\n"
        "\n"
        "`brand-new-skill` started failing its eval (FAIL) in the skill-evals run of 2026-05-31, "
        "on `articles/x.md`. Expected vs actual: 412 words, minimum 500. "
        "Article: articles/skill-evals-2026-05-31.md\n"
    )


def test_closing_reproduces_the_real_resolution(tmp_path: Path) -> None:
    """aeonfun resolved ISS-004 on 2026-05-03: our edit of the 04-26 file gives the same bytes."""
    root = copy_snapshot("aeonfun__aeon", "2026-04-26_533505db", tmp_path)
    when = datetime(2026, 5, 3, tzinfo=UTC)
    before = snapshot(root)
    outcome = keep_issues(
        root, [], ["push-recap"], now=when, today=date(2026, 5, 3), article_path=ARTICLE
    )

    assert [(r.id, r.skill) for r in outcome.closed] == [("ISS-004", "push-recap")]
    real = realdata() / "aeonfun__aeon/memory/issues/ISS-004.md@2026-05-03_c31d240f"
    assert (root / "memory/issues/ISS-004.md").read_bytes() == real.read_bytes()

    text = (root / "memory/issues/INDEX.md").read_text(encoding="utf-8")
    _, open_rows = table(text, "Open")
    _, resolved_rows = table(text, "Resolved")
    assert not any("ISS-004" in r for r in open_rows)
    assert resolved_rows == [
        "| [ISS-004](ISS-004.md) | push-recap: no_file_match — articles/push-recap-*.md absent | "
        "high | — | 2026-05-03 |"
    ]
    old = before["memory/issues/INDEX.md"]
    assert isinstance(old, bytes)
    moved = next(ln for ln in old.decode().split("\n") if "[ISS-004]" in ln)
    assert text.replace(resolved_rows[0] + "\n", "") == old.decode().replace(moved + "\n", "")
    after = snapshot(root)
    assert {k for k in after if after[k] != before.get(k)} == {
        "memory/issues/ISS-004.md",
        "memory/issues/INDEX.md",
    }


def test_closing_leaves_other_detectors_alone(tmp_path: Path) -> None:
    root = copy_snapshot("aeonfun__aeon", "2026-05-03_c31d240f", tmp_path)
    before = snapshot(root)
    # heartbeat, rss-digest, vuln-scanner, daily-routine are also in other detectors' issues.
    outcome = keep(
        root, [], ["heartbeat", "rss-digest", "vuln-scanner", "daily-routine", "push-recap"]
    )

    assert sorted(r.id for r in outcome.closed) == ["ISS-008", "ISS-018"]
    after = snapshot(root)
    for name in (
        "ISS-001.md",
        "ISS-013.md",
        "ISS-017.md",
        "ISS-004.md",
        "ISS-006.md",
        "ISS-019.md",
    ):
        assert after[f"memory/issues/{name}"] == before[f"memory/issues/{name}"], name

    for name in ("ISS-008.md", "ISS-018.md"):
        old = before[f"memory/issues/{name}"]
        new = after[f"memory/issues/{name}"]
        assert isinstance(old, bytes) and isinstance(new, bytes)
        old_lines, new_lines = old.decode().split("\n"), new.decode().split("\n")
        assert len(old_lines) == len(new_lines)
        diff = {(a, b) for a, b in zip(old_lines, new_lines, strict=True) if a != b}
        assert diff == {
            ("status: open", "status: resolved"),
            ("resolved_at: null", 'resolved_at: "2026-05-31T06:00:00Z"'),
        }

    text = (root / "memory/issues/INDEX.md").read_text(encoding="utf-8")
    _, open_rows = table(text, "Open")
    _, resolved_rows = table(text, "Resolved")
    assert not any(re.search(r"ISS-0(08|18)\b", r) for r in open_rows)
    assert [r.split("|")[1].strip() for r in resolved_rows] == [
        "[ISS-004](ISS-004.md)",
        "[ISS-006](ISS-006.md)",
        "[ISS-018](ISS-018.md)",
        "[ISS-008](ISS-008.md)",
    ]
    # ISS-008 was not listed in this INDEX version: its Resolved row is built from the file.
    assert resolved_rows[-1] == (
        "| [ISS-008](ISS-008.md) | rss-digest: no_file_match — articles/rss-digest-*.md absent | "
        "high | — | 2026-05-31 |"
    )
    assert resolved_rows[-2] == (
        "| [ISS-018](ISS-018.md) | heartbeat: forbidden_pattern:${var} in memory/logs/*.md | high "
        "| — | 2026-05-31 |"
    )
    reread, _ = read_issues(root / "memory/issues", root=root)
    states = {i.id: i.status for i in reread}
    assert (
        states["ISS-018"] == "resolved"
        and states["ISS-013"] == "open"
        and states["ISS-017"] == "open"
    )


def test_closing_a_row_with_an_unescaped_pipe_rebuilds_it(tmp_path: Path) -> None:
    """aeonfun's ISS-019 row has `Aeon|aeon` unescaped: the moved row is rebuilt and escaped."""
    root = copy_snapshot("aeonfun__aeon", "2026-05-03_c31d240f", tmp_path)
    keep(root, [], ["repo-article"])
    _, resolved_rows = table(
        (root / "memory/issues/INDEX.md").read_text(encoding="utf-8"), "Resolved"
    )
    assert resolved_rows[-1] == (
        "| [ISS-019](ISS-019.md) | repo-article: missing_pattern:Aeon\\|aeon in "
        "articles/repo-article-2026-05-02.md | high | — | 2026-05-31 |"
    )


def test_invalid_yaml_real_files_are_read(tmp_path: Path) -> None:
    root = copy_snapshot("anajuliabit__aeon", "2026-07-05_4886d3c", tmp_path)
    found, warnings = read_issues(root / "memory/issues", root=root)
    assert warnings == []
    by_id = {i.id: i for i in found}
    assert [i.id for i in found] == ["ISS-023", "ISS-025", "ISS-026"]
    a = by_id["ISS-023"]
    assert not a.valid_yaml
    assert a.title == "token-alert: missing_pattern — pattern not found in live-day log"
    assert a.detected_at == "2026-06-21T06:00:00Z"
    assert a.affected_skills == ("token-alert",)
    assert a.root_cause == "missing_pattern:### token-alert|TOKEN_ALERT"
    assert a.resolved_at is None and a.is_open and a.detected_by == "skill-evals"
    b = by_id["ISS-026"]
    assert not b.valid_yaml
    assert (
        b.title
        == "heartbeat: missing_pattern (timing — skill-evals dispatched before 08:00 UTC morning "
        "tick)"
    )
    assert b.fix_pr is None
    assert by_id["ISS-025"].valid_yaml and by_id["ISS-025"].detected_by == "skill-health"


def test_invalid_yaml_real_files_can_be_closed(tmp_path: Path) -> None:
    root = copy_snapshot("anajuliabit__aeon", "2026-07-05_4886d3c", tmp_path)
    before = snapshot(root)
    outcome = keep(root, [], ["token-alert", "heartbeat", "cost-report"])

    assert sorted(r.id for r in outcome.closed) == ["ISS-023", "ISS-026"]
    after = snapshot(root)
    assert after["memory/issues/ISS-025.md"] == before["memory/issues/ISS-025.md"]  # skill-health's
    # Both already sit in this INDEX's Resolved table: nothing is duplicated, nothing moves.
    assert after["memory/issues/INDEX.md"] == before["memory/issues/INDEX.md"]
    old = before["memory/issues/ISS-023.md"]
    assert isinstance(old, bytes)
    expected = (
        old.decode()
        .replace("status: open\n", "status: resolved\n")
        .replace(
            "detected_at: 2026-06-21T06:00:00Z\n",
            'detected_at: 2026-06-21T06:00:00Z\nresolved_at: "2026-05-31T06:00:00Z"\n',
        )
    )
    assert after["memory/issues/ISS-023.md"] == expected.encode()
    found, _ = read_issues(root / "memory/issues", root=root)
    closed = {i.id: i for i in found}
    assert (
        closed["ISS-023"].status == "resolved"
        and closed["ISS-023"].resolved_at == "2026-05-31T06:00:00Z"
    )
    assert closed["ISS-026"].status == "resolved"
    assert closed["ISS-023"].title.startswith("token-alert: missing_pattern")


def test_a_broad_issue_of_another_detector_is_linked_not_used(tmp_path: Path) -> None:
    """Issue #15 point 2 (this test asserted the opposite before): an open issue of another
    detector naming many skills no longer absorbs a new failure; only this tool's own issue for
    the skill, or an issue about that one skill, covers it."""
    root = copy_snapshot("aeonfun__aeon", "2026-05-03_c31d240f", tmp_path)
    before = snapshot(root)
    outcome = keep(
        root, [request("repo-pulse"), request("heartbeat"), request("daily-routine")], []
    )
    # heartbeat is in skill-health's ISS-013 (53 skills) and heartbeat's ISS-017 (a cron gap
    # across 25 skills), and has this tool's own ISS-018; daily-routine is only in ISS-017.
    assert outcome.existing == {"heartbeat": "ISS-018", "repo-pulse": "ISS-003"}
    assert [(r.id, r.skill) for r in outcome.filed] == [("ISS-020", "daily-routine")]
    assert outcome.see_also == {
        "daily-routine": ("ISS-017",),
        "heartbeat": ("ISS-013", "ISS-017"),
        "repo-pulse": ("ISS-013",),
    }
    assert outcome.open_by_skill["daily-routine"] == "ISS-020"
    assert outcome.open_by_skill["heartbeat"] == "ISS-018"
    text = (root / "memory/issues/ISS-020.md").read_text(encoding="utf-8")
    assert "See also ISS-017 (other open issues naming this skill)." in text
    after = snapshot(root)
    assert {k for k in after if after.get(k) != before.get(k)} == {
        "memory/issues/ISS-020.md",
        "memory/issues/INDEX.md",
    }


def test_a_single_skill_issue_of_another_detector_covers_it(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(
        root, "ISS-001.md", issue_text("ISS-001", title="x", skills="[a]", detected_by="heartbeat")
    )
    write_issue(
        root,
        "ISS-002.md",
        issue_text("ISS-002", title="a and b broke", skills="[b]", detected_by="heartbeat"),
    )
    write_issue(root, "ISS-003.md", issue_text("ISS-003", title="x", skills="[c, d]"))
    outcome = keep(root, [request("a"), request("b"), request("c")], [])
    assert outcome.existing == {"a": "ISS-001", "b": "ISS-002", "c": "ISS-003"}
    assert outcome.filed == ()
    # ISS-002 names a in its title but is about b: linked, not used.
    assert outcome.see_also == {"a": ("ISS-002",)}


# --- numbering -------------------------------------------------------------------------------


EMPTY_INDEX = """# Issues

## Open

| ID | Title | Severity | Category | Detected | Affected Skills |
|----|-------|----------|----------|----------|-----------------|

## Resolved

| ID | Title | Severity | Fix PR | Resolved |
|----|-------|----------|--------|----------|
"""


def make_root(tmp_path: Path, index: str | None = EMPTY_INDEX) -> Path:
    (tmp_path / "memory" / "issues").mkdir(parents=True)
    if index is not None:
        (tmp_path / "memory/issues/INDEX.md").write_text(index, encoding="utf-8")
    return tmp_path


def test_gap_file_not_in_index_counts(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(
        root,
        "ISS-030.md",
        issue_text("ISS-030", title="x", skills="[other]", detected_by="heartbeat"),
    )
    outcome = keep(root, [request()], [])
    assert [r.id for r in outcome.filed] == ["ISS-031"]


def test_ids_only_in_index_count(tmp_path: Path) -> None:
    root = make_root(
        tmp_path,
        EMPTY_INDEX.replace(
            "|-----------------|\n",
            "|-----------------|\n| ISS-041 | gone | high | x | 2026-01-01 | y |\n",
        ),
    )
    write_issue(root, "ISS-007.md", issue_text("ISS-007", title="x", skills="[other]"))
    assert [r.id for r in keep(root, [request()], []).filed] == ["ISS-042"]


def test_numbers_past_999_grow_a_digit(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(root, "ISS-999.md", issue_text("ISS-999", title="x", skills="[other]"))
    outcome = keep(root, [request("a-skill"), request("b-skill")], [])
    assert [r.id for r in outcome.filed] == ["ISS-1000", "ISS-1001"]
    assert (root / "memory/issues/ISS-1000.md").is_file()


def test_only_iss_names_count(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    for name in ("ISS-050.md.bak", "ISS-51.txt", "iss-052.md", "ISS-053a.md", "notes-ISS-054.md"):
        write_issue(
            root, name, issue_text("ISS-099", title="brand-new-skill", skills="[brand-new-skill]")
        )
    found, warnings = read_issues(root / "memory/issues", root=root)
    assert found == [] and warnings == []
    assert [r.id for r in keep(root, [request()], []).filed] == ["ISS-001"]


def test_taken_names_are_skipped_never_overwritten(tmp_path: Path) -> None:
    """Names the listing does not count (a directory, a dangling link) fail create_exclusive."""
    root = make_root(tmp_path)
    d = root / "memory/issues"
    write_issue(root, "ISS-030.md", issue_text("ISS-030", title="x", skills="[other]"))
    (d / "ISS-031.md").mkdir()
    (d / "ISS-031.md" / "keep").write_text("mine")
    os.symlink("nowhere-ISS-032", d / "ISS-032.md")
    before = snapshot(root)

    outcome = keep(root, [request("a-skill"), request("b-skill")], [])

    assert [r.id for r in outcome.filed] == ["ISS-033", "ISS-034"]
    after = snapshot(root)
    for k, v in before.items():
        if k != "memory/issues/INDEX.md":
            assert after[k] == v, k
    assert not (d / "nowhere-ISS-032").exists()


def test_dry_run_skips_taken_names_too(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    (root / "memory/issues/ISS-001.md").mkdir()
    outcome = keep(root, [request()], [], dry_run=True)
    assert [r.id for r in outcome.filed] == ["ISS-002"]


def test_concurrent_filers_never_share_a_number(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    skills = [f"skill-{n}" for n in range(8)]
    barrier = threading.Barrier(len(skills))
    results: dict[str, str] = {}

    def run(skill: str) -> None:
        barrier.wait()
        outcome = keep(root, [request(skill)], [])
        results[skill] = outcome.filed[0].id

    threads = [threading.Thread(target=run, args=(s,)) for s in skills]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results.values())) == len(skills)
    found, _ = read_issues(root / "memory/issues", root=root)
    assert sorted(i.affected_skills[0] for i in found) == sorted(skills)
    for i in found:
        assert results[i.affected_skills[0]] == i.id


# --- INDEX.md layouts ------------------------------------------------------------------------


def test_missing_index_is_created_canonical(tmp_path: Path) -> None:
    root = make_root(tmp_path, index=None)
    keep(root, [request(root_cause="missing_pattern:a|b")], [])
    assert (root / "memory/issues/INDEX.md").read_text(encoding="utf-8") == (
        "# Issues\n\n## Open\n\n"
        "| ID | Title | Severity | Category | Detected | Affected Skills |\n"
        "|----|-------|----------|----------|----------|-----------------|\n"
        "| [ISS-001](ISS-001.md) | brand-new-skill: missing_pattern:a\\|b | high | prompt-bug | "
        "2026-05-31 "
        "| brand-new-skill |\n"
        "\n## Resolved\n\n"
        "| ID | Title | Severity | Fix PR | Resolved |\n"
        "|----|-------|----------|--------|----------|\n"
    )


def test_no_issues_dir_at_all(tmp_path: Path) -> None:
    outcome = keep(tmp_path, [request()], [])
    assert [r.id for r in outcome.filed] == ["ISS-001"]
    assert (tmp_path / "memory/issues/INDEX.md").is_file()


def test_nothing_to_do_writes_nothing(tmp_path: Path) -> None:
    root = make_root(tmp_path, index=None)
    outcome = keep(root, [], ["some-skill"])
    assert outcome == issues.IssueOutcome()
    assert not (root / "memory/issues/INDEX.md").exists()


def test_placeholders_are_replaced_by_tables(tmp_path: Path) -> None:
    index = (
        "---\ntype: Index\n---\n\n# Issues\n\nPreamble.\n\n## Open\n\n_None_\n\n## "
        "Resolved\n\n(none)\n\n## Notes\n\nkeep me\n"
    )
    root = make_root(tmp_path, index)
    write_issue(
        root, "ISS-003.md", issue_text("ISS-003", title="old-skill: x", skills="[old-skill]")
    )
    keep(root, [request()], ["old-skill"])
    assert (root / "memory/issues/INDEX.md").read_text(encoding="utf-8") == (
        "---\ntype: Index\n---\n\n# Issues\n\nPreamble.\n\n## Open\n\n"
        "| ID | Title | Severity | Category | Detected | Affected Skills |\n"
        "|----|-------|----------|----------|----------|-----------------|\n"
        "| [ISS-004](ISS-004.md) | brand-new-skill: word_count | high | quality-regression | "
        "2026-05-31 | brand-new-skill |\n"
        "\n## Resolved\n\n"
        "| ID | Title | Severity | Fix PR | Resolved |\n"
        "|----|-------|----------|--------|----------|\n"
        "| [ISS-003](ISS-003.md) | old-skill: x | high | — | 2026-05-31 |\n"
        "\n## Notes\n\nkeep me\n"
    )


def test_index_without_tables_gets_sections_at_the_end(tmp_path: Path) -> None:
    prose = "# Issues\n\nWe track problems here.\nSee also the wiki."  # no trailing newline
    root = make_root(tmp_path, prose)
    keep(root, [request()], [])
    text = (root / "memory/issues/INDEX.md").read_text(encoding="utf-8")
    assert text.startswith(prose + "\n\n## Open\n\n| ID | Title |")
    assert text.endswith(
        "## Resolved\n\n| ID | Title | Severity | Fix PR | Resolved "
        "|\n|----|-------|----------|--------|----------|\n"
    )


def test_missing_open_section_goes_before_resolved(tmp_path: Path) -> None:
    index = (
        "# Issues\n\n## Resolved\n\n| ID | Title | Severity | Fix PR | Resolved "
        "|\n|----|-------|----------|--------|----------|\n| ISS-001 | a | high | #1 | 2026-01-01 "
        "|\n"
    )
    root = make_root(tmp_path, index)
    keep(root, [request()], [])
    text = (root / "memory/issues/INDEX.md").read_text(encoding="utf-8")
    new_row = (
        "| ISS-002 | brand-new-skill: word_count | high | quality-regression | 2026-05-31 | "
        "brand-new-skill |\n"
    )
    assert text == index.replace(
        "## Resolved",
        "## Open\n\n| ID | Title | Severity | Category | Detected | Affected Skills |\n"
        "|----|-------|----------|----------|----------|-----------------|\n"
        + new_row
        + "\n## Resolved",
    )


def test_missing_resolved_section_is_added_after_open(tmp_path: Path) -> None:
    index = (
        "# Issues\n\n## Open\n\n| ID | Title | Status |\n|---|---|---|\n| ISS-001 | gone-skill "
        "broke | open |\n\n## Notes\n\nx\n"
    )
    root = make_root(tmp_path, index)
    write_issue(
        root, "ISS-001.md", issue_text("ISS-001", title="gone-skill broke", skills="[gone-skill]")
    )
    keep(root, [], ["gone-skill"])
    assert (root / "memory/issues/INDEX.md").read_text(encoding="utf-8") == (
        "# Issues\n\n## Open\n\n| ID | Title | Status |\n|---|---|---|\n"
        "\n## Resolved\n\n| ID | Title | Severity | Fix PR | Resolved |\n"
        "|----|-------|----------|--------|----------|\n"
        "| ISS-001 | gone-skill broke | high | — | 2026-05-31 |\n"
        "\n## Notes\n\nx\n"
    )


def test_columns_are_filled_by_name(tmp_path: Path) -> None:
    index = (
        "# Issues\n\n## Open\n\n| ID | Title | Status | Owner | Detected by | Detected "
        "|\n|--|--|--|--|--|--|\n"
        "\n## Resolved\n\n| ID | Title | Status | Detected | Resolved | Fix PR "
        "|\n|--|--|--|--|--|--|\n"
    )
    root = make_root(tmp_path, index)
    write_issue(
        root,
        "ISS-004.md",
        issue_text("ISS-004", title="a-skill | broke", skills="[a-skill]").replace(
            "---\n\n", "fix_pr: 12\n---\n\n"
        ),
    )
    keep(root, [request("b-skill", root_cause="x|y")], ["a-skill"])
    text = (root / "memory/issues/INDEX.md").read_text(encoding="utf-8")
    assert (
        "| [ISS-005](ISS-005.md) | b-skill: x\\|y | open | — | skill-evals | 2026-05-31 |\n" in text
    )
    assert (
        "| [ISS-004](ISS-004.md) | a-skill \\| broke | resolved | 2026-05-01 | 2026-05-31 | #12 |\n"
        in text
    )


def test_crlf_index_keeps_crlf(tmp_path: Path) -> None:
    root = make_root(tmp_path, EMPTY_INDEX.replace("\n", "\r\n"))
    keep(root, [request()], [])
    raw = (root / "memory/issues/INDEX.md").read_bytes()
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert b"| [ISS-001](ISS-001.md) | brand-new-skill" in raw


# --- closing ---------------------------------------------------------------------------------


def test_close_keeps_body_extra_keys_and_order(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    original = (
        "---\nid: ISS-002\ntitle: a-skill: broke: badly\nstatus: open\nescalated_at: 2026-05-02\n"
        "detected_by: skill-evals\ndetected_at: 2026-05-01\naffected_skills:\n  - a-skill\n  - "
        "b-skill\n"
        "related: ISS-001\nfix_pr: https://example.org/pr/3\n---\n\n# Body\n\nstatus: open (this "
        "line is body)\n"
    )
    path = write_issue(root, "ISS-002.md", original)
    outcome = keep(root, [], ["b-skill"])
    assert [r.id for r in outcome.closed] == ["ISS-002"]
    assert path.read_text(encoding="utf-8") == original.replace(
        "status: open\nesc", "status: resolved\nesc"
    ).replace(
        "detected_at: 2026-05-01\n",
        'detected_at: 2026-05-01\nresolved_at: "2026-05-31T06:00:00Z"\n',
    )
    text = (root / "memory/issues/INDEX.md").read_text(encoding="utf-8")
    assert (
        "| [ISS-002](ISS-002.md) | a-skill: broke: badly | — | https://example.org/pr/3 | "
        "2026-05-31 |" in text
    )


def test_close_only_open_skill_evals_issues(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(
        root, "ISS-001.md", issue_text("ISS-001", title="a", skills="[s]", detected_by="heartbeat")
    )
    write_issue(
        root, "ISS-002.md", issue_text("ISS-002", title="b", skills="[s]", status="resolved")
    )
    write_issue(
        root, "ISS-003.md", issue_text("ISS-003", title="c", skills="[s, t]", status="fixing")
    )
    write_issue(root, "ISS-004.md", issue_text("ISS-004", title="s: d", skills="[t]"))  # title only
    before = snapshot(root)
    outcome = keep(root, [], ["s"])
    assert [r.id for r in outcome.closed] == ["ISS-003"]
    after = snapshot(root)
    for n in ("001", "002", "004"):
        assert after[f"memory/issues/ISS-{n}.md"] == before[f"memory/issues/ISS-{n}.md"]


def test_close_without_a_trailing_newline_keeps_it_that_way(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    text = issue_text("ISS-001", title="s: x", skills="[s]").rstrip("\n")
    path = write_issue(root, "ISS-001.md", text)
    keep(root, [], ["s"])
    assert (
        path.read_bytes()
        == text.replace("status: open", "status: resolved")
        .replace("resolved_at:\n", 'resolved_at: "2026-05-31T06:00:00Z"\n')
        .encode()
    )


# --- reading ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "field", "expected"),
    [
        ("detected_at: 2026-05-01", "detected_at", "2026-05-01"),
        ("detected_at: 2026-05-01T06:00:00Z", "detected_at", "2026-05-01T06:00:00Z"),
        ('detected_at: "2026-05-01T06:00:00Z"', "detected_at", "2026-05-01T06:00:00Z"),
        ("detected_at: 2026-05-01 06:00:00", "detected_at", "2026-05-01T06:00:00"),
        ("affected_skills: [a, b]", "affected_skills", ("a", "b")),
        ("affected_skills:\n  - a\n  - b", "affected_skills", ("a", "b")),
        ("affected_skills:\n- a\n- b", "affected_skills", ("a", "b")),
        ("affected_skills: a, b", "affected_skills", ("a", "b")),
        ("affected_skills: a", "affected_skills", ("a",)),
        ("resolved_at:", "resolved_at", None),
        ("resolved_at: null", "resolved_at", None),
        ("resolved_at: ''", "resolved_at", None),
        ("resolved_at: 2026-05-02", "resolved_at", "2026-05-02"),
        ("root_cause: |\n  line one\n  line: two", "root_cause", "line one\nline: two\n"),
        ("fix_pr: 8", "fix_pr", "#8"),
        ("flaky: true", "flaky", True),
        ("title: a: b: c", "title", "a: b: c"),
    ],
)
def test_read_field_variants(tmp_path: Path, lines: str, field: str, expected: object) -> None:
    root = make_root(tmp_path)
    write_issue(root, "ISS-001.md", f"---\nid: ISS-001\nstatus: open\n{lines}\n---\n\nbody\n")
    found, warnings = read_issues(root / "memory/issues", root=root)
    assert warnings == []
    assert getattr(found[0], field) == expected


def test_invalid_yaml_block_scalar_still_read(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(
        root,
        "ISS-001.md",
        "---\nid: ISS-001\ntitle: s: bad: yaml\nstatus: open\naffected_skills:\n  - "
        "s\nroot_cause: |\n  one\n  two\n---\n",
    )
    [issue], _ = read_issues(root / "memory/issues", root=root)
    assert (issue.valid_yaml, issue.title, issue.affected_skills, issue.root_cause) == (
        False,
        "s: bad: yaml",
        ("s",),
        "one\ntwo\n",
    )


def test_files_without_frontmatter_are_reported_and_untouched(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(root, "ISS-014.md", "# brand-new-skill is broken\n\nno frontmatter here\n")
    (root / "memory/issues/ISS-015.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe garbage")
    write_issue(root, "ISS-016.md", "---\nid: ISS-016\ntitle: never closed\n")
    write_issue(root, "ISS-017.md", "---\n---\nempty\n")
    (root / "memory/issues/ISS-018.md").write_bytes(b"---\nid: ISS-018\x00\n---\n")
    before = snapshot(root)

    outcome = keep(root, [request()], ["brand-new-skill"])

    assert outcome.warnings == (
        "memory/issues/ISS-014.md: no YAML frontmatter; left untouched",
        "memory/issues/ISS-015.md: not UTF-8 text; left untouched",
        "memory/issues/ISS-016.md: no YAML frontmatter; left untouched",
        "memory/issues/ISS-017.md: empty YAML frontmatter; left untouched",
        "memory/issues/ISS-018.md: binary content; left untouched",
    )
    assert [r.id for r in outcome.filed] == ["ISS-019"]
    after = snapshot(root)
    for n in range(14, 19):
        assert after[f"memory/issues/ISS-0{n}.md"] == before[f"memory/issues/ISS-0{n}.md"]


# --- filing rules ----------------------------------------------------------------------------


def test_whole_word_title_match(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(
        root,
        "ISS-001.md",
        issue_text("ISS-001", title="token-alert: broke", skills="[]", detected_by="x"),
    )
    outcome = keep(
        root,
        [request("token-alert"), request("token-alert-v2"), request("alert"), request("token")],
        [],
    )
    assert outcome.existing == {"token-alert": "ISS-001"}
    assert [(r.id, r.skill) for r in outcome.filed] == [
        ("ISS-002", "token-alert-v2"),
        ("ISS-003", "alert"),
        ("ISS-004", "token"),
    ]


def test_same_skill_twice_files_once(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    outcome = keep(root, [request("s"), request("s", root_cause="empty_file")], [])
    assert [r.id for r in outcome.filed] == ["ISS-001"]
    assert outcome.existing == {"s": "ISS-001"}


@pytest.mark.parametrize(
    ("root_cause", "category"),
    [
        ("missing_pattern:foo|bar", "prompt-bug"),
        ("forbidden_pattern:${var}", "prompt-bug"),
        ("numeric_oob:cost 41 > 40", "quality-regression"),
        ("word_count", "quality-regression"),
        ("empty_file", "quality-regression"),
        ("quality_score:0.4", "quality-regression"),
        ("stale_file:9d", "missing-secret-or-cron"),
        ("no_file_match", "missing-secret-or-cron"),
        ("something_else: x", "unknown"),
        ("", "unknown"),
    ],
)
def test_category_map(tmp_path: Path, root_cause: str, category: str) -> None:
    root = make_root(tmp_path)
    keep(root, [request(root_cause=root_cause)], [])
    data = frontmatter((root / "memory/issues/ISS-001.md").read_text(encoding="utf-8"))
    assert data["category"] == category
    assert data["root_cause"] == root_cause


@pytest.mark.parametrize(
    ("label", "status", "severity"),
    [
        (DiffLabel.NEW_FAIL, Status.FAIL, "high"),
        (DiffLabel.NEW_FAIL, Status.NO_OUTPUT, "high"),
        (DiffLabel.NEW_QUALITY_DEGRADED, Status.QUALITY_DEGRADED, "medium"),
    ],
)
def test_severity(tmp_path: Path, label: DiffLabel, status: Status, severity: str) -> None:
    root = make_root(tmp_path)
    keep(root, [request(label=label, status=status)], [])
    text = (root / "memory/issues/ISS-001.md").read_text(encoding="utf-8")
    assert frontmatter(text)["severity"] == severity


def test_flaky_key_and_sentence(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    keep(root, [request("a", flaky=True), request("b")], [])
    a = (root / "memory/issues/ISS-001.md").read_text(encoding="utf-8")
    b = (root / "memory/issues/ISS-002.md").read_text(encoding="utf-8")
    assert frontmatter(a)["flaky"] is True and "This skill is flaky" in a
    assert "flaky" not in frontmatter(b) and "flaky" not in b
    assert a.endswith("Article: articles/skill-evals-2026-05-31.md\n")


def test_long_root_cause_gives_a_sensible_title(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    cause = "missing_pattern:" + " ".join(["word"] * 60) + "\nsecond line"
    keep(root, [request(root_cause=cause)], [])
    data = frontmatter((root / "memory/issues/ISS-001.md").read_text(encoding="utf-8"))
    title = str(data["title"])
    assert len(title) <= 120 and title.endswith("word…") and "\n" not in title
    assert data["root_cause"] == cause


# --- dry run, idempotence, crash repair, open_by_skill ---------------------------------------


def test_dry_run_writes_nothing_and_predicts(tmp_path: Path) -> None:
    root = copy_snapshot("aeonfun__aeon", "2026-05-03_c31d240f", tmp_path)
    before = snapshot(root)
    args: tuple[list[IssueRequest], list[str]] = (
        [request("a-skill"), request("b-skill")],
        ["heartbeat"],
    )
    dry = keep(root, *args, dry_run=True)
    assert snapshot(root) == before
    real = keep(root, *args)
    assert dry == real
    assert [r.id for r in real.filed] == ["ISS-020", "ISS-021"]
    assert [r.id for r in real.closed] == ["ISS-018"]


def test_second_run_changes_nothing(tmp_path: Path) -> None:
    root = copy_snapshot("anajuliabit__aeon", "2026-07-05_4886d3c", tmp_path)
    args: tuple[list[IssueRequest], list[str]] = ([request("a-skill")], ["token-alert"])
    first = keep(root, *args)
    assert [r.id for r in first.filed] == ["ISS-027"] and [r.id for r in first.closed] == [
        "ISS-023"
    ]
    between = snapshot(root)
    second = keep(root, *args)
    assert second.filed == () and second.closed == ()
    assert second.existing == {"a-skill": "ISS-027"}
    assert second.open_by_skill == first.open_by_skill
    assert snapshot(root) == between


def test_rerun_repairs_an_index_left_behind_by_a_crash(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    index = root / "memory/issues/INDEX.md"
    write_issue(root, "ISS-001.md", issue_text("ISS-001", title="old: x", skills="[old]"))
    keep(root, [request("new")], ["old"])
    done = index.read_text(encoding="utf-8")
    index.write_text(EMPTY_INDEX, encoding="utf-8")  # as if killed before the INDEX.md write

    outcome = keep(root, [request("new")], ["old"])

    assert outcome.filed == () and outcome.closed == ()
    assert outcome.warnings == (
        "memory/issues/INDEX.md: open ISS-002 was not listed; added to Open",
        "memory/issues/INDEX.md: resolved ISS-001 was listed as open; moved to Resolved",
    )
    text = index.read_text(encoding="utf-8")
    assert text.count("ISS-002") == 2  # link text and target, one row
    assert "[ISS-002](ISS-002.md) | new: word_count" in text
    assert "[ISS-001](ISS-001.md) | old: x | high | — | 2026-05-31" in text
    assert text == done


def test_open_by_skill(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    write_issue(
        root,
        "ISS-004.md",
        issue_text("ISS-004", title="x", skills="[a, b]", detected_by="heartbeat"),
    )
    write_issue(
        root,
        "ISS-002.md",
        issue_text("ISS-002", title="c broke with b", skills="[z]", detected_by="h"),
    )
    write_issue(
        root, "ISS-001.md", issue_text("ISS-001", title="x", skills="[a]", status="resolved")
    )
    write_issue(root, "ISS-003.md", issue_text("ISS-003", title="x", skills="[d]"))
    outcome = keep(root, [request("e")], ["d"], skills=["c", "q"])
    # Only an issue covering the skill is its issue: ISS-004 (another detector's, about a and b)
    # and ISS-002's title (naming b and c, about z) are linked at most, never a row's issue.
    assert outcome.open_by_skill == {"e": "ISS-005", "z": "ISS-002"}


def test_a_number_taken_after_the_plan_renumbers_the_rest_in_order(tmp_path: Path) -> None:
    """The new issues are written together and synced side by side (boot pass), yet named one by
    one: a number another filer took between the plan and the write moves that issue and every
    later one up, as the one-at-a-time loop did; nothing half-written, no temp file left."""
    from aeon_evals.issues.apply import apply_plan
    from aeon_evals.issues.plan import plan_issues, read_state

    root = make_root(tmp_path)
    write_issue(root, "ISS-030.md", issue_text("ISS-030", title="x", skills="[other]"))
    to_file = [request(f"skill-{n}") for n in range(4)]
    plan = plan_issues(
        read_state(root), to_file, [], now=NOW, today=TODAY, article_path=ARTICLE, skills=()
    )
    assert [n.issue.id for n in plan.new] == ["ISS-031", "ISS-032", "ISS-033", "ISS-034"]
    (root / "memory/issues/ISS-033.md").mkdir()  # taken by someone else meanwhile

    outcome = apply_plan(plan)

    filed = {r.skill: r.id for r in outcome.filed}
    assert filed == {
        "skill-0": "ISS-031",
        "skill-1": "ISS-032",
        "skill-2": "ISS-034",
        "skill-3": "ISS-035",
    }
    for skill, iid in filed.items():
        text = (root / f"memory/issues/{iid}.md").read_text()
        assert f"id: {iid}\n" in text and skill in text
    assert not list((root / "memory/issues").glob(".*"))  # no temp file left
    index = (root / "memory/issues/INDEX.md").read_text()
    assert "ISS-035" in index and "ISS-033" not in index

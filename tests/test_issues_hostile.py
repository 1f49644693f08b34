"""Issue files and INDEX.md written by others (issue #16 points 5, 13, 17) and the dedup that
cannot absorb (issue #15 point 2), each run end to end on a temporary instance."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Instance
from realdata import realdata
from test_cli_run import WEEK1, WEEK2, WORDS, fleet

from aeon_evals.issues import read_issues

Cli = Callable[..., tuple[int, str, str]]


def _bomb_in_one_field(field: str) -> str:
    """Nine levels of `&a [*a × 9]` inside one field: 9⁹ values once the aliases are walked."""
    levels = ["&l0 [" + ", ".join(["lol"] * 9) + "]"]
    levels += [f"&l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, 9)]
    return f"{field}: [{', '.join(levels)}]\n"


def _bomb_across_keys(field: str) -> str:
    """The classic form: each level its own key, the last one `field`."""
    lines = ["l0: &l0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, 8)]
    lines.append(f"{field}: [" + ", ".join(["*l7"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _week2(inst: Instance) -> None:
    """repo-pulse recovers (its ISS is closed); token-alert keeps writing its log section."""
    inst.write("articles/repo-pulse-2026-05-23.md", f"# pulse\n1,204 stars\n{WORDS}\n")
    inst.write(
        "memory/logs/2026-05-23.md", "# 2026-05-23\n### token-alert\nTOKEN_ALERT AEON flat\n"
    )


ISSUE_HEAD = (
    "---\nid: ISS-001\ntitle: 'digest: word_count'\nstatus: open\nseverity: high\n"
    "detected_by: skill-evals\ndetected_at: 2026-05-01\naffected_skills: [digest]\n"
)

_WATCHED = (
    "import json, resource, sys\n"
    "from aeon_evals.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(json.dumps({'code': code, 'rss_mb': "
    "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}), file=sys.stderr)\n"
)


def _watched(*argv: str) -> tuple[int, int, str]:
    """Run the CLI in a child under a watchdog: (exit code, peak RSS in MiB, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-c", _WATCHED, *argv],
        capture_output=True,
        text=True,
        timeout=120,  # a watchdog, not a timing assertion: the bomb ran for 10+ minutes
        check=False,
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], report["rss_mb"], proc.stderr


@pytest.mark.parametrize("shape", [_bomb_in_one_field, _bomb_across_keys], ids=["field", "keys"])
@pytest.mark.parametrize("field", ["title", "affected_skills", "root_cause", "id", "status"])
def test_a_yaml_alias_bomb_in_an_issue_is_read_in_bounded_time_and_memory(
    instance: Instance, shape: Callable[[str], str], field: str
) -> None:
    inst = fleet(instance)
    head = "".join(ln + "\n" for ln in ISSUE_HEAD.splitlines() if not ln.startswith(f"{field}:"))
    bomb = inst.write("memory/issues/ISS-001.md", head + shape(field) + "---\n\nBody.\n")
    before = bomb.read_bytes()

    code, rss_mb, err = _watched("run", "--root", str(inst.root), "--now", WEEK1, "--no-site")

    assert code == 0, err
    assert rss_mb < 500, rss_mb  # the unbounded read grew to ~21 GB
    assert bomb.read_bytes() == before
    assert any(
        ln.startswith("warning: memory/issues/ISS-001.md: YAML aliases expand past 10,000 values")
        for ln in err.splitlines()
    ), err
    # read as far as possible: the fields around the bomb are kept
    found, _ = read_issues(inst.root / "memory/issues", root=inst.root)
    issue = found[0]
    assert (issue.id, issue.path, issue.detected_by) == (
        "ISS-001",
        "memory/issues/ISS-001.md",
        "skill-evals",
    )
    if field != "title":
        assert issue.title == "digest: word_count"
    if field != "affected_skills":
        assert issue.affected_skills == ("digest",)
    assert len(issue.title) < 1000 and len(",".join(issue.affected_skills)) < 1000


def test_a_yaml_alias_bomb_does_not_hang_the_dashboard(instance: Instance) -> None:
    inst = fleet(instance)
    inst.write("memory/issues/ISS-001.md", ISSUE_HEAD + _bomb_in_one_field("title") + "---\n")
    code, rss_mb, err = _watched("run", "--root", str(inst.root), "--now", WEEK1)
    assert code == 0, err
    code, rss_mb, err = _watched("site", "--root", str(inst.root), "--now", WEEK1)
    assert code == 0 and rss_mb < 500, (code, rss_mb, err)
    assert "memory/issues/ISS-001.md: YAML aliases expand past 10,000" in err


def test_an_oversized_issue_frontmatter_is_left_untouched(instance: Instance, cli: Cli) -> None:
    inst = fleet(instance)
    big = inst.write(
        "memory/issues/ISS-001.md", ISSUE_HEAD + "root_cause: " + "x" * 70_000 + "\n---\n"
    )
    before = big.read_bytes()
    code, _, err = cli("run", "--root", str(inst.root), "--now", WEEK1, "--no-site")
    assert code == 0
    assert (
        "warning: memory/issues/ISS-001.md: frontmatter larger than 64 KiB; left untouched" in err
    )
    assert big.read_bytes() == before
    assert (inst.root / "memory/issues/ISS-002.md").is_file()  # its number still counts


def test_an_issue_whose_id_disagrees_with_its_file_name_never_moves_another(
    instance: Instance, cli: Cli
) -> None:
    """Issue #16 point 13: ISS-001.md saying `id: ISS-007` made closing it move skill-health's
    ISS-007 to Resolved."""
    inst = fleet(instance)
    root = str(inst.root)
    assert cli("run", "--root", root, "--now", WEEK1, "--no-site")[0] == 0  # files ISS-001
    ours = inst.root / "memory/issues/ISS-001.md"
    ours.write_text(ours.read_text().replace("id: ISS-001\n", "id: ISS-007\n"))
    other = inst.write(
        "memory/issues/ISS-007.md",
        "---\nid: ISS-007\ntitle: digest is slow\nstatus: open\ndetected_by: skill-health\n"
        "affected_skills: [digest]\n---\n\nskill-health's own.\n",
    )
    index = inst.root / "memory/issues/INDEX.md"
    row = next(ln for ln in index.read_text().splitlines() if ln.startswith("| [ISS-001]"))
    theirs = "| [ISS-007](ISS-007.md) | digest is slow | high | unknown | 2026-05-10 | digest |"
    index.write_text(index.read_text().replace(row + "\n", row + "\n" + theirs + "\n"))
    other_before = other.read_bytes()
    _week2(inst)

    code, out, err = cli("run", "--root", root, "--now", WEEK2, "--no-site")

    assert code == 0, err
    assert (
        "warning: memory/issues/ISS-001.md: frontmatter id 'ISS-007' disagrees with the file "
        "name; read as ISS-001"
    ) in err
    assert "issues closed: ISS-001 (repo-pulse)" in out
    open_part, resolved_part = index.read_text().split("## Resolved")
    assert theirs in open_part and "ISS-007" not in resolved_part
    assert "[ISS-001]" in resolved_part and "[ISS-001]" not in open_part
    assert other.read_bytes() == other_before
    assert "status: resolved" in ours.read_text()


STRUCTURED_INDEX = """# Issues

How to add a row, for people:

```md
## Open
| ID | Title |
|----|-------|
```

<!-- old layout, kept for reference:
## Resolved
| ID | Title |
|----|-------|
-->

### Open

| ID | Title | Severity | Category | Detected | Affected Skills |
|----|-------|----------|----------|----------|-----------------|

### Resolved

| ID | Title | Severity | Fix PR | Resolved |
|----|-------|----------|--------|----------|
"""


def test_index_sections_are_found_by_markdown_structure(instance: Instance, cli: Cli) -> None:
    """Issue #16 point 17: `## Open` inside a fenced block or an HTML comment is not a section,
    and `### Open` / `### Resolved` are."""
    inst = fleet(instance)
    root = str(inst.root)
    index = inst.write("memory/issues/INDEX.md", STRUCTURED_INDEX)
    assert cli("run", "--root", root, "--now", WEEK1, "--no-site")[0] == 0
    row = (
        "| [ISS-001](ISS-001.md) | repo-pulse: no_file_match | high | missing-secret-or-cron "
        "| 2026-05-17 | repo-pulse |\n"
    )
    filed = STRUCTURED_INDEX.replace(
        "|----------|-----------------|\n", "|----------|-----------------|\n" + row
    )
    assert index.read_text() == filed

    _week2(inst)
    assert cli("run", "--root", root, "--now", WEEK2, "--no-site")[0] == 0
    moved = "| [ISS-001](ISS-001.md) | repo-pulse: no_file_match | high | — | 2026-05-24 |\n"
    assert index.read_text() == STRUCTURED_INDEX + moved


REPLAY = "aeonfun__aeon@2026-05-03"


def test_a_broad_issue_of_another_detector_no_longer_absorbs_new_failures(
    tmp_path: Path, cli: Cli
) -> None:
    """Issue #15 point 2, replayed on aeonfun just before its 2026-05-03 run: skill-health's
    ISS-013 names 53 skills, heartbeat's ISS-017 25; heartbeat and repo-article fail anew and
    each gets its own issue, ISS-013 is linked in the row's Notes, and every surface names the
    same issue IDs."""
    root = tmp_path / "aeonfun"
    shutil.copytree(realdata() / "instances" / REPLAY, root, symlinks=True)
    code, out, err = cli(
        "run", "--root", str(root), "--today", "2026-05-03", "--now", "2026-05-03T06:35:29Z",
        "--no-notify", "--no-site",
    )  # fmt: skip
    assert code == 0, err
    assert "issues filed: ISS-018 (heartbeat), ISS-019 (repo-article)" in out
    article = (root / "articles/skill-evals-2026-05-03.md").read_text()
    filed = {"heartbeat": "ISS-018", "repo-article": "ISS-019"}
    regressions = article.split("## Regressions")[1].split("\n\n")[0]
    assert {
        cells[0]: cells[3]
        for cells in (
            [c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]]
            for ln in regressions.splitlines()[3:]
        )
    } == filed
    queue = article.split("## Action Queue")[1].split("\n\n")[0]
    for skill, iid in filed.items():
        assert re.search(rf"Investigate {skill} — .*\({iid}\)$", queue, re.M), queue
    assert "- issues filed: ISS-018 (heartbeat), ISS-019 (repo-article)" in article  # Sources
    log = (root / "memory/logs/2026-05-03.md").read_text().split("### skill-evals")[1]
    assert "- Issues filed: ISS-018, ISS-019" in log
    assert "ISS-013" not in regressions + queue + log
    notes = {
        ln.split("|")[1].strip(): ln.rstrip(" |").rsplit("|", 1)[1].strip()
        for ln in article.split("## Full Results")[1].splitlines()
        if ln.startswith(("| heartbeat ", "| repo-article "))
    }
    assert notes == {"heartbeat": "see also ISS-013, ISS-017", "repo-article": "see also ISS-013"}
    for iid, skill in (("ISS-018", "heartbeat"), ("ISS-019", "repo-article")):
        text = (root / f"memory/issues/{iid}.md").read_text()
        assert f"affected_skills: [{skill}]" in text and "See also ISS-013" in text
    # the same day again (the next commit): the same IDs everywhere, nothing filed twice
    code, out, err = cli(
        "run", "--root", str(root), "--today", "2026-05-03", "--now", "2026-05-03T06:35:29Z",
        "--no-notify", "--no-site",
    )  # fmt: skip
    assert code == 0, err
    assert "issues filed: none" in out
    again = (root / "articles/skill-evals-2026-05-03.md").read_text()
    assert again.split("## Regressions")[1].split("\n\n")[0] == regressions
    assert "- issues filed: ISS-018 (heartbeat), ISS-019 (repo-article)" in again
    assert not (root / "memory/issues/ISS-020.md").exists()
    assert (root / "memory/issues/ISS-013.md").read_bytes() == (
        realdata() / "instances" / REPLAY / "memory/issues/ISS-013.md"
    ).read_bytes()


def test_run_json_never_gives_a_skill_another_detectors_broad_issue(
    tmp_path: Path, cli: Cli
) -> None:
    """`run --json` gave ~60 skills of aeonfun skill-health's ISS-013 (a mass failure naming 53
    skills) or heartbeat's ISS-017 (a cron gap) as their `issue`, passing ones included: a
    skill's `issue` is the issue filed for its own failure (this tool's, or one about that skill
    alone); a broad one is only linked in the Notes ("see also")."""
    root = tmp_path / "aeonfun"
    shutil.copytree(realdata() / "instances" / REPLAY, root, symlinks=True)
    code, out, err = cli(
        "run", "--root", str(root), "--today", "2026-05-03", "--now", "2026-05-03T06:35:29Z",
        "--no-notify", "--no-site", "--json",
    )  # fmt: skip
    assert code == 0, err
    skills = {row["skill"]: row for row in json.loads(out)["skills"]}
    issues = {i.id: i for i in read_issues(root / "memory/issues", root=root)[0]}
    given = {name: row["issue"] for name, row in skills.items() if row.get("issue")}
    assert set(given.values()) & {"ISS-013", "ISS-017"} == set()
    for name, iid in given.items():
        assert issues[iid].covers(name), (name, iid)
    assert given["heartbeat"] == "ISS-018" and given["repo-article"] == "ISS-019"
    assert given["fork-fleet"] == "ISS-005"  # this tool's own, carried as it still fails
    assert given["vuln-scanner"] == "ISS-001"  # vuln-scanner's issue about itself
    assert "action-converter" not in given  # only in ISS-013
    assert skills["heartbeat"]["notes"][-1] == "see also ISS-013, ISS-017"

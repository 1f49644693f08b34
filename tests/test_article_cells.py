"""What the article's cells show for odd skill names and causes, and that the next run reads it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import Instance
from realdata import MIROSHARK, MIROSHARK_NOW, whole_instance
from test_cli_run import WEEK1, WEEK2, fleet

Cli = Callable[..., tuple[int, str, str]]


def _full_results(article: str) -> dict[str, list[str]]:
    """Full Results rows by skill, cells as written (no unescaping: what a reader sees)."""
    table = article.split("## Full Results")[1].split("\n\n")[0].splitlines()[3:]
    return {
        cells[0]: cells
        for cells in ([c.strip() for c in line.strip("|").split(" | ")] for line in table)
    }


def test_spec_error_cause_lost_a_skill_names_leading_dot(instance: Instance, cli: Cli) -> None:
    """A spec error's cause named `spec_error:/escape` for a skill `./escape` (and `hidden`,
    `b.min_words` for `.hidden`, `a.b`): the field was cut at the first dots of the location,
    which a skill name may hold. The cause names the field, or the skill for the whole spec; an
    article an older version wrote with the cut cause still reads as the prior run."""
    inst = fleet(instance)
    data = json.loads((inst.root / "skills/skill-evals/evals.json").read_text())
    data["skills"]["./escape"] = {"output_pattern": "articles/x-*.md"}
    data["skills"][".hidden"] = {"output_pattern": "articles/x-*.md"}
    data["skills"]["a.b"] = {"output_pattern": "articles/x-*.md", "min_words": "x"}
    inst.evals(data["skills"])
    root = str(inst.root)
    code, out, err = cli("run", "--root", root, "--now", WEEK1, "--no-site", "--json")
    assert code == 0, err
    causes = {r["skill"]: r["root_causes"] for r in json.loads(out)["skills"]}
    assert causes["./escape"][0]["code"] == "spec_error:./escape"
    assert causes[".hidden"][0]["code"] == "spec_error:.hidden"
    assert causes["a.b"][0]["code"] == "spec_error:min_words"
    written = inst.root / "articles/skill-evals-2026-05-17.md"
    rows = _full_results(written.read_text())
    assert [rows[s][3] for s in ("./escape", ".hidden", "a.b")] == [
        "spec_error:./escape",
        "spec_error:.hidden",
        "spec_error:min_words",
    ]
    # the article as an older version wrote it: the same run, the causes cut
    old = written.read_text().replace("spec_error:./escape", "spec_error:/escape")
    written.write_text(old.replace("spec_error:.hidden", "spec_error:hidden"))
    code, out, err = cli("run", "--root", root, "--now", WEEK2, "--no-site", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["prior_article"] == "articles/skill-evals-2026-05-17.md"
    diffs = {r["skill"]: r["diff"] for r in result["skills"]}
    # ERROR then ERROR: STABLE, read from the old rows (a row not found would be NEW_ERROR)
    assert {diffs[s] for s in ("./escape", ".hidden", "a.b")} == {"STABLE"}


def test_scorable_false_skills_were_listed_as_coverage_gaps_without_a_contract(
    tmp_path: Path, cli: Cli
) -> None:
    """On miroshark, heartbeat and memory-flush (`scorable: false` in their SKILL.md) were listed
    under "Without a contract" though they have one, and again under "Coverage Gaps". They are
    listed once, under their own heading; the other headings list what they say."""
    root = whole_instance(MIROSHARK, tmp_path / "miro")
    run = ("run", "--root", str(root), "--now", MIROSHARK_NOW, "--no-site", "--no-notify")
    code, _, err = cli(*run)  # no evals.json: every skill judged on its SKILL.md contract
    assert code == 0, err
    article = (root / "output/articles/skill-evals-2026-08-22.md").read_text()
    headings = [line for line in article.splitlines() if line.startswith("## ")]
    assert "## Without a contract" not in "\n".join(headings)
    assert not any(h.startswith("## Coverage Gaps") for h in headings)
    listed = article.split("## Listed, not scored")[1].split("\n\n")[0].splitlines()
    assert listed == [
        " (enabled, `scorable: false` in their SKILL.md)",
        "- heartbeat",
        "- memory-flush",
    ]
    coverage = next(line for line in article.splitlines() if line.startswith("**Coverage:**"))
    assert "2 not scorable" in coverage  # the Coverage line counts them


def test_a_tab_in_a_skill_name_was_printed_raw(instance: Instance, cli: Cli) -> None:
    """A skill folder named with a tab (or a BEL) was printed raw in the article, its Action
    Queue and the audit. It is shown escaped (`tab\\tname`, `bell\\x07x`) everywhere, as
    other control characters are, and next week's run still finds the skill's previous row
    (STILL_FAIL, failing since the first run; no "no longer in evals.json" ghost row)."""
    inst = fleet(instance)
    registry = (inst.root / "aeon.yml").read_text()
    for name in ("tab\tname", "bell\x07x"):
        inst.write(f"skills/{name}/SKILL.md", "Save to `articles/odd-${today}.md`.\n")
        registry += f'  "{name.encode("unicode_escape").decode()}": {{ enabled: true }}\n'
    inst.write("aeon.yml", registry)
    root = str(inst.root)
    for now in (WEEK1, WEEK2):
        code, out, err = cli(
            "run", "--root", root, "--now", now, "--no-site", "--contracts", "enforce"
        )
        assert code == 0, err
    article = (inst.root / "articles/skill-evals-2026-05-24.md").read_text()
    log = (inst.root / "memory/logs/2026-05-24.md").read_text()
    assert not any(ch in text for text in (article, log, out) for ch in "\t\x07")
    rows = _full_results(article)
    assert rows["tab\\\\tname"][1:3] == ["NO_OUTPUT", "STILL_FAIL"]
    assert rows["bell\\\\x07x"][1:3] == ["NO_OUTPUT", "STILL_FAIL"]
    assert "NEW_NO_COVERAGE" not in article
    still = article.split("## Still Failing")[1].split("\n\n")[0]
    assert "| tab\\\\tname | NO_OUTPUT |" in still and "| 2026-05-17 |" in still
    code, out, err = cli("audit", "--root", root)
    assert code == 0 and "\t" not in out and "\x07" not in out
    assert "  ✗ tab\\tname                      articles/odd-*.md  ← SKILL.md:1" in out
    assert "  ✗ bell\\x07x                      articles/odd-*.md  ← SKILL.md:1" in out


def test_a_coverage_cliff_with_nothing_to_do_said_all_green(tmp_path: Path, cli: Cli) -> None:
    """The demo with its aeon.yml emptied (`skills:` with no entry; a deleted or binary one is an
    error since issue 33): every skill is unregistered, none is counted, the Action Queue is
    empty, and the article said "none — all green" under a COVERAGE_CLIFF verdict. "All green"
    is said only when the verdict is OK (or RECOVERED)."""
    root = tmp_path / "demo"
    pinned = ("--today", "2026-06-01", "--now", "2026-06-01T06:00:00Z")
    assert cli("demo", str(root), *pinned)[0] == 0
    (root / "aeon.yml").write_text("skills:\n", encoding="utf-8")
    code, out, err = cli("run", "--root", str(root), *pinned, "--no-site", "--no-notify", "--json")
    assert code == 0, err
    assert json.loads(out)["verdict"] == "SKILL_EVALS_COVERAGE_CLIFF"
    article = (root / "articles/skill-evals-2026-06-01.md").read_text()
    assert "\nAction Queue: none.\n" in article and "all green" not in article
    log = (root / "memory/logs/2026-06-01.md").read_text()
    assert "- Action queue head: none\n" in log


def test_a_skill_run_dropped_todays_regressions_and_action_queue(
    instance: Instance, cli: Cli
) -> None:
    """`run --skill cost-report` after the day's full run kept the other rows in Full Results
    (and counted them on the Diff line) but dropped them from Regressions, Still Failing and
    Recovered and emptied the Action Queue ("none — all green" under REGRESSED). The kept rows
    are in every table, with the issue today's article gave them, and today's queue items about
    the other skills are kept."""
    inst = fleet(instance)
    root = str(inst.root)
    assert cli("run", "--root", root, "--now", WEEK1, "--no-site", "--no-notify")[0] == 0
    path = inst.root / "articles/skill-evals-2026-05-17.md"
    full = path.read_text()
    queue = full.split("## Action Queue\n")[1].split("\n\n")[0]
    assert queue.startswith("1. Investigate repo-pulse — `no_file_match` (ISS-001)\n")
    code, _, err = cli(
        "run", "--root", root, "--now", WEEK1, "--no-site", "--no-notify", "--skill", "digest"
    )
    assert code == 0, err
    scoped = path.read_text()
    assert scoped.split("## Action Queue\n")[1].split("\n\n")[0] == queue
    regressions = scoped.split("## Regressions")[1].split("\n\n")[0]
    # with its cause's detail, as the full run wrote it (the scoped run lost it: bug of
    # test_a_skill_run_said_0_inferred_skill_health_empty_and_lost_causes_and_was)
    assert (
        "| repo-pulse | NEW_FAIL | no_file_match — no file matches articles/repo-pulse-*.md "
        "| ISS-001 |" in regressions
    )
    assert regressions == full.split("## Regressions")[1].split("\n\n")[0]
    assert scoped.split("## Full Results")[1] == full.split("## Full Results")[1]

"""Contract precision over the real SKILL.md files (issue 32.6): `${var}` documentation, files the
skill only reads, outputs written only on a non-default `var` or a conditional branch are never
what a run evaluates; the branch aeon.yml's `var` runs is evaluated first."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from realdata import realdata

from aeon_evals.contracts.branches import ANY, DEFAULT, selected_branch
from aeon_evals.contracts.instance import Contract, infer_contract
from aeon_evals.contracts.scope import choose_output, runnable
from aeon_evals.load.manifest import EVALS_PATH
from aeon_evals.load.outputs import Outputs
from aeon_evals.load.skillmd import parse_skill_doc, read_skill_doc

Cli = Callable[..., tuple[int, str, str]]
MIRO = "aaronjmars__miroshark-aeon@2026-08-22"
FUN = "aeonfun__aeon@2026-05-03"
SKO = "Svector-anu__skopos-aeon@2026-07-24"
DA6 = "Da6hkin__aeon@2026-07-11"


def _root(name: str) -> Path:
    return realdata() / "instances" / name


def _real(name: str, skill: str) -> Contract:
    doc = read_skill_doc(_root(name), skill)
    assert doc is not None
    return infer_contract(doc)


def _contract(text: str, skill: str = "s") -> Contract:
    return infer_contract(parse_skill_doc(skill, f"skills/{skill}/SKILL.md", text.encode()))


def _snapshot(name: str) -> datetime:
    return datetime.fromisoformat(name.rpartition("@")[2] + "T23:00:00+00:00").astimezone(UTC)


# (instance, skill, aeon.yml var, what a run evaluates: pattern, log section; what it was before)
# fmt: off
CHOSEN = [
    # `> - **`add-repo:<owner/repo>`** → append `owner/repo` to `memory/watched-repos.md`` in the
    # var documentation: the file the skill edits on that var only (a false FAIL)
    (SKO, "github-monitor", "", "memory/logs/*.md", "### github-monitor"),
    (MIRO, "competitor-monitor", "", "memory/logs/*.md", "### competitor-monitor"),
    # `> **${var}** — … **Empty** → the default protocol (x402) via `memory/topics/tracked-
    # protocol.md``: a registry the skill reads (a false PASS on a config file); the default
    # branch A writes only its `### x402-monitor` entry (stale since 2026-07-08: a real FAIL)
    (SKO, "x402-monitor", "", "memory/logs/*.md", "### x402-monitor"),
    # "# Health view" / "# Analytics view": an empty var runs the health view, whose product is
    # the log entry; the analytics article (never written here) was a false NO_OUTPUT
    (SKO, "skill-health", "", "memory/logs/*.md", "### skill-health"),
    # the scorecard is written only when there are picks ("If zero picks are found in the
    # window, log `PICKS_TRACKER_SKIP: …` and stop"): the fresh log entry is the run's output
    (SKO, "picks-tracker", "", "memory/logs/*.md", "## Picks Tracker"),
    # aeon.yml's var selects the branch: push-to → branch B (its log entry), empty → branch A
    (MIRO, "changelog", "push-to:aaronjmars/miroshark-website", "memory/logs/*.md",
     "### changelog"),
    (MIRO, "token-movers", "token", "output/articles/token-report-*.md", None),
    (FUN, "fleet-control", "", "memory/logs/*.md", "## fleet-control"),
    # the report, not the snapshot the next run compares against (`last30-<slug>.md`)
    (FUN, "last30", "", "articles/last30-*.md", None),
    # the entry every run writes (`### skill-graph`), not "If identical: - Append `## skill-graph`"
    (FUN, "skill-graph", "", "memory/logs/*.md", "### skill-graph"),
]
# fmt: on


@pytest.mark.parametrize(("name", "skill", "var", "pattern", "section"), CHOSEN)
def test_a_run_evaluates_the_output_its_var_writes(
    name: str, skill: str, var: str, pattern: str, section: str | None
) -> None:
    contract = _real(name, skill)
    chosen = choose_output(contract, Outputs(_root(name)), _snapshot(name), var)
    assert (chosen.spec.output_pattern, chosen.spec.section) == (pattern, section)


# (instance, skill, var, the outputs a run with that var may write, its own branch's first)
# fmt: off
RUNNABLE = [
    (SKO, "x402-monitor", "rwa", ["memory/topics/rwa.md", "memory/logs/*.md"]),
    (SKO, "x402-monitor", "", ["memory/logs/*.md"]),
    (SKO, "skill-health", "analytics:72", ["output/articles/skill-analytics-*.md"]),
    (SKO, "skill-health", "token-movers", ["memory/logs/*.md"]),  # "a skill slug → health"
    (MIRO, "changelog", "", ["output/articles/changelog-*.md"]),
    (MIRO, "token-movers", "", ["memory/logs/*.md"]),
    (MIRO, "token-movers", "token",
     ["output/articles/token-report-*.md", "memory/logs/*.md"]),
    (FUN, "fleet-control", "status", ["articles/fleet-status-*.md", "memory/logs/*.md"]),
    (FUN, "fleet-control", "", ["memory/logs/*.md"]),
]
# fmt: on


@pytest.mark.parametrize(("name", "skill", "var", "patterns"), RUNNABLE)
def test_only_the_branch_the_var_runs_counts(
    name: str, skill: str, var: str, patterns: list[str]
) -> None:
    assert [o.spec.output_pattern for o in runnable(_real(name, skill), var)] == patterns


def test_the_branch_the_var_runs_is_evaluated_first_when_it_wrote_anything(
    tmp_path: Path,
) -> None:
    text = (
        "> **${var}** — empty → status mode; `check` → check mode.\n\n"
        "# Mode: status (default)\n\nWrite to `articles/s-${today}.md`.\n\n"
        "# Mode: check\n\nWrite to `articles/c-${today}.md`.\n\n"
        "## Log\n\nAppend to `memory/logs/${today}.md` under `### s`.\n"
    )
    contract = _contract(text)
    (tmp_path / "articles").mkdir()
    (tmp_path / "articles/s-2026-07-18.md").write_text("# S\n")
    (tmp_path / "articles/c-2026-07-20.md").write_text("# C\n")  # a manual run with var=check
    (tmp_path / "memory/logs").mkdir(parents=True)
    (tmp_path / "memory/logs/2026-07-20.md").write_text("### s\n- ok\n")
    now = datetime(2026, 7, 20, 23, tzinfo=UTC)
    chosen = choose_output(contract, Outputs(tmp_path), now, "")
    assert chosen.spec.output_pattern == "articles/s-*.md"  # not the newer check-mode article
    assert choose_output(contract, Outputs(tmp_path), now, "check").spec.output_pattern == (
        "articles/c-*.md"
    )


def test_var_documentation_is_never_an_instruction() -> None:
    text = (
        "> **${var}** — what to do.\n"
        "> - **empty** → digest of `memory/topics/feeds.md`.\n"
        "> - **`add:<url>`** → append `<url>` to `memory/competitors.md`, confirm, and end.\n"
        "> - **`weekly`** → write the week's digest to `articles/s-weekly-${today}.md`.\n\n"
        "Append to `memory/logs/${today}.md`:\n\n```\n### s\n- ok\n```\n"
    )
    assert [(o.spec.output_pattern, o.spec.section) for o in _contract(text).outputs] == [
        ("memory/logs/*.md", "### s")
    ]


def test_a_path_inside_a_message_is_not_an_instruction() -> None:
    text = (
        'Log under `### s`: `- add-topic: "${topic}" → appended stanza to '
        "memory/topics/tracked.md`.\n\nAppend to `memory/logs/${today}.md` under `### s`.\n"
    )
    assert [o.spec.output_pattern for o in _contract(text).outputs] == ["memory/logs/*.md"]


def test_a_file_only_read_under_a_heading_naming_logs_is_not_an_output() -> None:
    """`### 1. Extract token picks from logs` is no writing heading: "Scan the last 30 days of
    `memory/logs/`" under it read the logs (picks-tracker's log evidence quoted that line)."""
    contract = _real(SKO, "picks-tracker")
    log = next(o for o in contract.outputs if o.spec.output_pattern == "memory/logs/*.md")
    assert log.source == "SKILL.md:175"


def test_opening_a_log_reads_it() -> None:
    """evening-recap's "2. **Read today's activity log.** Open `memory/logs/${TODAY}.md`." was
    quoted as its write instruction."""
    assert _real(FUN, "evening-recap").source == "SKILL.md:87"


def test_a_shell_write_in_a_case_arm_is_a_way_out_not_the_product() -> None:
    text = (
        '```bash\ncase "$RAW" in\n  add:*)\n    printf \'%s\\n\' "$X" >> memory/competitors.md\n'
        "    ;;\nesac\n```\n\nAppend to `memory/logs/${today}.md` under `### s`.\n"
    )
    assert [o.spec.output_pattern for o in _contract(text).outputs] == ["memory/logs/*.md"]


def test_a_conditional_product_keeps_the_log_entry_with_the_evidence() -> None:
    contract = _real(SKO, "picks-tracker")
    first, second = contract.outputs
    assert first.spec.output_pattern == "output/articles/picks-scorecard-*.md"
    only_if = dict(first.evidence)["only_if"]
    assert only_if.line == 41 and only_if.quote.startswith("If zero picks are found in the window")
    assert (second.spec.output_pattern, second.spec.section) == (
        "memory/logs/*.md",
        "## Picks Tracker",
    )
    text = (
        "Write the report to `articles/s-${today}.md` only if there are new findings.\n\n"
        "Append to `memory/logs/${today}.md` under `### s`.\n"
    )
    assert [o.spec.output_pattern for o in _contract(text).outputs] == [
        "articles/s-*.md",
        "memory/logs/*.md",
    ]
    # an unconditional product: the log entry beside it is a by-product, as before
    text = "Write the report to `articles/s-${today}.md`.\n\nAppend to `memory/logs/${today}.md`.\n"
    assert [o.spec.output_pattern for o in _contract(text).outputs] == ["articles/s-*.md"]


def test_a_conditional_outputs_absence_is_not_no_output_when_the_log_is_fresh(
    tmp_path: Path,
) -> None:
    text = (
        "If nothing changed, log `S_QUIET` and stop.\n\n"
        "Write the report to `articles/s-${today}.md`.\n\n"
        "Append to `memory/logs/${today}.md` under `### s`.\n"
    )
    contract = _contract(text)
    (tmp_path / "memory/logs").mkdir(parents=True)
    (tmp_path / "memory/logs/2026-07-20.md").write_text("### s\n- S_QUIET\n")
    now = datetime(2026, 7, 20, 23, tzinfo=UTC)
    assert choose_output(contract, Outputs(tmp_path), now).spec.section == "### s"
    (tmp_path / "articles").mkdir()
    (tmp_path / "articles/s-2026-07-20.md").write_text("# S\n")
    assert choose_output(contract, Outputs(tmp_path), now).spec.output_pattern == "articles/s-*.md"


def test_the_var_selectors_are_read_with_their_evidence() -> None:
    contract = _real(SKO, "x402-monitor")
    selectors = {(cond, sel): ev.line for cond, sel, ev in contract.selectors}
    assert selectors[("branch=a", DEFAULT)] == 145  # "## Branch A — … (default; `${var}` empty …)"
    assert selectors[("branch=a", ANY)] == 78  # "| any other string | **A · Protocol Monitor** …"
    assert selectors[("branch=b", "tokenization")] == 74
    assert selected_branch(contract, "") == "branch=a"
    assert selected_branch(contract, "Tokenization") == "branch=b"
    assert selected_branch(contract, "base") == "branch=a"  # a protocol name
    changelog = _real(MIRO, "changelog")
    # "| `owner/repo` (no `push-to:`, no `->`) | **A — in-repo** |" names what does not select A
    assert ("branch=a", "push-to:") not in {(c, s) for c, s, _ in changelog.selectors}
    assert selected_branch(changelog, "push-to:aaronjmars/miroshark-website") == "branch=b"
    # no branch named: every output may be the run's (the newest is evaluated, as before)
    picks = _real(SKO, "picks-tracker")
    assert picks.selectors == () and runnable(picks, "x") == picks.outputs


def test_starters_the_first_run_and_the_bootstrap_take_the_branch_the_var_runs(
    tmp_path: Path, cli: Cli
) -> None:
    root = Path(shutil.copytree(_root(SKO), tmp_path / "s"))
    code, out, err = cli("audit", "--stubs", "--root", str(root))
    assert code == 0, err
    starters = json.loads(out)
    assert starters["skill-health"]["output_pattern"] == "memory/logs/*.md"
    assert starters["skill-health"]["section"] == "### skill-health"
    assert starters["skill-health"]["_when"] == "view=health"
    assert starters["x402-monitor"]["section"] == "### x402-monitor"
    assert starters["picks-tracker"]["section"] == "## Picks Tracker"
    assert starters["picks-tracker"]["_other_branches"] == [
        "always: output/articles/picks-scorecard-*.md (SKILL.md:152)"
    ]
    # no evals.json, no skill-evals registered: the first run judges every skill on its contract
    code, out, err = cli(
        "run", "--root", str(root), "--no-notify", "--no-site", "--dry-run", "--json",
        "--now", "2026-07-24T23:00:00Z",
    )  # fmt: skip
    rows = {row["skill"]: row for row in json.loads(out)["skills"]}
    assert {s: rows[s]["spec_source"] for s in starters} == {
        s: v["_from"] for s, v in starters.items()
    }
    assert rows["picks-tracker"]["status"] == "PASS"  # its fresh weekly entry, not NO_OUTPUT
    # an instance that registers skill-evals keeps the bootstrap: the same starters
    yml = root / "aeon.yml"
    yml.write_text(
        yml.read_text().replace(
            "skills:\n", 'skills:\n  skill-evals: { enabled: false, schedule: "0 6 * * 0" }\n', 1
        )
    )
    code, _, err = cli(
        "run", "--root", str(root), "--no-notify", "--no-site", "--now", "2026-07-24T23:00:00Z"
    )
    assert code == 3, err
    boot = json.loads((root / EVALS_PATH).read_text())["skills"]
    assert {s: boot[s]["_from"] for s in starters} == {s: v["_from"] for s, v in starters.items()}


def test_contracts_shows_the_branch_the_configured_var_runs(tmp_path: Path, cli: Cli) -> None:
    root = Path(shutil.copytree(_root(MIRO), tmp_path / "m"))
    code, out, err = cli("contracts", "changelog", "--root", str(root))
    assert code == 0, err
    assert '  branches  aeon.yml var "push-to:aaronjmars/miroshark-website" runs branch=b' in out
    assert "    branch=b  var 'push-to:'         SKILL.md:44 " in out
    code, out, _ = cli("contracts", "changelog", "--json", "--root", str(root))
    entry = json.loads(out)["skills"]["changelog"]
    assert entry["var"] == "push-to:aaronjmars/miroshark-website"
    assert entry["runs_branch"] == "branch=b"
    assert {"condition": "branch=a", "var": "", "line": 23} in [
        {k: b[k] for k in ("condition", "var", "line")} for b in entry["branches"]
    ]

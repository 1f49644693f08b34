"""Output contracts inferred from SKILL.md, checked against the real outputs of real instances."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from caches import saved
from conftest import Instance
from realdata import realdata

from aeon_evals.contracts.instance import (
    ENTRY,
    Contract,
    infer_contract,
    load_contracts,
)
from aeon_evals.load.manifest import EVALS_PATH, parse_manifest
from aeon_evals.load.outputs import Outputs, name_date
from aeon_evals.load.skillmd import parse_skill_doc, read_skill_doc
from aeon_evals.text.patterns import compile_pattern

Cli = Callable[..., tuple[int, str, str]]
MIRO = "aaronjmars__miroshark-aeon@2026-08-22"
FUN = "aeonfun__aeon@2026-05-03"


def _contract(text: str, skill: str = "s") -> Contract:
    return infer_contract(parse_skill_doc(skill, f"skills/{skill}/SKILL.md", text.encode()))


def _root(name: str) -> Path:
    return realdata() / "instances" / name


# --- matching the way the run does: headings by title, any level, case and -/_/space alike ---


def _norm(title: str) -> str:
    return re.sub(r"[\s_-]+", " ", title.strip().lstrip("#").replace("*", "").strip().lower())


def _headings(text: str) -> list[str]:
    return [_norm(m.group(1)) for m in re.finditer(r"(?m)^#{1,6}\s+(.+)$", text)]


def _section(text: str, heading: str) -> str | None:
    want = _norm(heading)
    out: list[str] = []
    level: int | None = None
    for line in text.splitlines(keepends=True):
        m = re.match(r"^(#{1,6})\s+(.+)$", line)
        if m:
            title = _norm(m.group(2))
            if title.startswith(want) and (
                len(title) == len(want) or not title[len(want)].isalnum()
            ):
                level = len(m.group(1))
            elif level is not None and len(m.group(1)) <= level:
                level = None
        if level is not None:
            out.append(line)
    return "".join(out) or None


def _newest(root: Path, pattern: str, section: str | None) -> tuple[str, str] | None:
    files = sorted(Outputs(root).matches(pattern).files, key=lambda f: (str(name_date(f) or ""), f))
    for rel in reversed(files):
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        body = _section(text, section) if section else text
        if body is not None:
            return rel, body
    return None


# --- the contract of 20+ named real skills, against their real outputs --------------------------

# fmt: off
REAL = [
    # (instance, skill, output_pattern, log section or None, required headings)
    (
        MIRO,
        "token-movers",
        "output/articles/token-report-*.md",
        None,
        ("## 24h at a glance", "## Trend", "## What changed"),
    ),
    (MIRO, "holdings", "output/articles/holdings-*.md", None, ()),
    (MIRO, "shiplog", "output/articles/shiplog-*.md", None, ()),
    (MIRO, "fetch-tweets", "memory/logs/*.md", "### fetch-tweets", ()),
    (MIRO, "heartbeat", "memory/logs/*.md", "### heartbeat", ()),
    (MIRO, "repo-pulse", "memory/logs/*.md", "## Repo Pulse", ()),
    (MIRO, "memory-flush", "memory/logs/*.md", "### memory-flush", ()),
    (FUN, "agent-buzz", "memory/logs/*.md", "### agent-buzz", ()),
    (FUN, "action-converter", "memory/logs/*.md", "## Action Converter", ()),
    (FUN, "token-pick", "memory/logs/*.md", "## Token Pick", ()),
    (FUN, "daily-routine", "memory/logs/*.md", "### daily-routine", ()),
    (FUN, "evening-recap", "memory/logs/*.md", "## Evening Recap", ()),
    (FUN, "monitor-runners", "memory/logs/*.md", "## Monitor Runners", ()),
    (FUN, "github-monitor", "memory/logs/*.md", "### github-monitor", ()),
    # "Path: …" under "Write the report"
    (FUN, "cost-report", "articles/cost-report-*.md", None,
     ("## Anomalies", "## Burn forecast", "## Optimization opportunities", "## Cost by Skill",
      "## Cost by Model", "## Composition", "## Week-over-week")),
    (FUN, "article", "articles/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md", None, ()),
    (FUN, "paper-digest", "articles/paper-digest-*.md", None, ()),
    (FUN, "deep-research", "articles/deep-research-*.md", None, ()),
    (FUN, "research-brief", "articles/research-brief-*.md", None, ()),
    (FUN, "vuln-scanner", "articles/vuln-scan-*.md", None, ()),
    (FUN, "technical-explainer", "articles/explainer-*.md", None, ()),
    (FUN, "repo-actions", "articles/repo-actions-*.md", None, ()),
    (
        FUN,
        "push-recap",
        "articles/push-recap-*.md",
        None,
        ("## Verdict", "## Developer notes", "## Sources"),
    ),
    (
        FUN,
        "code-health",
        "articles/code-health-*.md",
        None,
        ("### Concerns", "### Recommendations"),
    ),
    (
        FUN,
        "skill-security-scan",
        "articles/security-scan-*.md",
        None,
        (
            "## Needs attention",
            "## Resolved since last scan",
            "## Persistent findings",
            "## Per-file results",
            "## Appendix",
        ),
    ),
    (
        FUN,
        "market-context-refresh",
        "memory/topics/market-context.md",
        None,
        (
            "## Signal Snapshot",
            "## What Changed Since Last Refresh",
            "## Active Narratives",
            "## Top DeFi Protocols",
            "## Chain Flow",
            "## Stablecoins",
            "## Trending",
            "## Prediction Markets",
            "## Implications for Downstream Skills",
            "## Token Picks Made",
        ),
    ),
    (FUN, "auto-merge", "memory/logs/*.md", "### auto-merge", ()),
    (FUN, "changelog", "articles/changelog-*.md", None, ()),
    (MIRO, "changelog", "output/articles/changelog-*.md", None, ()),
]
# fmt: on


@pytest.mark.parametrize(("name", "skill", "pattern", "section", "headings"), REAL)
def test_real_contract_matches_the_real_outputs(
    name: str, skill: str, pattern: str, section: str | None, headings: tuple[str, ...]
) -> None:
    root = _root(name)
    doc = read_skill_doc(root, skill)
    assert doc is not None
    contract = infer_contract(doc)
    first = contract.outputs[0]
    assert (first.spec.output_pattern, first.spec.section) == (pattern, section)
    assert first.spec.required_headings == headings
    assert contract.source == first.source and re.fullmatch(r"SKILL\.md:\d+", contract.source)
    newest = _newest(root, pattern, section)
    assert newest is not None, f"no real output matches {pattern} {section}"
    rel, body = newest
    present = _headings(body)
    for heading in headings:
        want = _norm(heading)  # a heading matches by the start of its title, as the run does
        assert any(
            p.startswith(want) and (len(p) == len(want) or not p[len(want)].isalnum())
            for p in present
        ), f"{heading} not in {rel}"
    assert len(body.split()) >= first.spec.min_words
    for forbidden in first.spec.forbidden_patterns:
        assert compile_pattern(forbidden).search(body.encode()) is None, (forbidden, rel)
    lines = (root / doc.path).read_text().splitlines()
    for element, ev in first.evidence:
        assert ev.quote.rstrip("…")[:40] in " ".join(lines[ev.line - 1].split()), element


# --- bad input --------------------------------------------------------------------------------


def test_unterminated_fence_gives_a_warning_and_no_contract() -> None:
    c = _contract("Save to `articles/s-${today}.md`:\n\n```markdown\n# S\n## Summary\n")
    assert c.outputs == () and c.reason == "a code fence is never closed"
    assert c.warnings == ("skills/s/SKILL.md:3: code fence opened here is never closed",)


@pytest.mark.parametrize(
    "target", ["../articles/s-${today}.md", "/etc/s.md", "articles/../../s.md", "~/s.md"]
)
def test_writing_outside_the_root_gives_a_warning_and_no_contract(target: str) -> None:
    c = _contract(f"Read `memory/MEMORY.md`.\n\nWrite the report to `{target}`.\n")
    assert c.outputs == () and c.reason == "SKILL.md writes outside the instance root"
    assert len(c.warnings) == 1 and c.warnings[0].startswith("skills/s/SKILL.md:3: writes outside")


def test_scratch_files_in_tmp_are_not_outputs_nor_outside() -> None:
    c = _contract(
        "Write the digest to `/tmp/s-report.md` and send it.\nAppend to "
        "`memory/logs/${today}.md`.\n"
    )
    assert [o.spec.output_pattern for o in c.outputs] == ["memory/logs/*.md"]


def test_binary_skill_md_has_no_contract() -> None:
    doc = parse_skill_doc("s", "skills/s/SKILL.md", b"Write to articles/s-${today}.md\x00")
    c = infer_contract(doc)
    assert c.outputs == () and c.reason and len(c.warnings) == 1


# --- the cache --------------------------------------------------------------------------------


def _load(root: Path, skills: list[str], *, writable: bool = True) -> dict[str, Contract]:
    return saved(lambda cache: load_contracts(root, skills, cache), root, writable=writable)


CACHE_FILE = Path(".aeon-evals/cache/contracts.json")


def test_load_contracts_caches_by_hash_and_a_damaged_cache_is_a_miss(tmp_path: Path) -> None:
    skill = tmp_path / "skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("Save to `articles/s-${today}.md`.\n")
    first = _load(tmp_path, ["s", "missing"])
    assert list(first) == ["s"] and first["s"].outputs[0].spec.output_pattern == "articles/s-*.md"
    cache = tmp_path / CACHE_FILE
    data = json.loads(cache.read_text())
    assert data["version"] == ENTRY.version and len(data["data"]) == 1
    assert _load(tmp_path, ["s"]) == first
    cache.write_text("{not json")
    assert _load(tmp_path, ["s"]) == first
    key = next(iter(json.loads(cache.read_text())["data"]))
    cache.write_text(json.dumps({**data, "data": {key: {"outputs": 3}}}))
    assert _load(tmp_path, ["s"]) == first
    skill.write_text("Save to `articles/t-${today}.md`.\n")
    assert _load(tmp_path, ["s"])["s"].outputs[0].spec.output_pattern == "articles/t-*.md"


def _old(path: Path, hours: int = 1) -> None:
    """Set the file's mtime an hour back: not changed "just now" (see contracts.RACY_NS)."""
    past = path.stat().st_mtime_ns - hours * 3600 * 10**9
    os.utime(path, ns=(past, past))


def _tamper(cache: Path, skill: str, pattern: str) -> bytes:
    """Make the cached contract of `skill` say `pattern`: a load returning it read no SKILL.md."""
    data = json.loads(cache.read_text())
    data["data"][skill][2][6][0][1] = pattern  # the first output's pattern (contract_to_row)
    cache.write_text(json.dumps(data))
    return cache.read_bytes()


def test_a_warm_load_trusts_an_unchanged_signature_and_rereads_a_changed_file(
    tmp_path: Path,
) -> None:
    skill = tmp_path / "skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("Save to `articles/s-${today}.md`.\n")
    _old(skill)
    _load(tmp_path, ["s"])
    cache = tmp_path / CACHE_FILE
    assert json.loads(cache.read_text())["data"]["s"][1] is not None  # the signature
    _tamper(cache, "s", "articles/from-the-cache-*.md")
    assert _load(tmp_path, ["s"])["s"].outputs[0].spec.output_pattern == (
        "articles/from-the-cache-*.md"
    )
    skill.write_text("Save to `articles/t-${today}.md`.\n")  # same size, new mtime
    assert _load(tmp_path, ["s"])["s"].outputs[0].spec.output_pattern == "articles/t-*.md"


def test_a_skill_md_changed_just_now_keeps_no_signature(tmp_path: Path) -> None:
    skill = tmp_path / "skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("Save to `articles/s-${today}.md`.\n")
    _load(tmp_path, ["s"])
    digest, signature, _ = json.loads((tmp_path / CACHE_FILE).read_text())["data"]["s"]
    assert signature is None and len(digest) == 64


def test_a_dry_run_reads_the_contracts_cache_and_writes_none(tmp_path: Path) -> None:
    skill = tmp_path / "skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("Save to `articles/s-${today}.md`.\n")
    _old(skill)
    assert _load(tmp_path, ["s"], writable=False)["s"].usable
    cache = tmp_path / CACHE_FILE
    assert not cache.exists()
    _load(tmp_path, ["s"])
    before = _tamper(cache, "s", "articles/from-the-cache-*.md")
    found = _load(tmp_path, ["s"], writable=False)
    assert found["s"].outputs[0].spec.output_pattern == "articles/from-the-cache-*.md"
    skill.write_text("Save to `articles/t-${today}.md`.\n")
    _old(skill, hours=2)
    # the signature changed, the hash too: inferred anew, and the cache left as it was
    found = _load(tmp_path, ["s"], writable=False)
    assert found["s"].outputs[0].spec.output_pattern == "articles/t-*.md"
    assert cache.read_bytes() == before


# --- word floors, branches, placeholders ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "skill", "floor", "quote"),
    [
        (FUN, "article", 600, "600-800 word"),  # "Write a 600-800 word article"
        (
            FUN,
            "research-brief",
            600,
            "600-1000 words",
        ),  # a heading: "Write the brief (600-1000 words)"
        (MIRO, "token-movers", 0, None),  # "[≤18 words, …]" bounds one line, not the report
        (MIRO, "holdings", 0, None),
    ],
)
def test_word_floor_is_for_the_whole_output_only(
    name: str, skill: str, floor: int, quote: str | None
) -> None:
    doc = read_skill_doc(_root(name), skill)
    assert doc is not None
    first = infer_contract(doc).outputs[0]
    assert first.spec.min_words == floor
    assert [ev.quote for el, ev in first.evidence if el == "min_words"] == (
        [quote] if quote else []
    )


def test_outputs_selected_by_var_keep_their_condition() -> None:
    doc = read_skill_doc(_root(MIRO), "token-movers")
    assert doc is not None
    outputs = infer_contract(doc).outputs
    # the single-token branch may end early ("No-op when unconfigured", SKILL.md:430) with only
    # its log entry: the entry counts for that branch too
    assert [(o.spec.output_pattern, o.spec.section, o.condition) for o in outputs] == [
        ("output/articles/token-report-*.md", None, "mode=single-token"),
        ("memory/logs/*.md", "### token-movers", "mode=movers | mode=single-token"),
    ]
    doc = read_skill_doc(_root(FUN), "fleet-control")
    assert doc is not None
    outputs = infer_contract(doc).outputs
    assert [(o.spec.output_pattern, o.condition) for o in outputs] == [
        ("articles/fleet-status-*.md", "mode=status"),
        ("memory/logs/*.md", None),  # the pre-flight logs in every mode
    ]
    assert outputs[1].spec.section == "## fleet-control"


def test_inputs_are_never_outputs() -> None:
    text = (
        "Read the last 2 days of `memory/logs/`.\n"
        "Pick the latest `output/articles/token-report-*.md` and compare.\n"
        "Latest `articles/digest-${today}.md` from yesterday.\n"
        "Append to `memory/logs/${today}.md`:\n\n```\n### heartbeat\n- ok\n```\n"
    )
    c = _contract(text, "heartbeat")
    assert [(o.spec.output_pattern, o.spec.section) for o in c.outputs] == [
        ("memory/logs/*.md", "### heartbeat")
    ]
    assert c.source == "SKILL.md:4"


def test_skeleton_placeholders_are_forbidden_as_written_and_compile() -> None:
    text = (
        "Tags: **[BREAKOUT]** means a sustained move.\n\n"
        "Save to `articles/s-${today}.md`:\n\n```markdown\n# S — ${today}\n\n"
        "**Verdict:** [LABEL] — [≤18 words, citing the numbers]\n\n## Summary\n"
        "{one_line_most_important_change}\n- [item]\n- X [BREAKOUT] [ok|fail]\n- [link](url) [ ] "
        "[1]\n```\n"
    )
    out = _contract(text).outputs[0]
    forbidden = dict(
        (el.removeprefix("forbidden:"), ev.quote)
        for el, ev in out.evidence
        if el.startswith("forbidden:")
    )
    assert sorted(forbidden.values()) == sorted(
        [
            "${today}",
            "[LABEL]",
            "[≤18 words, citing the numbers]",
            "{one_line_most_important_change}",
            "[ok|fail]",
        ]
    )
    assert out.spec.required_headings == ("## Summary",)
    legit = (
        b"# S - 2026-05-02\n**Verdict:** BREAKOUT [BREAKOUT] ok\n## Summary\n- [x] done [1] "
        b"`${today}`\n"
    )
    for pattern in out.spec.forbidden_patterns:
        assert compile_pattern(pattern).search(legit) is None, pattern
    for placeholder in forbidden.values():
        assert any(
            compile_pattern(p).search(f"a {placeholder} b".encode())
            for p in out.spec.forbidden_patterns
        )


# --- audit, stubs, init, bootstrap, `aeon-evals contracts` ----------------------------------------


def _copy_instance(name: str, dest: Path) -> Path:
    """A real instance copied (SKILL.md files, aeon.yml, evals.json: what these commands read)."""
    src = _root(name)
    dest.mkdir(parents=True)
    shutil.copyfile(src / "aeon.yml", dest / "aeon.yml")
    for folder in (src / "skills").iterdir():
        for f in folder.iterdir():
            if f.name in ("SKILL.md", "evals.json"):
                (dest / "skills" / folder.name).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest / "skills" / folder.name / f.name)
    return dest


def _files(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file's size, mtime and hash, without holding a 50 MB file in this process's memory
    (a later test measures a child process's peak memory, which starts from this one's)."""
    found: dict[str, tuple[int, int, str]] = {}
    for p in root.rglob("*"):
        if p.is_file():
            info = p.stat()
            digest = hashlib.sha256()
            with open(p, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    digest.update(chunk)
            found[p.relative_to(root).as_posix()] = (
                info.st_size,
                info.st_mtime_ns,
                digest.hexdigest(),
            )
    return found


def test_contracts_command_shows_the_evidence_and_writes_nothing(tmp_path: Path, cli: Cli) -> None:
    root = _copy_instance(FUN, tmp_path / "i")
    before = _files(root)
    code, out, err = cli("contracts", "token-pick", "changelog", "--root", str(root))
    assert code == 0, err
    assert out.splitlines()[:4] == [
        "changelog  (enabled · overridden by its skills/skill-evals/evals.json entry)",
        "  output  articles/changelog-*.md",
        "    output     SKILL.md:104   Save to `articles/changelog-${today}.md`:",
        "    forbidden  SKILL.md:107   ${today}",
    ]
    assert "token-pick  (enabled)\n  output  memory/logs/*.md  section '## Token Pick'" in out
    assert _files(root) == before  # no cache, nothing written
    code, out, err = cli("contracts", "--json", "--root", str(root))
    data = json.loads(out)["skills"]
    assert code == 0 and len(data) == 113
    assert data["changelog"]["overridden_by"] == "skills/skill-evals/evals.json"
    assert data["token-pick"]["overridden_by"] is None and data["token-pick"]["enabled"]
    assert data["token-pick"]["outputs"][0]["spec"]["section"] == "## Token Pick"
    code, _, err = cli("contracts", "no-such-skill", "--root", str(root))
    assert (
        code == 2
        and err == "aeon-evals: 'no-such-skill': no such skill (no skills/no-such-skill/ folder)\n"
    )
    code, _, err = cli("contracts", "--root", str(tmp_path))
    assert code == 2 and "aeon.yml: not found (looked for aeon.yml" in err


def test_contracts_command_names_a_skill_without_a_contract_and_why(
    instance: Instance, cli: Cli
) -> None:
    instance.aeon_yml({})
    instance.write("skills/a/SKILL.md", "Send a note through ./notify.\n")
    instance.write("skills/b/SKILL.md", b"\x00\x01binary")
    code, out, err = cli("contracts", "--root", str(instance.root))
    assert code == 0
    assert out.splitlines() == [
        "a  (not enabled)",
        "  no contract: SKILL.md names no output it writes",
        "  outcomes  0 status tokens · noop_fail_after 7 runs (default)",
        "    (the SKILL.md names no status token: a run is read by its status lines)",
        "",
        "b  (not enabled)",
        "  no contract: binary file (NUL bytes); not read as a SKILL.md",
    ]
    assert err == "warning: skills/b/SKILL.md: binary file (NUL bytes); not read as a SKILL.md\n"


def test_audit_shows_each_enabled_skills_contract_source(tmp_path: Path, cli: Cli) -> None:
    root = _copy_instance(MIRO, tmp_path / "i")
    before = _files(root)
    code, out, _ = cli("audit", "--root", str(root))
    assert code == 0 and _files(root) == before
    # no evals.json, no skill-evals registered: the contracts are the coverage (issue #33.3)
    assert out.startswith("Coverage: 7/9 enabled skills have an output contract")
    assert (
        "  - token-movers                   output/articles/token-report-*.md  ← SKILL.md:536"
        in out
    )
    # `scorable: false`: listed apart, never as a gap to add a spec for (issue: the heading
    # "add an evals.json entry" listed it, marked "(scorable: false)")
    assert "\nListed, not scored (2) — enabled, `scorable: false` in their SKILL.md" in out
    # the write under its `## Log` step, not the one under "If something needs attention:"
    assert "  - heartbeat                      memory/logs/*.md  ← SKILL.md:306\n" in out
    assert "  - heartbeat " not in out.split("Listed, not scored")[0]
    assert "Judged on their SKILL.md contract (7)" in out
    assert out.splitlines()[2].startswith("Contracts: 9 enabled skills have an output contract")
    code, out, _ = cli("audit", "--json", "--root", str(root))
    data = json.loads(out)
    assert {g["skill"]: g["inferred_pattern"] for g in data["uncovered_enabled"]}["holdings"] == (
        "output/articles/holdings-*.md"
    )
    assert data["contracts"]["token-movers"] == {
        "spec_source": "SKILL.md",
        "contract_source": "SKILL.md:536",
        "output_pattern": "output/articles/token-report-*.md",
        "section": None,
        "condition": "mode=single-token",
        "scorable": True,
        "reason": None,
    }
    root = _copy_instance(FUN, tmp_path / "f")
    code, out, _ = cli("audit", "--json", "--root", str(root))
    rows = json.loads(out)["contracts"]
    # 97 enabled skills, less the LLM-run skill-evals itself, which is no gap (issue 14)
    assert len(rows) == 96 and rows["changelog"]["spec_source"] == "evals.json"
    assert "skill-evals" not in rows


def test_stubs_come_from_the_contract_with_their_evidence(tmp_path: Path, cli: Cli) -> None:
    root = _copy_instance(MIRO, tmp_path / "i")
    code, out, _ = cli("audit", "--stubs", "--root", str(root))
    starters = json.loads(out)
    assert code == 0 and sorted(starters) == [
        "aeon-update",
        "changelog",
        "fetch-tweets",
        "holdings",
        "repo-pulse",
        "shiplog",
        "token-movers",
    ]  # heartbeat and memory-flush say `scorable: false`
    assert starters["token-movers"] == {
        "_from": "SKILL.md:536",
        "_when": "mode=single-token",
        "_other_branches": ["mode=movers | mode=single-token: memory/logs/*.md (SKILL.md:168)"],
        "output_pattern": "output/articles/token-report-*.md",
        "required_headings": ["## 24h at a glance", "## Trend", "## What changed"],
        "forbidden_patterns": starters["token-movers"]["forbidden_patterns"],
    }
    assert starters["repo-pulse"]["section"] == "## Repo Pulse"
    assert starters["repo-pulse"]["_from"] == "SKILL.md:171"
    manifest = parse_manifest({"version": "1", "skills": starters})
    assert not manifest.spec_errors
    assert not [p for p in manifest.problems if "_from" in p.where or "_when" in p.where]


def test_starters_drafted_the_first_branch_while_the_run_evaluated_the_newest(
    tmp_path: Path, cli: Cli
) -> None:
    """A starter committed as drafted must check what the run checked before it: the branch
    whose newest output is newest, not the first the SKILL.md names."""
    root = Path(shutil.copytree(_root(FUN), tmp_path / "f"))  # with its outputs
    code, out, err = cli("audit", "--stubs", "--root", str(root))
    assert code == 0, err
    starters = json.loads(out)
    code, out, err = cli(
        "run", "--root", str(root), "--now", "2026-05-03T18:00:00Z", "--dry-run", "--json",
        "--no-site", "--no-notify",
    )  # fmt: skip
    evaluated = {row["skill"]: row["spec_source"] for row in json.loads(out)["skills"]}
    drafted = {s: spec["_from"] for s, spec in starters.items() if "_from" in spec}
    assert len(drafted) >= 80 and drafted == {s: evaluated[s] for s in drafted}
    # ... and that is not always the first branch the SKILL.md names (what starters drafted)
    code, out, err = cli("contracts", "--json", "--root", str(root))
    first = {s: c["source"] for s, c in json.loads(out)["skills"].items()}
    assert {s for s in drafted if drafted[s] != first[s]}
    assert all(
        len(starters[s].get("_other_branches", ())) >= 1 for s in drafted if drafted[s] != first[s]
    )


def test_init_and_the_bootstrap_write_starters_from_the_contracts(tmp_path: Path, cli: Cli) -> None:
    root = _copy_instance(MIRO, tmp_path / "i")
    code, _, err = cli("init", "--root", str(root), "--package", "aeon-evals")
    assert code == 0, err
    starter = json.loads((root / EVALS_PATH).read_text())
    assert starter["skills"]["holdings"]["_from"] == "SKILL.md:144"
    assert "SKILL.md" in starter["description"]
    # the bootstrap (an instance registering skill-evals without evals.json) drafts the same
    boot = _copy_instance(MIRO, tmp_path / "b")
    config = boot / "aeon.yml"
    config.write_text(
        config.read_text().replace(
            "\nskills:\n", "\nskills:\n  skill-evals: { enabled: false }\n", 1
        )
    )
    code, _, err = cli(
        "run", "--root", str(boot), "--no-notify", "--no-site", "--now", "2026-08-22T18:00:00Z"
    )
    assert code == 3, err
    assert json.loads((boot / EVALS_PATH).read_text())["skills"] == starter["skills"]


def test_every_bad_skill_md_is_one_warning_line_and_no_contract(
    instance: Instance, cli: Cli, tmp_path: Path
) -> None:
    instance.aeon_yml(
        {s: (True, "0 7 * * *") for s in ("bin", "big", "fifo", "fence", "up", "abs", "out", "ok")}
    )
    instance.write("skills/bin/SKILL.md", b"Save to `articles/bin-${today}.md`.\x00\xff")
    big = instance.write("skills/big/SKILL.md", "Save to `articles/big-${today}.md`.\n")
    with open(big, "r+b") as fh:
        fh.truncate(50 << 20)
    (instance.root / "skills/fifo").mkdir()
    os.mkfifo(instance.root / "skills/fifo/SKILL.md")
    instance.write(
        "skills/fence/SKILL.md",
        "Save to `articles/fence-${today}.md`:\n\n```markdown\n## Summary\n",
    )
    instance.write("skills/up/SKILL.md", "Write the report to `../articles/up-${today}.md`.\n")
    instance.write("skills/abs/SKILL.md", "Save the digest to `/srv/abs-report.md`.\n")
    (tmp_path / "elsewhere.md").write_text("Save to `articles/out-${today}.md`.\n")
    (instance.root / "skills/out").mkdir()
    (instance.root / "skills/out/SKILL.md").symlink_to(tmp_path / "elsewhere.md")
    instance.write("skills/ok/SKILL.md", "Save to `articles/ok-${today}.md`.\n")
    before = _files(instance.root)
    code, out, err = cli("contracts", "--root", str(instance.root))
    assert code == 0
    warnings = err.splitlines()
    # `file:line: warning:` where the finding has a line, as validate prints it, else `warning:`
    form = re.compile(r"(warning: skills/|skills/[^:]+/SKILL\.md:\d+: warning: )")
    assert len(warnings) == 7 and all(form.match(w) for w in warnings), warnings
    assert {w.split("/")[1] for w in warnings} == {
        "bin",
        "big",
        "fifo",
        "fence",
        "up",
        "abs",
        "out",
    }
    assert out.count("  no contract: ") == 7 and "ok  (enabled)\n  output  articles/ok-*.md" in out
    code, out, err = cli("audit", "--stubs", "--root", str(instance.root))
    assert code == 0 and json.loads(out)["ok"]["_from"] == "SKILL.md:1"
    assert "_from" not in json.loads(out)["up"]  # no contract: the placeholder stub
    assert _files(instance.root) == before


def _enabled_contracts(name: str) -> dict[str, Contract]:
    from aeon_evals.load.registry import load_registry

    root = _root(name)
    return {
        s: infer_contract(doc)
        for s in sorted(load_registry(root).enabled())
        if (doc := read_skill_doc(root, s)) is not None
    }


def _violations(root: Path, contract: Contract) -> list[str] | None:
    """None when no real output matches any of the contract's outputs, else what the newest one
    that exists breaks (the first output with a real file, in the contract's order)."""
    newest = [
        (o, found)
        for o in contract.outputs
        if (found := _newest(root, o.spec.output_pattern, o.spec.section))
    ]
    if not newest:
        return None
    output, (_, body) = max(newest, key=lambda item: str(name_date(item[1][0]) or ""))
    present = _headings(body)
    broken = [
        f"missing_heading:{h}"
        for h in output.spec.required_headings
        if not any(p.startswith(_norm(h)) for p in present)
    ]
    if len(body.split()) < output.spec.min_words:
        broken.append("word_count")
    broken += [
        f"forbidden:{p}"
        for p in output.spec.forbidden_patterns
        if compile_pattern(p).search(body.encode())
    ]
    return broken


@pytest.mark.parametrize(
    ("name", "enabled", "matched", "violating"),
    [
        # aeonfun: workflow-security-audit's only report on main is from 2026-04-11, written before
        # the current template; the 2026-04-27 one went to a PR branch (a real problem, not ours)
        # fork-fleet: "### 9. Write the article — To `articles/fork-fleet-${today}.md`" and no
        # such article on main (the operator's own evals.json entry says NO_OUTPUT too)
        (FUN, 97, 76, {"workflow-security-audit"}),
        (MIRO, 9, 8, set()),  # aeon-update: enabled 2026-08-18, first run due 2026-08-24
    ],
)
def test_every_enabled_real_skill_has_a_contract_its_real_output_meets(
    name: str, enabled: int, matched: int, violating: set[str]
) -> None:
    contracts = _enabled_contracts(name)
    assert len(contracts) == enabled and all(c.outputs for c in contracts.values())
    results = {s: _violations(_root(name), c) for s, c in contracts.items()}
    assert sum(r is not None for r in results.values()) == matched
    assert {s for s, r in results.items() if r} == violating


def test_audit_fallback_heuristic_hung_on_a_fifo_skill_md(tmp_path: Path) -> None:
    """The older path heuristic opened SKILL.md with a blocking open(): a FIFO hung the audit."""
    from aeon_evals.contracts import audit
    from aeon_evals.load.registry import parse_registry

    (tmp_path / "skills/f").mkdir(parents=True)
    os.mkfifo(tmp_path / "skills/f/SKILL.md")
    assert audit.infer_pattern(tmp_path, "f") == ""
    found = audit.audit(tmp_path, set(), parse_registry("skills:\n  f: { enabled: true }\n"))
    assert found.uncovered_enabled == (audit.Gap("f", ""),)

"""Today's Aeon evaluates on the first run (issue #33.3): no evals.json and no skill-evals in the
config, every enabled skill is judged on its SKILL.md contract; the seeded layout (skill-evals
registered, no evals.json) still writes starter specs and exits 3."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from realdata import (
    AEONFUN,
    AEONFUN_NOW,
    MIROSHARK,
    MIROSHARK_NOW,
    SKOPOS,
    SKOPOS_NOW,
    whole_instance,
)

Cli = Callable[..., tuple[int, str, str]]
NOTICE = "no skills/skill-evals/evals.json: every enabled skill is judged on its SKILL.md contract"


@pytest.mark.parametrize(
    ("name", "now", "coverage"),
    [
        (MIROSHARK, MIROSHARK_NOW, "7/9 (77.8%) by SKILL.md contracts; 2 not scorable"),
        (SKOPOS, SKOPOS_NOW, "11/11 (100%) by SKILL.md contracts"),
    ],
)
def test_upstream_aeon_without_evals_json_was_bootstrapped_instead_of_evaluated(
    tmp_path: Path, cli: Cli, name: str, now: str, coverage: str
) -> None:
    """Regression: `run` on miroshark (no evals.json, as upstream since July) wrote starter specs
    and exited 3 without evaluating anything, although all its skills have contracts; `audit`
    headlined "Coverage: 0/9 (0%)"."""
    root = whole_instance(name, tmp_path / "inst")
    day = now[:10]
    code, out, err = cli(
        "run", "--root", str(root), "--now", now, "--no-site", "--no-notify", "--json"
    )
    assert code == 0, err
    assert not (root / "skills/skill-evals/evals.json").exists()  # nothing written for it
    result = json.loads(out)
    assert result["verdict"] != "SKILL_EVALS_BOOTSTRAP"
    article = (root / f"output/articles/skill-evals-{day}.md").read_text()
    assert f"**Coverage:** {coverage} (first run)" in article
    assert "evals.json=none (SKILL.md contracts)" in article
    assert err.count(NOTICE) == 1  # told once, on the console, never in the article
    assert NOTICE not in article
    # the next run is no first run: nothing more to say
    code, _, err = cli("run", "--root", str(root), "--now", now, "--no-site", "--no-notify")
    assert code == 0, err
    assert NOTICE not in err

    code, out, _ = cli("audit", "--root", str(root))
    assert code == 0
    covered, enabled = coverage.split(" ")[0].split("/")
    assert out.startswith(f"Coverage: {covered}/{enabled} enabled skills have an output contract")


def test_the_seeded_layout_still_bootstraps_without_evals_json(tmp_path: Path, cli: Cli) -> None:
    """aeonfun registers the LLM-run skill-evals (the layout its skill seeded): without its
    evals.json the run writes starter specs and exits 3, as before."""
    root = whole_instance(AEONFUN, tmp_path / "aeonfun")
    (root / "skills/skill-evals/evals.json").unlink()
    code, out, err = cli("run", "--root", str(root), "--now", AEONFUN_NOW, "--no-notify")
    assert code == 3, err
    assert "verdict: SKILL_EVALS_BOOTSTRAP" in out
    assert json.loads((root / "skills/skill-evals/evals.json").read_text())["skills"]

"""Remake docs/screenshots/: the demo's dashboard, a failing and a passing skill page, at a
laptop's 1400 px and a phone's 390 px, in headless Chromium from file://.

    python scripts/screenshots.py [--chromium /usr/bin/chromium] [--out docs/screenshots]

The demo is built in a temporary folder with its clock pinned, so the pictures change only when
the dashboard does. Each PNG is reduced to 256 colours with `pngquant` when it is installed
(`apt-get install pngquant`: a few times smaller; the pages use a handful of flat colours).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from aeon_evals.cli import main as aeon_evals

NOW = "2026-12-17T06:00:00Z"
PAGES = {
    "index": "index.html",
    "skill-failing": "skills/cost-report.html",
    "skill-passing": "skills/morning-brief.html",
}
WIDTHS = {"laptop": 1400, "phone": 390}
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def shoot(site: Path, out: Path, chromium: str) -> list[Path]:
    """Every page at every width, full length, light mode: the files written."""
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            for width_name, width in WIDTHS.items():
                context = browser.new_context(viewport={"width": width, "height": 900})
                page = context.new_page()
                for name, rel in PAGES.items():
                    page.goto((site / rel).as_uri(), wait_until="load")
                    path = out / f"{name}-{width_name}.png"
                    page.screenshot(path=str(path), full_page=True)
                    written.append(path)
                context.close()
        finally:
            browser.close()
    return written


def shrink(path: Path) -> None:
    """256 colours, no metadata, when `pngquant` is installed (else the PNG stays as it is)."""
    pngquant = shutil.which("pngquant")
    if pngquant is None:
        return
    subprocess.run(
        [
            pngquant,
            "--force",
            "--strip",
            "--skip-if-larger",
            "--output",
            str(path),
            "256",
            "--",
            str(path),
        ],
        check=False,  # 98 or 99: not made smaller, kept as it is
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        if aeon_evals(["demo", str(demo), "--now", NOW]) != 0:
            print("the demo run failed", file=sys.stderr)
            return 1
        for path in shoot(demo / "site", args.out, args.chromium):
            shrink(path)
            print(f"{path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The floor under a nightly run: how long the medium instance's unavoidable work takes when
nothing is computed. Never a test's pass or fail.

    python scripts/bench_floor.py                  # 1,000 skills, 7 runs, 16 KB pages
    python scripts/bench_floor.py --page-kib 57 --repeat 9

Each timed run is a child interpreter that starts, imports what `aeon-evals run` imports
(PyYAML, RE2, croniter, Jinja2, markdown-it, python-frontmatter), lists the article folder,
reads each skill's newest output and its SKILL.md, evals.json, aeon.yml, cron-state, the
issues and the previous article, then writes what a run writes each night: the article, the
metrics file, the day's issue files and INDEX.md, index.html and one page per skill (temp file
then rename, as the run does). It checks nothing and renders nothing, so the time it takes is a
lower bound for any implementation in Python on this machine; issue #20's 0.5 s minus this
floor is what is left for the checks, the diff, the issues, the article and 1,000 pages.

It runs on the benchmark's generated medium instance (scripts/bench.py's generator), on fresh
hard-linked copies, nothing deleted while measuring (see docs/benchmarks.md, "What is
measured"), next to `python -c pass` and a bare import of the same libraries.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (the generator and the measuring helpers)

IMPORTS = "import json, yaml, re2, croniter, jinja2, markdown_it, frontmatter"

# The child: what a night reads and writes, nothing computed. argv: root, page bytes, pages.
CHILD = (
    IMPORTS
    + r"""
import os, sys
root, size, pages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def read(path):
    with open(path, "rb") as fh:
        return fh.read()

def replace(path, data):
    folder, name = os.path.split(path)
    tmp = f"{folder}/.{name}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, path)

names = sorted(os.listdir(f"{root}/articles"))
newest = {}
for name in names:  # the newest dated output of each skill, by its file name
    if name.endswith(".md") and not name.startswith("skill-evals-"):
        newest[name[:-14]] = name
read_bytes = sum(len(read(f"{root}/articles/{n}")) for n in newest.values())
for skill in os.listdir(f"{root}/skills"):
    if os.path.isfile(f"{root}/skills/{skill}/SKILL.md"):
        read_bytes += len(read(f"{root}/skills/{skill}/SKILL.md"))
for rel in ("skills/skill-evals/evals.json", "aeon.yml", "memory/cron-state.json"):
    read_bytes += len(read(f"{root}/{rel}"))
issues = f"{root}/memory/issues"
for name in os.listdir(issues):
    read_bytes += len(read(f"{issues}/{name}"))
prior = max(n for n in names if n.startswith("skill-evals-"))
article = read(f"{root}/articles/{prior}")
replace(f"{root}/articles/skill-evals-tonight.md", article)
replace(f"{root}/articles/skill-evals-metrics-tonight.tsv", article[: len(article) // 2])
for i in range(54):  # a night of the medium instance files 54 issues and closes 24
    replace(f"{issues}/ISS-9{i:03d}.md", b"x" * 900)
replace(f"{issues}/INDEX.md", read(f"{issues}/INDEX.md"))
os.makedirs(f"{root}/site/skills", exist_ok=True)
replace(f"{root}/site/index.html", b"x" * (1 << 20))
page = b"x" * size
for i in range(pages):
    replace(f"{root}/site/skills/skill-{i:04d}.html", page)
print(f"read {read_bytes / 1e6:.1f} MB of {len(newest)} outputs …; wrote {pages} pages")
"""
)


def measure(cmd: list[str], repeat: int, template: Path | None, work: Path) -> list[float]:
    """Wall seconds of `cmd` (ROOT replaced by a fresh copy of `template`), `repeat` times."""
    walls = []
    for i in range(repeat):
        args = cmd
        if template is not None:
            copy = bench.fresh_copy(template, work / f"floor-{i}")
            args = [str(copy) if a == "ROOT" else a for a in cmd]
        wall, _, code, tail = bench.timed_child(args)
        if code != 0:
            raise SystemExit(f"{' '.join(args[:3])} … exited {code}:\n{tail}")
        walls.append(wall)
        if template is not None:
            bench.discard(copy)
    return walls


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--skills", type=int, default=1000, help="skills N (default 1000)")
    p.add_argument("--repeat", type=int, default=7, help="timed runs of each row (default 7)")
    p.add_argument(
        "--page-kib", type=float, default=16, help="bytes of each skill page, KiB (default 16)"
    )
    p.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    p.add_argument(
        "--no-wait",
        action="store_true",
        help="measure at once after a benchmark's recent removal (see bench.py --no-wait)",
    )
    args = p.parse_args(argv)
    bench.settle(Path(args.workdir or tempfile.gettempdir()), wait=not args.no_wait)
    work = Path(tempfile.mkdtemp(prefix="aeon-floor-", dir=args.workdir))
    bench._TRASH.append(work / "trash")
    try:
        template = work / "instance"
        bench.generate(template, bench.Config(skills=args.skills))
        pages = args.skills + args.skills // 100  # a page per skill, as the medium run writes
        size = int(args.page_kib * 1024)
        rows = [
            ("`python -c pass`", [sys.executable, "-c", "pass"], None),
            (f"`python -c '{IMPORTS}'`", [sys.executable, "-c", IMPORTS], None),
            (
                f"floor: the imports, the reads, the writes ({pages:,} pages of "
                f"{args.page_kib:g} KiB)",
                [sys.executable, "-c", CHILD, "ROOT", str(size), str(pages)],
                template,
            ),
        ]
        shown = " ".join(sys.argv[1:] if argv is None else argv)
        print(f"{bench.machine()}\ncommand: python scripts/bench_floor.py {shown}")
        print("| what | median s | min–max s |\n|---|---:|---:|")
        for label, cmd, tpl in rows:
            walls = measure(cmd, args.repeat, tpl, work)
            print(
                f"| {label} | {statistics.median(walls):.3f} | {min(walls):.3f}–{max(walls):.3f} |",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
        bench.specs_tsv(work / "instance").unlink(missing_ok=True)
        bench.removed()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark `aeon-evals lint` on a generated catalog (issue 19); never a test's pass or fail.

    python scripts/bench_lint.py                  # 2,000 skills, 5 runs
    python scripts/bench_lint.py --skills 5000 --repeat 3
    python scripts/bench_lint.py --profile 25     # also a cProfile top-25 of one in-process run

The catalog is written to a temporary folder: SKILL.md files in the Agent Skills form whose
descriptions are drawn (seeded, Zipf-weighted) from common catalog words and 4,000 made-up ones,
each with an
output line, a tenth with a line budget overrun, a few near-twins that collide, every skill in
aeon.yml, and trigger cases for one skill in ten. The real CLI runs as a subprocess; the wall
time of each run and the median are printed, with the finding counts of the last run.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEED = 19
_VOCABULARY = (
    "monitor track watch digest summarize report alert scan pick rank review triage fetch post "
    "tweet article paper research token price market volume wallet chain defi yield protocol "
    "github repo pull request issue release commit changelog feed rss news headline topic daily "
    "weekly morning evening brief recap thread channel telegram discord farcaster reddit hacker "
    "security vulnerability audit workflow skill fleet agent memory log health score quality cost "
    "budget spend deploy vercel prototype build search crawl scrape page site map link url"
)
VOCABULARY = _VOCABULARY.split()


def vocabulary(rng: random.Random, size: int = 4000) -> tuple[list[str], list[float]]:
    """Common catalog words first, then made-up ones, with Zipf weights as in real text."""
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "qu", "dra", "plo"]
    words = list(VOCABULARY)
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    # Stop words are not in the list: the commonest content word is in about a fifth of the
    # descriptions, as in real catalogs (aeonfun: "daily", "monitor").
    return words, [1 / (rank + 10) for rank in range(len(words))]


def write_catalog(root: Path, n: int) -> None:
    """`n` skills under root/skills, aeon.yml, and trigger cases for every tenth skill."""
    rng = random.Random(SEED)
    words_of, weights = vocabulary(rng)
    entries = []
    previous_words: list[str] = []
    for i in range(n):
        name = f"{rng.choice(VOCABULARY)}-{rng.choice(VOCABULARY)}-{i:05d}"
        words = rng.choices(words_of, weights, k=14)
        if i % 97 == 1:  # a near-twin of the previous skill: a collision
            words = [*previous_words[:13], rng.choice(VOCABULARY)]
        description = " ".join(words).capitalize() + "."
        body = f"Read memory/MEMORY.md.\n\nSave to `articles/{name}-${{today}}.md`:\n"
        if i % 10 == 3:
            body += "step\n" * 520
        folder = root / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n"
            f"metadata:\n  category: basics\n---\n{body}",
            encoding="utf-8",
        )
        if i % 10 == 0:
            (folder / "evals").mkdir()
            (folder / "evals" / "trigger.json").write_text(
                json.dumps(
                    {
                        "positive": [{"prompt": " ".join(words[:4]), "top_k": 3}],
                        "negative": [{"prompt": " ".join(rng.sample(VOCABULARY, 4))}],
                    }
                ),
                encoding="utf-8",
            )
        entries.append(f'  {name}: {{ enabled: true, schedule: "0 {i % 24} * * *" }}')
        previous_words = words
    (root / "aeon.yml").write_text("skills:\n" + "\n".join(entries) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", type=int, metavar="N", help="print a cProfile top-N")
    args = parser.parse_args()
    exe = Path(sys.executable).with_name("aeon-evals")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "aeon_evals"]
    with tempfile.TemporaryDirectory(prefix="aeon-evals-lint-bench-") as tmp:
        root = Path(tmp)
        write_catalog(root, args.skills)
        times = []
        cpu = []
        out = ""
        for _ in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(
                [*command, "lint", "--root", str(root)], capture_output=True, text=True
            )
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            out = proc.stdout
            if proc.returncode not in (0, 1):
                print(proc.stderr, file=sys.stderr)
                return 1
        print(f"lint of {args.skills} skills, {args.repeat} runs (wall, seconds):")
        print("  " + "  ".join(f"{t:.3f}" for t in times))
        print(
            f"  median {statistics.median(times):.3f}  min {min(times):.3f}  max {max(times):.3f}"
        )
        print(
            f"  CPU (user + system) median {statistics.median(cpu):.3f}: "
            "the wall time on an idle machine"
        )
        print("  " + out.splitlines()[-1])
        if args.profile:
            from aeon_evals.catalog.lint import check_catalog, load_catalog

            profiler = cProfile.Profile()
            profiler.enable()
            check_catalog(load_catalog(root))
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())

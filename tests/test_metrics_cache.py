"""The metric history read incrementally through `.aeon-evals/cache/history.bin` (#18 point 5):
whatever happens to the files between runs, the history is the one a cold read gives."""

from __future__ import annotations

import functools
import os
import random
import shutil
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest
from caches import saved
from conftest import Instance
from realdata import realdata

from aeon_evals.articles.parse import read_article
from aeon_evals.cache.folder import Cache
from aeon_evals.metrics import binary as history_bin
from aeon_evals.metrics import columns
from aeon_evals.metrics import history as metrics
from aeon_evals.metrics import read as metrics_read
from aeon_evals.metrics import samples as samples_mod
from aeon_evals.metrics.history import History, Sample, render_tsv
from aeon_evals.model import ParsedArticle, Status, drift

Cli = Callable[..., tuple[int, str, str]]
FIRST = date(2026, 1, 5)
CACHE = Path(".aeon-evals/cache") / history_bin.CACHE_NAME
SKILLS = ("alpha", "beta", "gamma", "delta")


def _sample(rng: random.Random, day: date, skill: str) -> Sample:
    """A sample with the awkward cases: repeated outputs, missing SHA-256s and values."""
    output = rng.choice([f"articles/{skill}-{day}.md", f"memory/topics/{skill}.md", None])
    return Sample(
        day,
        rng.choice([*Status, None]),
        words=rng.choice([None, rng.randrange(0, 900)]),
        bytes=rng.choice([None, rng.randrange(0, 9000)]),
        age_days=rng.choice([None, round(rng.random() * 3, 3)]),
        quality=rng.choice([None, 4.0, 2.5]),
        output=output,
        sha256=rng.choice([None, "ab" * 32, f"{rng.randrange(4):064x}"]) if output else None,
        cause=rng.choice(["", "word_count", "missing_pattern:a\tb; drift:words"]),
        numeric=rng.choice(
            [(), (("dollars", float(rng.randrange(3))),), (("n", 1.5), ("z", -2.0))]
        ),
    )


def _metrics_file(root: Path, day: date, rng: random.Random) -> None:
    skills = rng.sample(SKILLS, rng.randrange(1, len(SKILLS) + 1))
    text = render_tsv([(skill, _sample(rng, day, skill)) for skill in skills])
    (root / f"articles/skill-evals-metrics-{day}.tsv").write_text(text)


def _real_articles(root: Path) -> list[Path]:
    """The 12 real anajuliabit skill-evals articles, under their own names."""
    src = realdata() / "anajuliabit__aeon" / "articles"
    out = []
    for path in sorted(src.glob("skill-evals-*")):
        name = path.name.split("@")[0]
        if name.endswith(".md"):
            out.append(Path(shutil.copy(path, root / "articles" / name)))
    return out


def _articles(root: Path) -> list[tuple[date, Path]]:
    found = []
    for path in sorted((root / "articles").glob("skill-evals-2*.md")):
        found.append((date.fromisoformat(path.name[len("skill-evals-") : -3]), path))
    return found


def _load(root: Path, *, before: date | None = None, writable: bool = True) -> History:
    return saved(
        lambda cache: metrics_read.load_history(
            root,
            dirs=["articles"],
            articles=_articles(root),
            read_article=lambda p: read_article(p, root=root),
            health={"alpha": [(FIRST, 4.0)]},
            before=before,
            cache=cache,
        ),
        root,
        writable=writable,
    )


def _cold(root: Path, *, before: date | None = None) -> History:
    """What load_history gives with no history cache (moved aside, then put back)."""
    cache = root / CACHE
    aside = root / "aside.bin"
    if cache.exists():
        cache.rename(aside)
    try:
        return _load(root, before=before, writable=False)
    finally:
        if aside.exists():
            aside.rename(cache)


def _same(got: History, want: History) -> None:
    assert list(got.samples) == list(want.samples)  # the skills, in the order first seen
    assert {k: list(v) for k, v in got.samples.items()} == {
        k: list(v) for k, v in want.samples.items()
    }
    assert got.warnings == want.warnings
    assert got.scores == want.scores
    for skill in want.samples:
        for metric in ("words", "bytes", "age_days", "quality", "dollars", "n", "score"):
            assert got.series(skill, metric) == want.series(skill, metric)


def test_history_through_the_cache_is_the_cold_read_after_edits_deletions_and_additions(
    tmp_path: Path,
) -> None:
    root = tmp_path
    (root / "articles").mkdir()
    rng = random.Random(18)
    articles = _real_articles(root)
    assert len(articles) == 12
    last = max(day for day, _ in _articles(root))
    days = [last + timedelta(days=i) for i in range(1, 9)]
    for day in days[:4]:
        _metrics_file(root, day, rng)
    (root / f"articles/skill-evals-metrics-{days[1]}.tsv").write_text("# aeon-evals metrics v9\n")

    def check(before: date | None = None) -> History:
        got = _load(root, before=before)
        _same(got, _cold(root, before=before))
        return got

    first = check()
    assert (root / CACHE).is_file()
    assert (root / CACHE).with_name(".gitignore").read_text() == "*\n"  # never committed
    assert first.warnings and "format v9" in first.warnings[0]
    check()  # unchanged: all from the cache, the warning again
    _metrics_file(root, days[4], rng)  # tonight's run: appended
    check()
    _metrics_file(root, days[5], rng)
    _metrics_file(root, days[6], rng)
    check()
    check(before=days[5])  # a run of an earlier day: the cached history cut
    check()
    _metrics_file(root, days[2], rng)  # a metrics file edited
    check()
    (root / f"articles/skill-evals-metrics-{days[3]}.tsv").unlink()  # one deleted
    check()
    articles[3].write_text(articles[3].read_text().replace("PASS", "FAIL", 3))  # an article edited
    check()
    articles[5].unlink()  # an article deleted
    check()
    _metrics_file(root, date.fromisoformat(articles[7].name[12:22]), rng)  # replaces its article
    check()
    shutil.copy(articles[0], root / f"articles/skill-evals-{days[7]}.md")  # a newer article
    check()
    (root / f"articles/skill-evals-metrics-{days[1]}.tsv").write_text("")  # the bad one, still bad
    check()


def test_only_new_sources_are_read_and_a_moved_stamp_over_the_same_bytes_is_trusted(
    tmp_path: Path,
) -> None:
    """The cache reads only the sources it has not seen: an article it holds is not parsed
    again, also when every file got a new inode and times with the same bytes (a fresh checkout
    with the cache restored, as the GitHub workflow runs: stamps alone rebuilt it every night);
    an edit that puts the mtime back (`touch -r`) is still seen (its ctime moved)."""
    root = tmp_path
    (root / "articles").mkdir()
    _real_articles(root)
    read: list[str] = []

    def reader(path: Path) -> ParsedArticle:
        read.append(path.name)
        return read_article(path, root=root)

    def load() -> History:
        return saved(
            lambda cache: metrics_read.load_history(
                root,
                dirs=["articles"],
                articles=_articles(root),
                read_article=reader,
                health={},
                cache=cache,
            ),
            root,
        )

    load()
    read.clear()
    load()
    assert read == []
    last = max(day for day, _ in _articles(root))
    newer = last + timedelta(days=1)
    path = root / f"articles/skill-evals-metrics-{newer}.tsv"
    path.write_text(render_tsv([(s, Sample(newer, Status.PASS, words=9)) for s in SKILLS]))
    shutil.copy(_articles(root)[0][1], root / f"articles/skill-evals-{newer + timedelta(1)}.md")
    load()
    assert read == [f"skill-evals-{newer + timedelta(1)}.md"]
    # a checkout: every file a new inode and new times, the same bytes
    for file in sorted((root / "articles").iterdir()):
        copy = file.with_name(file.name + ".new")
        shutil.copyfile(file, copy)
        os.replace(copy, file)
    read.clear()
    warm = load()
    assert read == []  # not parsed again: the digests matched
    cold = _cold(root)
    assert {s: list(warm.samples[s]) for s in warm.samples} == {
        s: list(cold.samples[s]) for s in cold.samples
    }
    stat = path.stat()
    path.write_text(path.read_text().replace("\tPASS\t", "\tFAIL\t"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert load().samples["alpha"][-1].status is Status.FAIL  # the edit is seen, as cold
    assert _cold(root).samples["alpha"][-1].status is Status.FAIL


def test_a_restored_cache_is_trusted_when_its_article_cache_is_bigger_than_a_source_may_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh checkout with the cache folder restored (every file, metrics.json and
    history.bin included, a new inode and times) reuses the history when the bytes are the
    same. metrics.json is hashed up to the cache's cap, not a source's: at 4,000 skills it
    holds 70 MB, over the 64 MB a metrics file may have, and the history was rebuilt from 200
    articles every night (3.6 s of a 7 s run)."""
    root = tmp_path
    (root / "articles").mkdir()
    _real_articles(root)
    read: list[str] = []

    def load() -> History:
        def reader(path: Path) -> ParsedArticle:
            read.append(path.name)
            return read_article(path, root=root)

        return saved(
            lambda cache: metrics_read.load_history(
                root,
                dirs=["articles"],
                articles=_articles(root),
                read_article=reader,
                health={},
                cache=cache,
            ),
            root,
        )

    load()
    cache_dir = root / CACHE.parent
    derived = cache_dir / "metrics.json"
    biggest_source = max(p.stat().st_size for p in (root / "articles").iterdir())
    assert derived.stat().st_size > biggest_source + 1
    # a source may hold no more than this; the per-article cache holds more
    monkeypatch.setattr(metrics_read, "FILE_CAP", biggest_source + 1)
    for file in sorted([*(root / "articles").iterdir(), *cache_dir.iterdir()]):
        if file.is_file():
            copy = file.with_name(file.name + ".new")
            shutil.copyfile(file, copy)
            os.replace(copy, file)
    read.clear()
    warm = load()
    assert read == []  # nothing parsed again: the history came from history.bin
    cold = _cold(root)
    assert {s: list(warm.samples[s]) for s in warm.samples} == {
        s: list(cold.samples[s]) for s in cold.samples
    }


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # truncated
        lambda raw: b"not a cache at all",
        lambda raw: raw.replace(b'"version":4', b'"version":7', 1),  # another version
        lambda raw: raw[:-40] + b"\xff" * 40,  # the columns' bytes damaged
        lambda raw: raw[:-100] + bytes([raw[-100] ^ 1]) + raw[-99:],  # one bit of a value flipped
        lambda raw: raw.replace(b'"code":"', b'"code":"x', 1),  # written by other code
    ],
)
def test_a_damaged_or_foreign_cache_is_ignored_and_rewritten(
    tmp_path: Path, damage: Callable[[bytes], bytes]
) -> None:
    root = tmp_path
    (root / "articles").mkdir()
    rng = random.Random(7)
    for i in range(5):
        _metrics_file(root, FIRST + timedelta(days=i), rng)
    want = _load(root)
    cache = root / CACHE
    cache.write_bytes(damage(cache.read_bytes()))
    _same(_load(root), want)
    assert history_bin.read_cache(Cache(root)) is not None


def test_read_only_loads_write_no_history_cache(tmp_path: Path) -> None:
    root = tmp_path
    (root / "articles").mkdir()
    _metrics_file(root, FIRST, random.Random(2))
    _load(root, writable=False)
    assert not (root / CACHE).exists()


def test_dry_run_writes_no_history_cache(instance: Instance, cli: Cli) -> None:
    instance.aeon_yml({"steady": (True, "0 7 * * 1")})
    instance.evals({"steady": {"output_pattern": "articles/steady-*.md", "min_words": 3}})
    for n in range(3):
        day = FIRST + timedelta(days=7 * n)
        instance.write(f"articles/steady-{day}.md", "one two three four\n")
        args = ["--dry-run"] if n == 2 else []
        code, _out, err = cli(
            "run", "--root", str(instance.root), "--now", f"{day}T09:00:00Z", "--no-notify", *args
        )
        assert code == 0, err
        if n == 0:
            assert not (instance.root / CACHE).exists()  # no history before the first run
        if n == 1:
            cache = instance.root / CACHE
            before = cache.read_bytes()
    assert cache.read_bytes() == before


def _series_cases() -> list[list[Sample]]:
    rng = random.Random(30)
    cases = []
    for _ in range(60):
        n = rng.randrange(0, 60)
        skill = "s"
        same = rng.random() < 0.5  # long runs of one output (a topic file)
        samples = []
        for i in range(n):
            s = _sample(rng, FIRST + timedelta(days=i), skill)
            if same and s.output is not None:
                s = s._replace(output="memory/topics/s.md")
            samples.append(s)
        cases.append(samples)
    return cases


@pytest.mark.parametrize("metric", ["words", "bytes", "quality", "age_days", "dollars"])
def test_a_series_tail_is_the_end_of_the_whole_series(metric: str) -> None:
    rng = random.Random(metric)
    for samples in _series_cases():
        history = History({"s": samples})
        latest = _sample(rng, FIRST + timedelta(days=99), "s") if rng.random() < 0.5 else None
        whole = history.series("s", metric, latest)
        for last in (1, 2, 5, 37):
            assert history.series("s", metric, latest, last=last) == whole[-last:]
        cols = History({"s": samples}).columns("s")
        assert cols.samples() == samples
        assert cols.days() == [s.day for s in samples]
        assert cols.statuses() == [s.status for s in samples]
        assert cols.causes() == [s.cause for s in samples]


def test_the_detector_on_the_tail_it_needs_finds_what_it_finds_on_the_whole_series() -> None:
    rng = random.Random(5)
    for _ in range(400):
        n = rng.randrange(1, 90)
        level = 500.0
        values = []
        for _i in range(n):
            if rng.random() < 0.08:
                level *= rng.choice([0.5, 1.6])
            values.append(level * (1 + rng.uniform(-0.05, 0.05)))
        series = [(FIRST + timedelta(days=i), v) for i, v in enumerate(values)]
        for direction in drift.Direction:
            want = drift.detect(series, direction)
            assert drift.detect(series[-drift.needed() :], direction) == want


def test_awkward_values_come_back_exactly_from_the_cache(tmp_path: Path) -> None:
    """Each column is stored in its most compact exact form (int32, int64, float64, SHA-256s as
    bytes, nothing for a column without values) or as JSON when none fits: what a hand-edited
    metrics file can hold (NaN, a huge count, a sha256 cell that is no hex) comes back as read."""
    root = tmp_path
    (root / "articles").mkdir()
    header = "# aeon-evals metrics v1\n" + "\t".join(metrics.COLUMNS) + "\n"
    lines = [
        "alpha\tPASS\t12\t3000000000\tnan\t4\tarticles/ünïcode-α.md\t" + "ab" * 32 + "\t\t",
        "beta\tWARN\t99999999999999999999\t\tinf\t\tarticles/b.md\tNOT-HEX\tc\t"
        '{"n": NaN, "m": 1e308}',
        "gamma\tFAIL\t\t\t\t\t\t\t\t",
    ]
    for i in range(4):
        day = FIRST + timedelta(days=i)
        body = "\n".join(lines[: i + 1] if i < 3 else lines[::-1]) + "\n"
        (root / f"articles/skill-evals-metrics-{day}.tsv").write_text(header + body)
        first = _load(root)
        again = _load(root)  # from the cache
        cold = _cold(root)
        for got in (first, again):
            assert repr({k: list(v) for k, v in got.samples.items()}) == repr(
                {k: list(v) for k, v in cold.samples.items()}
            )
            assert got.warnings == cold.warnings
    assert again.samples["alpha"][0].sha256 == "ab" * 32
    assert again.samples["beta"][0].words == 99999999999999999999
    assert again.samples["alpha"][0].bytes == 3000000000


def test_a_history_of_one_columns_kind_then_another_is_kept_exactly() -> None:
    """Appending samples whose values need another column kind (an int32 column meeting an
    int64, SHA-256s meeting text, a column without values meeting one with) changes nothing."""
    day = FIRST
    first = [Sample(day, Status.PASS, words=5, output="a", sha256="ab" * 32)]
    second = [
        Sample(day + timedelta(1), Status.FAIL, words=2**40, output="b", sha256="x"),
        Sample(day + timedelta(2), None),
        Sample(day + timedelta(3), Status.PASS, age_days=0.5, quality=3.0, sha256="cd" * 32),
    ]
    for a, b in ((first, second), (second, first), ([], second), (second[1:2], first)):
        joined = samples_mod.SkillColumns.of(a).plus(samples_mod.SkillColumns.of(b))
        assert joined.samples() == [*a, *b]
        assert [joined.sample(i) for i in range(len(joined))] == [*a, *b]
        assert joined.head(1).samples() == [*a, *b][:1]


def test_a_skills_samples_read_one_by_one_are_the_ones_built_all_at_once(tmp_path: Path) -> None:
    """`history.samples[skill]` builds one Sample for `[-1]` and all of them when iterated: both
    ways give the cold read's samples."""
    root = tmp_path
    (root / "articles").mkdir()
    rng = random.Random(9)
    for i in range(6):
        _metrics_file(root, FIRST + timedelta(days=i), rng)
    _load(root)
    cold = _cold(root)
    warm = _load(root)
    for skill, want in cold.samples.items():
        want = list(want)
        got = warm.samples[skill]
        n = len(want)
        assert len(got) == n and bool(got) == bool(want)
        assert [got[i] for i in range(-n, n)] == [want[i] for i in range(-n, n)]
        assert warm.samples[skill][-1] == want[-1]  # a fresh lookup, one Sample built
        assert got[1:3] == want[1:3] and list(reversed(got)) == want[::-1]
        assert got == want and want == got and list(got) == want
        with pytest.raises(IndexError):
            got[n]
        with pytest.raises(IndexError):
            warm.samples[skill][-n - 1]
    assert warm.samples == cold.samples


def _chunked(samples: list[Sample], rng: random.Random) -> History:
    """`samples` as columns joined chunk by chunk (`plus`), as a history read run by run is:
    the joined string tables can hold an output or a SHA-256 twice."""
    cols = samples_mod.EMPTY
    at = 0
    while at < len(samples):
        step = rng.randrange(1, 8)
        cols = cols.plus(samples_mod.SkillColumns.of(samples[at : at + step]))
        at += step
    return History(samples_mod.SampleMap({"s": cols}))


def _dedup_cases() -> list[list[Sample]]:
    """Histories where the per-output rule decides: few outputs, SHA-256s that change, come back
    or are missing, and values missing per metric."""
    rng = random.Random(61)
    cases = _series_cases()
    for _ in range(200):
        outputs = [None, "memory/topics/s.md", "articles/s.md", "a/é.md"][: rng.randrange(2, 5)]
        shas = [None, "ab" * 32, "cd" * 32, "not-a-sha"][: rng.randrange(1, 5)]
        samples = []
        for i in range(rng.randrange(0, 50)):
            s = _sample(rng, FIRST + timedelta(days=i), "s")
            output = rng.choice(outputs)
            samples.append(
                s._replace(
                    output=output,
                    sha256=rng.choice(shas) if output else None,
                    words=rng.choice([None, 5, 5, 7]),
                )
            )
        cases.append(samples)
    return cases


def _newest_outputs(samples: list[Sample], count: int) -> list[int]:
    """The newest `count` distinct (output, SHA-256) pairs, as the outputs table listed them."""
    seen: set[tuple[str, str | None]] = set()
    found: list[int] = []
    for i in range(len(samples) - 1, -1, -1):
        pair = (samples[i].output, samples[i].sha256)
        if pair[0] is None or pair in seen:
            continue
        seen.add((pair[0], pair[1]))
        found.append(i)
        if len(found) == count:
            break
    return found


def test_every_series_at_once_is_each_series_and_the_newest_outputs_are_the_outputs_table() -> None:
    rng = random.Random(62)
    names = ["words", "bytes", "quality", "age_days", "score", "dollars", "n", "z", "never"]
    for samples in _dedup_cases():
        for history in (History({"s": samples}, {"s": [(FIRST, 4.0)]}), _chunked(samples, rng)):
            want = [history.series("s", metric) for metric in names]
            assert history.every_series("s", names) == want
            for metric, series in zip(names, want, strict=True):  # one at a time: no memo
                assert history.every_series("s", [metric]) == [series]
            cols = history.columns("s")
            for count in (1, 3, 30):
                assert cols.newest_outputs(count) == _newest_outputs(samples, count)
    assert History().every_series("unknown", names) == [[] for _ in names]


def test_every_series_of_the_real_history_through_the_cache_is_each_series(
    tmp_path: Path,
) -> None:
    (tmp_path / "articles").mkdir()
    _real_articles(tmp_path)
    rng = random.Random(63)
    for i in range(12):
        _metrics_file(tmp_path, FIRST + timedelta(days=40 + i), rng)
    _load(tmp_path)  # writes the cache
    for history in (_load(tmp_path), _cold(tmp_path)):
        assert len(history.samples) > 4
        for skill in history.samples:
            names = history.metrics(skill)
            assert history.every_series(skill, names) == [history.series(skill, m) for m in names]
            samples = list(history.samples[skill])
            assert history.columns(skill).newest_outputs(30) == _newest_outputs(samples, 30)


def _recorded(history: History, day: date, added: dict[str, Sample]) -> dict[str, list[Sample]]:
    """What recording the run of `day` means, from the samples: each skill's samples of
    earlier days, then its sample of the run; skills without one as they were."""
    out = {skill: list(samples) for skill, samples in history.samples.items()}
    for skill, sample in added.items():
        out[skill] = [s for s in out.get(skill, []) if s.day < day] + [sample]
    return out


def test_a_run_recorded_into_the_history_joins_each_skill_when_read_as_the_samples_say(
    tmp_path: Path,
) -> None:
    """History.with_run joins a skill's columns and the run's sample only when the skill is
    read (the skill pages); what it gives is the history plus the run, built from the samples:
    for a day after the history, a day inside it (later samples left out) and new skills."""
    root = tmp_path
    (root / "articles").mkdir()
    rng = random.Random(64)
    for i in range(8):
        _metrics_file(root, FIRST + timedelta(days=i), rng)
    _load(root)
    names = ["words", "bytes", "quality", "age_days", "score", "dollars", "n", "z"]
    for day in (FIRST + timedelta(days=9), FIRST + timedelta(days=3), FIRST):
        for base in (_load(root), History({k: list(v) for k, v in _cold(root).samples.items()})):
            skills = [*rng.sample(SKILLS, 2), "new-skill"]
            added = {skill: _sample(rng, day, skill) for skill in skills}
            want = _recorded(base, day, added)
            assert isinstance(base.samples, samples_mod.SampleMap)
            recorded = History(base.samples.with_samples(added), base.scores, base.warnings)
            assert list(recorded.samples) == list(want)  # the skills in the order first seen
            assert {k: list(v) for k, v in recorded.samples.items()} == want
            expected = History(want, base.scores)
            for skill in want:
                assert recorded.every_series(skill, names) == expected.every_series(skill, names)
            for skill in want:  # the newest sample, without joining (the badges)
                last = recorded.last(skill)
                assert last is not None and last[:2] == want[skill][-1][:2]
            for skill in reversed(want):  # read again, in another order: joined again
                assert recorded.columns(skill).samples() == want[skill]
                assert list(recorded.samples[skill]) == want[skill]
            assert {k: list(v) for k, v in base.samples.items()} == {
                k: list(v) for k, v in _cold(root).samples.items()
            }  # the history it extends is unchanged


def test_a_restamped_cache_is_written_from_the_bytes_it_was_read_from(tmp_path: Path) -> None:
    """A checkout (new inodes and times, same bytes) re-stamps history.bin without encoding its
    columns again: the file written holds the same columns' bytes, and reads back as the cold
    read."""
    root = tmp_path
    (root / "articles").mkdir()
    _real_articles(root)
    rng = random.Random(65)
    for i in range(5):
        _metrics_file(root, FIRST + timedelta(days=60 + i), rng)
    _load(root)
    before = history_bin.read_cache(Cache(root))
    assert before is not None and before.encoded is not None
    for file in sorted((root / "articles").iterdir()):
        copy = file.with_name(file.name + ".new")
        shutil.copyfile(file, copy)
        os.replace(copy, file)
    _same(_load(root), _cold(root))
    after = history_bin.read_cache(Cache(root))
    assert after is not None and after.encoded is not None
    assert after.sources != before.sources  # re-stamped …
    assert bytes(after.encoded[1]) == bytes(before.encoded[1])  # … over the same columns
    assert after.encoded[2] == before.encoded[2]
    _same(_load(root), _cold(root))


def test_the_folder_listed_by_the_run_finds_the_metrics_files_a_listing_of_its_own_finds(
    tmp_path: Path,
) -> None:
    """history_for_run passes the article folder's names the run listed already (one listing of
    a folder of 20,000 outputs, not two): the same files are found, whatever sorts near them."""
    root = tmp_path
    (root / "articles").mkdir()
    _real_articles(root)
    rng = random.Random(66)
    for i in range(4):
        _metrics_file(root, FIRST + timedelta(days=60 + i), rng)
    for name in (
        "skill-evals-metrics-2026-01-01.tsv.bak",
        "skill-evals-metrics-latest.tsv",
        "skill-evals-metricz-2026-01-02.tsv",
        "skill-evals-metric-2026-01-03.tsv",
        "a.md",
        "zz.tsv",
    ):
        (root / "articles" / name).write_text("x\n")
    names = sorted(os.listdir(root / "articles"))
    load = functools.partial(
        metrics_read.load_history,
        root,
        dirs=["articles"],
        read_article=lambda p: read_article(p, root=root),
        health={},
        cache=Cache(root, writable=False),
    )
    listed = load(articles=_articles(root), names=names)
    own = load(articles=_articles(root))
    assert sum(s.source == "run" for v in own.samples.values() for s in v) > 0
    _same(listed, own)


def test_series_sharing_a_memo_across_metrics_are_the_series_read_alone() -> None:
    """Drift reads each metric's tail of one skill with one memo (the runs' days, outputs and
    SHA-256s read once): every series is the one read without it, tables joined chunk by chunk
    (an output twice in the table) or not."""
    rng = random.Random(67)
    names = ["words", "bytes", "quality", "age_days", "dollars", "n", "z", "never"]
    for samples in _dedup_cases():
        latest = _sample(rng, FIRST + timedelta(days=99), "s") if rng.random() < 0.7 else None
        for history in (History({"s": samples}), _chunked(samples, rng)):
            memo: dict[object, object] = {}
            for last in (1, 5, 38, None):
                for metric in names:
                    alone = history.series("s", metric, latest, last=last)
                    assert history.series("s", metric, latest, last=last, memo=memo) == alone


_ONE_VALUES = [None, 0, -5, 2**31 - 1, 2**31, -(2**31), 2**63 - 1, 2**63, -(2**63), 3.5, -0.0]
_ONE_VALUES += [float("nan"), float("inf"), True, 1.0, 10**30]


@pytest.mark.parametrize("numeric", [int, float])
@pytest.mark.parametrize("value", _ONE_VALUES)
def test_the_column_of_one_value_is_the_column_of_a_list_of_it(
    numeric: type, value: object
) -> None:
    """NumColumn.one and StrColumn.one (a run's sample joined to a skill's columns) pick the
    kind and bytes `of` picks for a list of one."""
    a, b = columns.NumColumn.of([value], numeric), columns.NumColumn.one(value, numeric)
    assert a.kind == b.kind
    assert repr(list(a.data)) == repr(list(b.data))


@pytest.mark.parametrize("text", [None, "", "a", "é", "\udcff", "ab" * 32, "AB" * 32, "x" * 64])
def test_the_string_column_of_one_is_the_column_of_a_list_of_it(text: str | None) -> None:
    a, b = columns.StrColumn.of([text]), columns.StrColumn.one(text)
    assert (bytes(a.text), list(a.ends), list(a.index), a.hex32) == (
        bytes(b.text),
        list(b.ends),
        list(b.index),
        b.hex32,
    )


def test_the_series_kept_per_output_are_the_ones_the_loop_keeps() -> None:
    """_kept's shortcut (every run with a value evaluated another output: all kept) keeps what
    the per-output loop keeps."""

    def loop(values: list[object], outputs: list[int], shas: list[int]) -> list[int]:
        kept: list[int] = []
        output = sha = -1
        for i, value in enumerate(values):
            if value is None:
                continue
            if outputs[i] == output >= 0 and (sha < 0 or shas[i] < 0 or sha == shas[i]):
                continue
            kept.append(i)
            output, sha = outputs[i], shas[i]
        return kept

    rng = random.Random(65)
    for _ in range(3000):
        n = rng.randrange(0, 12)
        values = [rng.choice([None, 1.0, 2]) for _ in range(n)]
        outputs = [rng.randrange(-1, rng.randrange(1, 14)) for _ in range(n)]
        shas = [rng.randrange(-1, 3) for _ in range(n)]
        assert list(metrics._kept(values, outputs, shas)) == loop(values, outputs, shas)


def test_a_string_table_said_to_hold_each_string_once_does() -> None:
    """StrColumn.unique (kept through `plus`, `head` and the cache file) is never claimed for a
    table holding a string twice, and keys() are equal exactly where the strings are."""
    rng = random.Random(66)
    pool = ["a", "ab", "b", "ba", "", "é", "ab" * 32, "cd" * 32, "x/2026-06-01.md", "2026-06"]
    for _ in range(400):
        col = columns.StrColumn.of([])
        for _ in range(rng.randrange(1, 6)):
            chunk = [rng.choice([None, *pool]) for _ in range(rng.randrange(0, 6))]
            if rng.random() < 0.5:
                chunk = [rng.choice([None, *pool[6:8]]) for _ in chunk]  # SHA-256s only
            more = (
                columns.StrColumn.one(chunk[0]) if len(chunk) == 1 else columns.StrColumn.of(chunk)
            )
            col = col.plus(more)
            if rng.random() < 0.2:
                col = col.head(rng.randrange(0, len(col) + 1))
        table = [col.entry(at) for at in range(col.count())]
        if col.unique:
            assert len(set(table)) == len(table), table
        values = col.values()
        keys = col.keys()
        for i in range(len(values)):
            for j in range(len(values)):
                assert (keys[i] == keys[j]) == (values[i] == values[j])


def test_a_file_is_digested_as_its_bytes_and_not_over_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """_digest hashes a file as it reads it: the digest of its bytes read whole, None when it
    is missing, not a regular file, or over FILE_CAP (as a capped read refuses it)."""
    data = bytes(random.Random(5).randrange(256) for _ in range(700_000))
    (tmp_path / "a.tsv").write_bytes(data)
    (tmp_path / "empty.tsv").write_bytes(b"")
    (tmp_path / "dir").mkdir()
    assert metrics_read._digest(tmp_path, "a.tsv") == metrics_read._digest_of(data)
    assert metrics_read._digest(tmp_path, "empty.tsv") == metrics_read._digest_of(b"")
    assert metrics_read._digest(tmp_path, "gone.tsv") is None
    assert metrics_read._digest(tmp_path, "dir") is None
    monkeypatch.setattr(metrics_read, "FILE_CAP", len(data) - 1)
    assert metrics_read._digest(tmp_path, "a.tsv") is None

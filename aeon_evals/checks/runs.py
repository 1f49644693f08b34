"""The runs of every skill of a run's scope, read through the shared `Outputs` newest first: the
sections of the daily logs (each log split once, for every skill at once) and the dated files of
the skill's own output pattern (issue #32). A same-day article joins that day's last log section:
one run told twice is one run."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date, timedelta

from aeon_evals.checks.latest import heading_index
from aeon_evals.errors import EvalsError
from aeon_evals.load.outputs import OutputError, Outputs, name_date
from aeon_evals.outcomes import Run, article_run, log_runs

LOGS = "memory/logs/*.md"
WINDOW_DAYS = 120  # runs older than this are not read: a streak says "since" at most this far back


class RunReader:
    """Each skill's runs within WINDOW_DAYS before `today`, newest first, read only as far as a
    caller asks (a healthy skill's newest run is all that is read of it)."""

    def __init__(
        self, outputs: Outputs, today: date, headings: Mapping[str, Sequence[str]]
    ) -> None:
        self.outputs = outputs
        self.today = today
        self.headings = headings
        since = today - timedelta(days=WINDOW_DAYS)
        try:
            files = outputs.matches(LOGS).files
        except (OSError, ValueError, EvalsError):  # a logs folder leading out of the root
            files = ()
        self.logs = sorted(
            ((d, rel) for rel in files if (d := name_date(rel)) and since <= d <= today),
            reverse=True,
        )
        self._split: dict[str, Mapping[str, tuple[Run, ...]]] = {}

    def _runs_in(self, rel: str, day: date) -> Mapping[str, tuple[Run, ...]]:
        """Every skill's runs in one log (split once, for all skills: where one skill's section
        ends depends on the others' headings)."""
        found = self._split.get(rel)
        if found is None:
            try:
                body = self.outputs.read(rel)
            except OutputError:
                body = None
            data = body.data if body is not None and not body.binary else None
            found = {}
            if data:
                index = heading_index(self.outputs, body) if body is not None else None
                found = log_runs(data, day, self.headings, path=rel, index=index)
            self._split[rel] = found
        return found

    def runs(self, skill: str, articles: Sequence[str] = ()) -> Iterator[Run]:
        """`skill`'s runs newest first: its log sections and `articles` (its dated output files,
        oldest first, as the checks order them), a same-day article joined to that day's last
        section."""
        by_day: dict[date, str] = {}
        for rel in articles:
            day = name_date(rel)
            if day is not None and day <= self.today and (self.today - day).days <= WINDOW_DAYS:
                by_day[day] = rel  # the last file of a day wins, as the checks' newest
        days = sorted({*by_day, *(d for d, _ in self.logs)}, reverse=True)
        logs = dict(((d, rel) for d, rel in self.logs))
        for day in days:
            in_log = self._runs_in(logs[day], day).get(skill, ()) if day in logs else ()
            article = by_day.get(day)
            text = self._text(article) if article is not None else None
            if in_log:
                last = in_log[-1]
                if text is not None:  # one run told in the log and in the article
                    last = Run(skill, day, last.source, f"{last.text}\n\n{text}", last.order)
                yield last
                yield from reversed(in_log[:-1])
            elif article is not None and text is not None:
                yield article_run(skill, article, day, text)

    def _text(self, rel: str) -> str | None:
        try:
            body = self.outputs.read(rel)
        except OutputError:
            return None
        if body.data is None or body.binary:
            return None
        return body.data.decode("utf-8", errors="replace")

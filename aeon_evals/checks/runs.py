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
from aeon_evals.outcomes import Run, article_run
from aeon_evals.outcomes.runs import LogRuns, cached_want
from aeon_evals.text.sections import HeadingIndex, Want

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
        self._split: dict[str, LogRuns] = {}
        self._wanted: dict[str, list[Want]] = {}

    def _runs_in(self, rel: str, day: date) -> LogRuns:
        """One log split into every skill's sections once (where one skill's section ends
        depends on the others' headings); a skill's runs made when it asks."""
        found = self._split.get(rel)
        if found is None:
            try:
                body = self.outputs.read(rel)
            except OutputError:
                body = None
            data = body.data if body is not None and not body.binary else None
            index = heading_index(self.outputs, body) if body is not None and data else None
            found = LogRuns(data or b"", day, self.headings, path=rel, index=index)
            self._split[rel] = found
        return found

    def runs(
        self, skill: str, articles: Sequence[str] = (), *, first_within: int = WINDOW_DAYS
    ) -> Iterator[Run]:
        """`skill`'s runs newest first: its log sections and `articles` (its dated output files,
        in any order), a same-day article joined to that day's
        last section. A skill with no run in its newest `first_within` days has none to judge
        (the checks say it went quiet): older days are not read for it. Read only as far as the
        caller goes: the days of the logs and of the articles walked down together."""
        found = False
        dated = self._dated(articles)
        article_day, article = next(dated, (None, None))
        for day, log in self._days():
            while article_day is not None and article_day > day:  # an article on a day with no log
                if not found and (self.today - article_day).days > first_within:
                    return
                text = self._text(article) if article is not None else None
                if article is not None and text is not None:
                    found = True
                    yield article_run(skill, article, article_day, text)
                article_day, article = next(dated, (None, None))
            if not found and (self.today - day).days > first_within:
                return
            on_day = article if article_day == day else None
            if on_day is not None:
                article_day, article = next(dated, (None, None))
            in_log = (
                self._runs_in(log, day).of(skill)
                if log is not None and self._may_hold(log, skill)
                else ()
            )
            text = self._text(on_day) if on_day is not None else None
            if in_log:
                last = in_log[-1]
                if text is not None:  # one run told in the log and in the article
                    last = Run(skill, day, last.source, f"{last.text}\n\n{text}", last.order)
                found = True
                yield last
                yield from reversed(in_log[:-1])
            elif on_day is not None and text is not None:
                found = True
                yield article_run(skill, on_day, day, text)

    def _days(self) -> Iterator[tuple[date, str | None]]:
        """The logs' days, newest first, then an end past the window (the articles' days after
        the last log are walked down by `runs`)."""
        yield from self.logs
        yield self.today - timedelta(days=WINDOW_DAYS + 1), None

    def _dated(self, articles: Sequence[str]) -> Iterator[tuple[date, str]]:
        """The articles by day, newest first, one a day (the last by name), within the window."""
        dated = sorted(
            ((d, rel) for rel in articles if (d := name_date(rel)) is not None and d <= self.today),
            reverse=True,
        )
        last: date | None = None
        for day, rel in dated:
            if day == last:
                continue
            if (self.today - day).days > WINDOW_DAYS:
                return
            last = day
            yield day, rel

    def _may_hold(self, rel: str, skill: str) -> bool:
        """Whether one of `skill`'s headings can start a section of the log (looked up among
        the log's heading names): a log no skill of the few asking has a section in is never
        split."""
        wanted = self._wanted.get(skill)
        if wanted is None:
            wanted = self._wanted[skill] = [cached_want(h) for h in self.headings.get(skill, ())]
        if any(w.pattern is not None for w in wanted):
            return True
        index = self._index(rel)
        return index is not None and any(index.may_start(w.key) for w in wanted)

    def _index(self, rel: str) -> HeadingIndex | None:
        try:
            body = self.outputs.read(rel)
        except OutputError:
            return None
        return heading_index(self.outputs, body) if body.data and not body.binary else None

    def _text(self, rel: str) -> str | None:
        try:
            body = self.outputs.read(rel)
        except OutputError:
            return None
        if body.data is None or body.binary:
            return None
        return body.data.decode("utf-8", errors="replace")

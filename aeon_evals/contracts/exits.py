"""The early ways out of a run that a SKILL.md's prose states ("If zero picks are found, log
`X_SKIP: …` and stop"): a product written after one of them is written only on some runs, and
the log entry beside it stays the skill's output (issue #32.6). Pure."""

from __future__ import annotations

import bisect
import itertools
import re

from aeon_evals.contracts.body import Body
from aeon_evals.contracts.data import Evidence, quoted
from aeon_evals.contracts.paths import CODE_SPAN

# An early way out of the run that still logs: "If zero picks are found, log `X_SKIP: …` and
# stop", "If the file is missing, exit with `X_NO_REPOS` (notify + log, no article)".
# (searched in lowercased prose, each alternative on its own: a literal start is found fast)
_EXIT = re.compile(
    r"\b(?:stop|exit|abort|halt|bail)(?:s|ed)?\b(?!\s*(?:-|code|status|criteria|conditions?))"
)
_END = re.compile(r"(?<=[,;.—–dn]) end\b(?!\s*(?:of|-|to))")  # ", end", "and end", "then end"
_EXIT_IF = re.compile(
    r"(?i)\b(?:if|when|unless|otherwise|else|zero|empty|missing|absent|fails?|failed|no \w+ "
    r"(?:found|configured|set)|nothing)\b"
)
_EXIT_LOGS = re.compile(r"(?i)\b(?:log|logs|logging|append|record)\b|memory/logs/")
_NO_LOG = re.compile(
    r"(?i)\b(?:do not|don't|never|without)\s+(?:create |write |add )?(?:a |any )?log"
)


def _ends_here(low: str, at: int) -> bool:
    """ " end" at `at` follows a comma, semicolon, full stop or dash, "and" or "then"."""
    return low[at - 1] in ",;.—–" or low.endswith((" and", "\nand", " then", "\nthen"), 0, at)


def exits_of(doc: Body) -> list[tuple[int, str | None, Evidence]]:
    """Each prose line that ends the run early on a condition and logs on its way out: its
    line, the branch it is in, and the evidence. One search over the whole prose, not one a
    line."""
    lines = [(no, text) for no, text in doc.lines if no not in doc.fence_at]
    prose = "\n".join(text for _, text in lines)
    starts = list(itertools.accumulate((len(text) + 1 for _, text in lines), initial=0))
    found: list[tuple[int, str | None, Evidence]] = []
    seen = -1
    low = prose.lower()
    hits = sorted(
        [m.start() for m in _EXIT.finditer(low)]
        + [m.start() for m in _END.finditer(low) if _ends_here(low, m.start())]
    )
    for at in hits:
        k = bisect.bisect_right(starts, at) - 1
        no, text = lines[k]
        if k == seen or no in doc.var_doc:
            continue
        seen = k
        plain = CODE_SPAN.sub("x", text)
        if _EXIT_IF.search(plain) and _EXIT_LOGS.search(text) and not _NO_LOG.search(text):
            found.append((no, doc.branch_at.get(no), Evidence(no, quoted(text))))
    return found

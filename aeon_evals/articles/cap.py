"""The size of an article read back and rendered: past MAX_TABLE_LINES table lines, the rest is
not read."""

from __future__ import annotations

# An article holds a table line per skill and a few more: a 1,000-skill fleet's has 1,000 to
# 3,000, the largest benchmarked (4,000 skills) up to 12,000. Past this many, an article was not
# written by a run (a planted file of 400,000 rows took a run 185 s and 7 GB): the rest of it is
# neither read nor rendered.
MAX_TABLE_LINES = 25_000


def capped_tables(text: str) -> tuple[str, str]:
    """`text` cut after its MAX_TABLE_LINES-th table line (a line starting with `|`), and what
    was cut, said for a warning (`""` when nothing was)."""
    if text.count("\n|") < MAX_TABLE_LINES:
        return text, ""
    at, seen = -1, 0
    while seen < MAX_TABLE_LINES:
        at = text.index("\n|", at + 1)
        seen += 1
    end = text.find("\n", at + 1)
    if end < 0:
        return text, ""
    left = text.count("\n", end + 1)
    return text[: end + 1], (
        f"more than {MAX_TABLE_LINES:,} table lines (the limit): {left:,} lines after them not read"
    )


def capped_text(raw: bytes) -> str:
    """An article's bytes as the text that is read and rendered: up to MAX_TABLE_LINES table
    lines (the run page of a planted 400,000-row article is not rendered whole either)."""
    return capped_tables(raw.decode("utf-8", errors="replace"))[0]

"""The metric history's cache file, `.aeon-evals/cache/history.bin`.

`AEHIST01`, the header's length (8 bytes, little-endian), a JSON header (version, the cache
entry's key, the statuses and kinds by name, the sources the history was built from with their
stamps, the CRC-32 of the columns' bytes, and per skill where each column's bytes are), then
the columns' bytes. Reading it is JSON and views of the file's bytes cast to each column's item
type (`memoryview.cast`: the columns are not copied; a column is made an array when it is
joined with another): no code is loaded from it (no pickle, no marshal), every offset, code
and index is checked, and a file that is damaged, truncated or of another version or code is
ignored (the history is then read from the files). Codes written in another order are
translated by name. Nothing in it is needed for correctness: delete it any time.
"""

from __future__ import annotations

import json
import zlib
from array import array
from typing import Any

from aeon_evals.cache.folder import Cache, Entry
from aeon_evals.metrics.columns import (
    _ALL_NONE,
    KINDS,
    STATUSES,
    Bytes,
    Ints,
    NumColumn,
    NumericColumn,
    Source,
    StrColumn,
)
from aeon_evals.metrics.samples import SkillColumns

CACHE_NAME = "history.bin"
# 4: statuses and kinds stored by name in the header; no per-article cache stamp
ENTRY = Entry("history", 5)
MAGIC = b"AEHIST01"


# --------------------------------------------------------------------------------------------
# The file


class CacheError(ValueError):
    """A cache file that cannot be used (damaged, another version or code): never reported."""


def _encode_num(col: NumColumn, parts: list[Bytes], size: list[int]) -> list[Any]:
    if col.kind == "j":
        return ["j", _put(json.dumps(col.data).encode(), parts, size)]
    raw = col.data.tobytes()
    if raw == _ALL_NONE[col.kind] * len(col.data):
        return ["none"]  # a column with no value (bytes and age of backfilled articles): no bytes
    return [col.kind, _put(raw, parts, size)]


def _encode_index(index: Ints, parts: list[Bytes], size: list[int]) -> list[int] | None:
    """A string column's index, or None when every sample has no string."""
    raw = index.tobytes()
    if raw == _NO_INDEX * len(index):
        return None
    return _put(raw, parts, size)


_NO_INDEX = array("i", [-1]).tobytes()


def _put(raw: Bytes, parts: list[Bytes], size: list[int]) -> list[int]:
    at = size[0]
    parts.append(raw)
    size[0] += len(raw)
    return [at, len(raw)]


def _encode_strings(c: StrColumn, parts: list[Bytes], size: list[int]) -> list[Any]:
    return [
        _put(c.text, parts, size),
        None if c.hex32 else _put(c.ends.tobytes(), parts, size),
        _encode_index(c.index, parts, size),
        c.unique,
    ]


def _encode(cols: SkillColumns, parts: list[Bytes], size: list[int]) -> list[Any]:
    put = _put
    return [
        len(cols),
        put(cols.day_ords.tobytes(), parts, size),
        put(cols.status_codes.tobytes(), parts, size),
        *[_encode_num(c, parts, size) for c in (cols.words, cols.bytes, cols.ages, cols.qualities)],
        *[
            _encode_strings(c, parts, size)
            for c in (cols.outputs_col, cols.shas_col, cols.causes_col)
        ],
        [
            put(json.dumps(cols.numeric.table).encode(), parts, size),
            put(cols.numeric.index.tobytes(), parts, size),
        ],
        put(cols.kinds.tobytes(), parts, size),
        put(cols.sources.tobytes(), parts, size),
        _encode_strings(cols.runs_col, parts, size),
    ]


class _Reader:
    def __init__(
        self, blob: memoryview, status_map: bytes | None = None, kind_map: bytes | None = None
    ) -> None:
        self.blob = blob
        self.status_map, self.kind_map = status_map, kind_map  # _code_map's tables, or None

    def codes(self, where: Any, n: int, table: bytes | None) -> Any:
        """An int8 column, its codes translated by `table` (written by code of another order)."""
        view = self.arr("b", where, n)
        if table is None:
            return view
        out = array("b")
        out.frombytes(view.tobytes().translate(table))
        return out

    def raw(self, where: Any) -> memoryview:
        at, length = where
        if not (isinstance(at, int) and isinstance(length, int)) or at < 0 or length < 0:
            raise CacheError("bad offset")
        view = self.blob[at : at + length]
        if len(view) != length:
            raise CacheError("truncated")
        return view

    def arr(self, code: str, where: Any, n: int) -> Any:
        """The file's bytes at `where` as `n` items of type `code` (a view: not copied)."""
        view: Any = self.raw(where)
        out = view.cast(code)  # (a TypeError when not a whole number of items)
        if len(out) != n:
            raise CacheError("column length")
        return out

    def num(self, spec: Any, n: int) -> NumColumn:
        if spec == ["none"]:
            return NumColumn.none("i", n)
        kind, where = spec
        if kind in ("i", "q", "d"):
            return NumColumn(kind, self.arr(kind, where, n))
        if kind != "j":
            raise CacheError("column kind")
        data = json.loads(bytes(self.raw(where)))
        if not isinstance(data, list) or len(data) != n:
            raise CacheError("column length")
        return NumColumn("j", data)

    def strings(self, spec: Any, n: int) -> StrColumn:
        text, ends, index, unique = spec
        raw = self.raw(text)
        at = array("i", [-1]) * n if index is None else self.arr("i", index, n)
        col = StrColumn(
            raw,
            array("q") if ends is None else self.raw(ends).cast("q"),
            at,
            hex32=ends is None,
            unique=unique is True,
        )
        if ends is None:
            if len(raw) % 32:
                raise CacheError("string column")
        elif (col.ends[-1] if len(col.ends) else 0) != len(raw):
            raise CacheError("string column")
        # (a negative index is no string: it never indexes the table)
        if col.index and max(col.index) >= col.count():
            raise CacheError("string column")
        return col

    def numeric(self, spec: Any, n: int) -> NumericColumn:
        table_at, index_at = spec
        table = json.loads(bytes(self.raw(table_at)))
        if not isinstance(table, list):
            raise CacheError("numeric table")
        entries = [tuple((str(k), v) for k, v in entry) for entry in table]
        index = self.arr("i", index_at, n)
        if index and (max(index) >= len(entries) or min(index) < 0):
            raise CacheError("numeric index")
        return NumericColumn(entries, index)

    def columns(self, spec: Any) -> SkillColumns:
        n, days, status, words, size, age, quality, out, sha, cause, numeric, kinds, src, run = spec
        if not isinstance(n, int) or n < 0:
            raise CacheError("length")
        codes = self.codes(status, n, self.status_map)
        if codes.tobytes().translate(None, _STATUS_BYTES):  # a byte that is no code
            raise CacheError("status code")
        kind_codes = self.codes(kinds, n, self.kind_map)
        if kind_codes.tobytes().translate(None, _KIND_BYTES):
            raise CacheError("kind code")
        cols = SkillColumns(
            self.arr("i", days, n),
            codes,
            self.num(words, n),
            self.num(size, n),
            self.num(age, n),
            self.num(quality, n),
            self.strings(out, n),
            self.strings(sha, n),
            self.strings(cause, n),
            self.numeric(numeric, n),
            kind_codes,
            self.arr("i", src, n),
            self.strings(run, n),
        )
        if cols.day_ords and min(cols.day_ords) < 1:
            raise CacheError("day")
        return cols


_STATUS_BYTES = array("b", range(-1, len(STATUSES))).tobytes()  # the valid codes, as bytes
_KIND_BYTES = array("b", range(-1, len(KINDS))).tobytes()


class Cached:
    """What the cache file holds: the sources (in reading order), the warning each gave (or
    None), and every skill's columns in the order the skills first appeared."""

    def __init__(
        self,
        sources: list[Source],
        warnings: list[str | None],
        columns: dict[str, SkillColumns],
        digests: list[str | None] | None = None,
        encoded: tuple[list[Any], memoryview, int] | None = None,
    ) -> None:
        self.sources, self.warnings, self.columns = sources, warnings, columns
        # each source's content digest (None: unreadable then): a file whose stamp moved (a
        # fresh checkout, a restored cache) but whose bytes did not is the same
        self.digests: list[str | None] = digests if digests is not None else [None] * len(sources)
        # the columns as the file read held them (skills' specs, bytes, CRC-32): a history whose
        # only change is its stamps is written again without encoding a column
        self.encoded = encoded

    def before_source(self, count: int) -> Cached:
        """The history of the first `count` sources only."""
        columns = {}
        for skill, cols in self.columns.items():
            kept = cols.before_source(count)
            if len(kept):
                columns[skill] = kept
        return Cached(
            self.sources[:count],
            self.warnings[:count],
            columns,
            self.digests[:count],
        )

    def restamped(self, sources: list[Source]) -> Cached:
        """The same history with the sources' stamps of tonight."""
        return Cached(sources, self.warnings, self.columns, self.digests, self.encoded)


def read_cache(cache: Cache) -> Cached | None:
    """The history `cache` holds, or None when there is none or it cannot be used (damaged,
    nested too deep, of other code or format)."""
    data = cache.read(CACHE_NAME)
    if data is None:
        return None
    try:
        return _decode(data, ENTRY.key())
    except (
        CacheError,
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        OverflowError,
        RecursionError,
        MemoryError,
    ):
        return None


def _decode(data: bytes, code: str) -> Cached:
    if data[: len(MAGIC)] != MAGIC:
        raise CacheError("not a history cache")
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + length])
    if not isinstance(header, dict) or header.get("version") != ENTRY.version:
        raise CacheError("version")
    if header.get("code") != code:
        raise CacheError("another code")
    # statuses and kinds by name: codes of another order are translated, an unknown name is a miss
    status_map = _code_map(header.get("statuses"), [s.value for s in STATUSES])
    kind_map = _code_map(header.get("kinds"), list(KINDS))
    sources: list[Source] = []
    warnings: list[str | None] = []
    digests: list[str | None] = []
    for rel, kind, day, ino, size, mtime, ctime, warning, digest in header["sources"]:
        if not (isinstance(rel, str) and kind in ("run", "article")):
            raise CacheError("source")
        if not all(isinstance(v, int) for v in (day, ino, size, mtime, ctime)):
            raise CacheError("source")
        if warning is not None and not isinstance(warning, str):
            raise CacheError("source")
        if digest is not None and not isinstance(digest, str):
            raise CacheError("source")
        sources.append((rel, kind, day, ino, size, mtime, ctime))
        warnings.append(warning)
        digests.append(digest)
    blob = memoryview(data)[start + length :]
    if header.get("crc32") != zlib.crc32(blob):
        raise CacheError("damaged")  # a flipped bit in a value is found here, not by the checks
    reader = _Reader(blob, status_map, kind_map)
    columns: dict[str, SkillColumns] = {}
    specs = header["skills"]
    for skill, spec in specs:
        if not isinstance(skill, str):
            raise CacheError("skill")
        columns[skill] = reader.columns(spec)
    if status_map is not None or kind_map is not None:  # other codes: encoded again when written
        return Cached(sources, warnings, columns, digests)
    encoded = (specs, blob, header["crc32"])
    return Cached(sources, warnings, columns, digests, encoded)


def _code_map(names: Any, current: list[str]) -> bytes | None:
    """A `bytes.translate` table from the codes of a file whose enum names are `names` to this
    code's (`current`); None when they are the same; CacheError when a name is unknown."""
    if names == current:
        return None
    if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise CacheError("codes")
    if any(n not in current for n in names) or len(names) > 127:
        raise CacheError("codes")
    table = bytearray(range(256))
    for old, name in enumerate(names):
        table[old] = current.index(name)
    return bytes(table)


def write_cache(cache: Cache, cached: Cached) -> None:
    """Store the history in `cache` (written at the end of the run). The columns' bytes `cached`
    was read with are written as they were (`Cached.encoded`)."""
    parts: list[Bytes] = []
    if cached.encoded is not None:
        skills, blob, crc = cached.encoded
        parts.append(blob)
    else:
        size = [0]
        skills = [[skill, _encode(cols, parts, size)] for skill, cols in cached.columns.items()]
        crc = 0
        for part in parts:
            crc = zlib.crc32(part, crc)
    header = json.dumps(
        {
            "version": ENTRY.version,
            "code": ENTRY.key(),
            "statuses": [s.value for s in STATUSES],
            "kinds": list(KINDS),
            "sources": [
                [*source, warning, digest]
                for source, warning, digest in zip(
                    cached.sources, cached.warnings, cached.digests, strict=True
                )
            ],
            "skills": skills,
            "crc32": crc,
        },
        separators=(",", ":"),
    ).encode()
    cache.put(CACHE_NAME, b"".join([MAGIC, len(header).to_bytes(8, "little"), header, *parts]))

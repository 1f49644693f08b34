"""The dataclasses' code kept between processes (classcode): the same classes, faster starts."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from aeon_evals import classcode


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[Path]:
    """classcode installed on a cache file of its own; the built-in exec given back after."""
    path = tmp_path / "__pycache__" / "dataclasses.test.bin"
    classcode.uninstall()
    saved = dict(classcode._codes)
    classcode._codes.clear()
    classcode.install(str(path))
    yield path
    classcode.uninstall()
    classcode._codes.clear()
    classcode._codes.update(saved)


def _make() -> type:
    """A frozen dataclass with a default, a factory, a keyword-only field and a non-compared
    field: most of what dataclasses writes code for. Made with make_dataclass so that its
    field types are the objects (this module's annotations would be strings)."""
    return dataclasses.make_dataclass(
        "Point",
        [
            ("x", int),
            ("y", int, dataclasses.field(default=0)),
            ("tags", tuple[str, ...], dataclasses.field(default_factory=tuple)),
            ("note", str, dataclasses.field(default="", compare=False)),
            ("label", str, dataclasses.field(default="p", kw_only=True)),
        ],
        frozen=True,
        order=True,
    )


def _behaviour(cls: type) -> tuple[object, ...]:
    a, b = cls(1, 2, ("t",), "n", label="a"), cls(1, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = 5
    with pytest.raises(TypeError):
        cls(1, 2, (), "", "positional label")
    return (
        repr(a),
        a == cls(1, 2, ("t",), "other note", label="a"),
        a < b,
        hash(a) == hash(cls(1, 2, ("t",), label="a")),
        dataclasses.astuple(b),
        cls.__match_args__,
        cls.__init__.__annotations__,
        [f.name for f in dataclasses.fields(cls)],
    )


def test_a_class_made_from_kept_code_behaves_as_one_compiled_afresh(kept: Path) -> None:
    classcode.uninstall()
    expected = _behaviour(_make())
    classcode.install(str(kept))
    first = _behaviour(_make())  # compiled here
    assert classcode.save(str(kept), force=True)
    classcode._codes.clear()
    classcode.uninstall()
    classcode.install(str(kept))
    assert classcode._codes  # loaded from the file
    classcode._new = False
    again = _behaviour(_make())  # every method's code from the file
    assert not classcode._new
    assert first == expected and again == expected
    # annotations are the objects themselves, as without the cache (not the strings that
    # classcode's own `from __future__ import annotations` would have made of them)
    assert expected[-2] == {
        "x": int,
        "y": int,
        "tags": tuple[str, ...],
        "note": str,
        "label": str,
        "return": None,
    }


def test_a_fresh_process_imports_the_package_without_compiling_a_dataclass(tmp_path: Path) -> None:
    path = tmp_path / "kept.bin"
    probe = (
        "import sys; from aeon_evals import classcode; classcode.install(sys.argv[1]); "
        "import aeon_evals.pipeline, aeon_evals.site.build; "
        "print(len(classcode._codes), classcode._new, classcode.save(sys.argv[1], force=True))"
    )

    def run() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True
        )
        return done.stdout.split()

    compiled, new, written = run()
    assert int(compiled) > 300 and new == "True" and written == "True"
    again, new, written = run()
    assert again == compiled and new == "False" and written == "False"


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not ours at all",
        b"aeon-evals dataclasses 1\n" + b"\x00\x00\r\n" + b"\xff\xfe garbage",  # foreign magic
        None,  # the right header, then a truncated marshal
    ],
)
def test_a_damaged_or_foreign_file_is_a_cold_start(kept: Path, content: bytes | None) -> None:
    _make()
    assert classcode.save(str(kept), force=True)
    good = kept.read_bytes()
    kept.write_bytes(good[: len(good) // 2] if content is None else content)
    classcode.uninstall()
    classcode._codes.clear()
    classcode.install(str(kept))
    assert classcode._codes == {}
    assert _behaviour(_make()) == _behaviour(_make())
    assert classcode._new  # compiled again, and kept again over the damaged file
    assert classcode.save(str(kept), force=True)
    assert kept.read_bytes() != (content or b"")


def test_nothing_is_written_when_bytecode_is_not(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make()
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert not classcode.save(str(kept))
    assert not kept.exists()
    assert classcode.save(str(kept), force=True)  # as compileall does
    assert kept.exists()
    assert not classcode.save(str(kept), force=True)  # nothing new since


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_folder_that_cannot_be_written_is_left_alone(kept: Path) -> None:
    _make()
    kept.parent.mkdir(parents=True)
    kept.parent.chmod(0o500)
    try:
        assert not classcode.save(str(kept), force=True)
        assert os.listdir(kept.parent) == []
    finally:
        kept.parent.chmod(0o700)


def test_a_folder_that_is_a_file_is_left_alone(kept: Path) -> None:
    _make()
    kept.parent.write_text("a file where the cache folder goes\n")
    assert not classcode.save(str(kept), force=True)
    assert kept.parent.read_text() == "a file where the cache folder goes\n"

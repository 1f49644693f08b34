"""The SKILL.md reader: both frontmatter forms, broken files, and files that must not be read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from realdata import realdata

from aeon_evals.load.skillmd import (
    READ_LIMIT,
    Form,
    _simple_frontmatter,
    parse_skill_doc,
    read_skill_doc,
)

INSTANCES = ("aeonfun__aeon@2026-05-03", "aaronjmars__miroshark-aeon@2026-08-22")


def _doc(text: str | bytes, skill: str = "s"):  # type: ignore[no-untyped-def]
    raw = text.encode() if isinstance(text, str) else text
    return parse_skill_doc(skill, f"skills/{skill}/SKILL.md", raw)


def test_every_real_skill_md_is_read_in_its_form() -> None:
    forms: dict[str, set[Form]] = {}
    for name in INSTANCES:
        root = realdata() / "instances" / name
        for folder in sorted((root / "skills").iterdir()):
            doc = read_skill_doc(root, folder.name)
            assert doc is not None and doc.error is None and doc.warnings == ()
            assert doc.name and doc.description and doc.body.strip()
            forms.setdefault(name, set()).add(doc.form)
    assert forms[INSTANCES[0]] == {Form.FLAT, Form.AGENT_SKILLS}
    assert forms[INSTANCES[1]] == {Form.AGENT_SKILLS}


def test_agent_skills_form_merges_metadata_and_reads_scorable() -> None:
    root = realdata() / "instances" / INSTANCES[1]
    doc = read_skill_doc(root, "token-movers")
    assert doc is not None and doc.form is Form.AGENT_SKILLS
    assert doc.name == "token-movers" and doc.meta["category"] == "basics"
    assert doc.meta["mode"] == "write" and doc.scorable
    raw = (root / "skills/token-movers/SKILL.md").read_text()
    first_body_line = raw.splitlines()[doc.body_line - 1]
    assert doc.body.splitlines()[0] == first_body_line
    unscorable = {
        f.name
        for f in (root / "skills").iterdir()
        if (d := read_skill_doc(root, f.name)) is not None and not d.scorable
    }
    assert unscorable == {"heartbeat", "memory-flush", "skill-health"}


def test_flat_form_keeps_top_level_keys() -> None:
    root = realdata() / "instances" / INSTANCES[0]
    doc = read_skill_doc(root, "heartbeat")
    assert doc is not None and doc.form is Form.FLAT
    assert doc.name == "Heartbeat" and doc.meta["tags"] == ["meta"] and doc.body_line == 7


@pytest.mark.parametrize(
    "text",
    [
        "---\nname: x\nscorable: false\n---\nbody\n",
        "---\nname: x\nmetadata:\n  scorable: false\n---\nbody\n",
        "---\nname: x\nmetadata:\n  scorable: 'no'\n---\nbody\n",
    ],
)
def test_scorable_false_at_top_level_or_under_metadata(text: str) -> None:
    assert not _doc(text).scorable


def test_broken_frontmatter_is_read_with_a_warning_naming_file_and_line() -> None:
    doc = _doc(
        "---\nname: x\ndescription: [unclosed\nvar: ''\n---\nWrite to `articles/s-${today}.md`.\n"
    )
    assert doc.form is Form.BROKEN and doc.error is None
    assert doc.body == "Write to `articles/s-${today}.md`.\n" and doc.body_line == 6
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith("skills/s/SKILL.md:4: frontmatter is not valid YAML: ")


@pytest.mark.parametrize(
    ("frontmatter", "line"),
    [
        ('name: "x\n', 2),  # an unclosed quote: the error was found at the closing `---`
        ('name: x\ndescription: "open\n', 3),
        ("name: x\ndescription: [unclosed\n", 3),
        ("name: x\ndescription: a: b\n", 3),  # found on its own line: unchanged
        ("name: x\ndescription: y\n\tz: 1\n", 4),
    ],
)
def test_a_yaml_error_left_open_pointed_at_the_closing_line(frontmatter: str, line: int) -> None:
    """lint located a quote or `[` left open at the line after the frontmatter (its closing
    `---`), where PyYAML noticed it: it is located where it was opened."""
    doc = _doc(f"---\n{frontmatter}---\nbody\n")
    assert doc.warnings[0].startswith(f"skills/s/SKILL.md:{line}: frontmatter is not valid YAML")


def test_no_frontmatter_and_an_unclosed_one() -> None:
    doc = _doc("# Title\nbody\n")
    assert doc.form is Form.NONE and doc.body_line == 1 and doc.warnings == ()
    doc = _doc("---\nname: x\nbody\n")
    assert doc.form is Form.NONE and doc.body.startswith("---")
    assert doc.warnings == (
        "skills/s/SKILL.md:1: frontmatter has no closing '---'; read as body text",
    )


def test_binary_and_non_utf8_text_are_refused() -> None:
    assert _doc(b"---\nname: x\n---\n\x00\x01").error is not None
    doc = _doc(b"Write to \xff\xfe articles/x.md")
    assert doc.error is not None and doc.warnings[0].startswith("skills/s/SKILL.md: not UTF-8")


def _skill(root: Path, skill: str = "s") -> Path:
    folder = root / "skills" / skill
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "SKILL.md"


def test_missing_skill_md_is_none(tmp_path: Path) -> None:
    (tmp_path / "skills/s").mkdir(parents=True)
    assert read_skill_doc(tmp_path, "s") is None


def test_a_50_mb_skill_md_is_not_read(tmp_path: Path) -> None:
    path = _skill(tmp_path)
    with open(path, "wb") as fh:
        fh.write(b"Write to `articles/s-${today}.md`.\n")
        fh.truncate(50 << 20)
    doc = read_skill_doc(tmp_path, "s")
    assert doc is not None and doc.error is not None and "larger than 1 MiB" in doc.warnings[0]
    path.write_bytes(b"a" * READ_LIMIT)
    doc = read_skill_doc(tmp_path, "s")
    assert doc is not None and doc.error is None


def test_a_fifo_never_blocks(tmp_path: Path) -> None:
    path = _skill(tmp_path)
    os.mkfifo(path)
    doc = read_skill_doc(tmp_path, "s")
    assert doc is not None and doc.warnings == ("skills/s/SKILL.md: not a regular file; not read",)


def test_a_symlink_out_of_the_root_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("Write to `articles/s-${today}.md`.\n")
    root = tmp_path / "root"
    _skill(root).symlink_to(outside)
    doc = read_skill_doc(root, "s")
    assert doc is not None and doc.error is not None and doc.body == ""
    assert doc.warnings == ("skills/s/SKILL.md: symlink leading outside the root; not read",)
    (root / "skills/t").mkdir()
    (root / "skills/t/SKILL.md").symlink_to(root / "skills/missing.md")
    doc = read_skill_doc(root, "t")
    assert doc is not None and doc.error is not None


def test_a_folder_named_skill_md_is_not_read(tmp_path: Path) -> None:
    _skill(tmp_path).mkdir()
    doc = read_skill_doc(tmp_path, "s")
    assert doc is not None and doc.error is not None


# --- the frontmatter read without YAML must read exactly as YAML does -------------------------

_KEYS = st.sampled_from(
    ["name", "description", "var", "tags", "metadata", "title", "on", "Null", "a-b", "_x", "k9"]
)
_WORDS = st.text(alphabet="abcXY z-_.:#'\"[],/", min_size=1, max_size=12).map(lambda w: "a" + w)
_ODD = st.sampled_from(
    [
        "a: b",
        "ends with:",
        "a #comment",
        "'it''s'",
        '"a\\tb"',
        "[on, x]",
        "[a,]",
        "True",
        "No",
        "off",
        "2026-05-03",
        "1e3",
        "- item",
        "|",
        "> folded",
        "&anchor x",
        "*alias",
        "!tag x",
        "%x",
        "Ünïcode wörds",
        "a\u2028b",
        "a\x85b",
        "tab\there",
        "",
    ]
)
_VALUES = st.one_of(
    _WORDS,
    _WORDS.map(lambda w: f'"{w}"'),
    _WORDS.map(lambda w: f"'{w}'"),
    st.lists(_WORDS, max_size=3).map(lambda ws: "[" + ", ".join(ws) + "]"),
    _ODD,
    st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
)
# (indent, key, separator, value); a value of None opens a nested block (`metadata:`)
_LINE = st.tuples(
    st.sampled_from(["", "", "", "", "  ", "  ", "    ", "\t"]),
    _KEYS,
    st.sampled_from([": ", ": ", ": ", ":  ", ":"]),
    st.one_of(_VALUES, _VALUES, _VALUES, st.none()),
)
_LINES = st.lists(_LINE, min_size=1, max_size=6, unique_by=lambda line: line[1])


def _yaml(block: str) -> object:
    try:
        return yaml.safe_load(block)
    except yaml.YAMLError:
        return "YAML refuses it"


@given(_LINES)
@settings(max_examples=400, deadline=None)
def test_frontmatter_read_without_yaml_is_what_yaml_reads(
    parts: list[tuple[str, str, str, str]],
) -> None:
    lines = [
        f"{indent}{key}:\n" if value is None else f"{indent}{key}{colon}{value}\n"
        for indent, key, colon, value in parts
    ]
    simple = _simple_frontmatter(lines)
    if simple is not None:
        assert simple == _yaml("".join(lines))


def test_real_frontmatter_read_without_yaml_is_what_yaml_reads() -> None:
    simple = 0
    for name in INSTANCES:
        for path in sorted((realdata() / "instances" / name / "skills").glob("*/SKILL.md")):
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            close = lines.index("---\n", 1)
            read = _simple_frontmatter(lines[1:close])
            if read is not None:
                simple += 1
                assert read == yaml.safe_load("".join(lines[1:close])), path
    assert simple >= 90  # the flat `key: value` form and `tags: [a, b]` need no YAML parser

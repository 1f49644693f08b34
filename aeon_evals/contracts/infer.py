"""The contract inference: the write instructions of a SKILL.md body, one output per product
and branch, each element with its evidence. `infer_contract` is pure and never raises."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from aeon_evals.contracts.body import HEADING, SHELL, Body, Fence, Unusable, scan
from aeon_evals.contracts.branches import branch_selectors
from aeon_evals.contracts.data import Contract, ContractOutput, Evidence, quoted
from aeon_evals.contracts.exits import exits_of
from aeon_evals.contracts.parts import (
    ALWAYS_FORBIDDEN,
    ITEMISH,
    WordFloors,
    branch_spans,
    forbidden_patterns,
    log_section,
    template_headings,
)
from aeon_evals.contracts.paths import (
    CODE_SPAN,
    LOG_PATTERN,
    MAY_LEAVE,
    OUTSIDE,
    REF,
    WORD,
    WRITE_WORDS,
    Clause,
    clause_class,
    nearest_write_word,
    normalize_ref,
    weak_read,
)
from aeon_evals.load.skillmd import SkillDoc
from aeon_evals.model import Spec


@dataclass
class _Write:
    """One write instruction met in the text."""

    glob: str
    line: int
    quote: str
    condition: str | None
    template: Fence | None
    heading: tuple[int, str] | None = None  # a log heading named on the instruction line
    appends: bool = False  # "Append to …": an accumulating file, not the run's product
    only_if: bool = False  # "… to <path> only if there are findings": written on some runs
    fallback: bool = False  # under a condition of its own (`If identical:` above it): a way out
    in_log_step: bool = False  # under a heading such as `## Log` or `### 8. Log to memory`


@dataclass
class _Draft:
    glob: str
    section: str | None
    conditions: list[str | None] = field(default_factory=list)
    writes: list[_Write] = field(default_factory=list)


def _template_after(doc: Body, index: int) -> Fence | None:
    """The fenced skeleton that follows the instruction on body line `index`: only blank lines,
    or short lead-in lines ending with ':' ("Format:"), may stand between them."""
    gap = 0
    for k in range(index + 1, min(len(doc.lines), index + 8)):
        no, text = doc.lines[k]
        if no in doc.fence_at:
            fence = doc.fences[doc.fence_at[no]]
            return fence if fence.open_line == no and fence.template else None
        stripped = text.strip()
        if not stripped:
            continue
        if HEADING.match(stripped):
            return None
        gap += 1
        if gap > 2 or not stripped.endswith(":") or ITEMISH.match(stripped):
            return None  # a new step ("2. Log to …:") has a template of its own
    return None


_LABEL = re.compile(
    r"(?i)^\s*(?:[-*]\s*)?\**(?:path|file|filename|output file|location)\**\s*:\**\s*`?$"
)


def _under_write_heading(doc: Body, index: int) -> bool:
    """`Path: articles/x.md` under a heading such as `### 6. Write the full report`, or the
    first paragraph under `## Log` ("Consolidate both branches under one heading in …")."""
    prose_lines = 0
    for k in range(index - 1, max(-1, index - 8), -1):
        no, text = doc.lines[k]
        h = HEADING.match(text) if no not in doc.fence_at else None
        if h:
            # `### 6. Write the report`, `## Log`, `## Daily output`; not `### 1. Extract
            # picks from logs` (a noun)
            words = [w.lower() for w in WORD.findall(h.group(2)) if len(w) > 1 or w == "→"]
            return bool(words) and (
                words[0] in WRITE_WORDS or words[-1] in ("log", "logging", "output", "outputs")
            )
        if text.strip() and no not in doc.fence_at:
            prose_lines += 1
            if prose_lines > 2:
                return False
    return False


_PROSE_CONDITION = re.compile(
    r"(?i)\b(?:if|when|unless|otherwise|fallback|on (?:failure|error)|not present|missing|"
    r"absent|unavailable|fails?|failed)\b"
)
_INLINE_HEADING = re.compile(r"`(#{1,4}[ \t]+[^`]+)`")
_ONLY_IF = re.compile(r"(?i)^[^.;]{0,40}?\bonly (?:if|when|on runs?)\b")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _in_message(text: str, start: int, end: int) -> bool:
    """The path at text[start:end] is part of a longer code span that is not a shell
    redirection: a message the skill writes or sends (`- add-topic: … to memory/x.md`), not an
    instruction to write the path."""
    for span in CODE_SPAN.finditer(text):
        if span.start() < start and end <= span.end():
            rest = (text[span.start() + 1 : start] + text[end : span.end() - 1]).strip(" .,:'\"")
            return bool(rest) and ">" not in rest
    return False


def _under_condition(doc: Body, index: int) -> bool:
    """A list item under a conditional lead-in (`If identical:` on the line above `- Append …
    to memory/logs/…`): one way a run may go, not the instruction every run follows."""
    if not _ITEM.match(doc.lines[index][1]):
        return False
    for k in range(index - 1, max(-1, index - 3), -1):
        text = doc.lines[k][1].strip()
        if not text:
            continue
        if text.endswith(":") and _PROSE_CONDITION.search(CODE_SPAN.sub("x", text)):
            return True
        if not _ITEM.match(doc.lines[k][1]):
            return False
    return False


_LOG_STEP = re.compile(r"(?i)^[\W\d]*(?:[a-z]\d*[.)]\s*)?(?:log|logging)\b")


def _log_steps(doc: Body) -> list[tuple[int, int]]:
    """The body index ranges [start, end) of each section whose heading is the log step
    (`## Log`, `### 8. Log to memory`), heading included: where a SKILL.md states the entry
    every run writes."""
    heads = [
        (k, h)
        for k, (no, text) in enumerate(doc.lines)
        if text[:1] == "#" and no not in doc.fence_at and (h := HEADING.match(text))
    ]
    return [
        (k, heads[n + 1][0] if n + 1 < len(heads) else len(doc.lines))
        for n, (k, h) in enumerate(heads)
        if _LOG_STEP.match(h.group(2).replace("*", ""))
    ]


_SHELL_OPEN = re.compile(r"^\s*(?:if|case|while|until)\b|^\s*[^\s()]+\)\s*(?:#.*)?$")
_SHELL_CLOSE = re.compile(r"^\s*(?:fi|esac|done)\b|;;\s*$")


def _shell_conditional(doc: Body) -> set[int]:
    """The lines of shell blocks that run only on a condition: inside `if … fi`, a `case` arm
    (`add-repo:*) … >> memory/watched-repos.md ;;`), or after `&&` / `||`."""
    found: set[int] = set()
    for fence in doc.fences:
        if fence.template or fence.info.lower() not in SHELL:
            continue
        depth = 0
        for no, text in fence.lines:
            code = text.split(" #", 1)[0]
            if depth > 0 or "&&" in code or "||" in code:
                found.add(no)
            if _SHELL_OPEN.match(code) and not re.search(r"\b(?:fi|esac|done)\s*$", code):
                depth += 1
            elif _SHELL_CLOSE.search(code):
                depth = max(0, depth - 1)
    return found


def _writes(doc: Body) -> tuple[list[_Write], list[str]]:
    """Every write instruction of the body, and the warnings for paths outside the root."""
    # Shell fences may redirect into an output (`> articles/x.md`): their lines count as prose.
    shell_lines = {
        no
        for fence in doc.fences
        if not fence.template and fence.info.lower() in SHELL
        for no, _ in fence.lines
    }
    texts = (
        [text if (no not in doc.fence_at or no in shell_lines) else "" for no, text in doc.lines]
        if doc.fences
        else doc.texts
    )
    prose = "\n".join(texts)
    shell_conditional = _shell_conditional(doc) if shell_lines else set()
    log_step = _log_steps(doc)
    found: list[_Write] = []
    warnings: list[str] = []
    # offset of line k in `prose`: the lengths of the lines before it, plus their newlines
    lengths = list(itertools.accumulate(map(len, texts), initial=0))
    for index in [k for k, text in enumerate(texts) if "/" in text]:  # few lines name a path
        no, text = doc.lines[index][0], texts[index]
        if no in doc.var_doc:
            continue  # what a `var` value selects: no instruction of a run
        base = lengths[index] + index
        for m in OUTSIDE.finditer(text) if MAY_LEAVE.search(text) else ():
            start = base + m.start()
            if clause_class(prose[max(0, start - 300) : start]) == Clause.WRITE:
                warnings.append(
                    f"{doc.path}:{no}: writes outside the instance root ({m.group(1)}); no contract"
                )
        for m in REF.finditer(text) if ("articles/" in text or "memory/" in text) else ():
            raw = m.group(1)
            start = base + m.start()
            if ".." in raw.split("/"):
                if clause_class(prose[max(0, start - 300) : start]) == Clause.WRITE:
                    warnings.append(
                        f"{doc.path}:{no}: writes outside the instance root ({raw}); no contract"
                    )
                continue
            glob = normalize_ref(raw)
            if glob is None or _in_message(text, m.start(), m.end()):
                continue
            clause = prose[max(0, start - 300) : start]
            cls = clause_class(clause)
            if cls != Clause.WRITE and not (
                (_LABEL.match(text[: m.start()]) or cls == Clause.UNKNOWN or weak_read(clause))
                and _under_write_heading(doc, index)
            ):
                continue
            heading = None
            hm = _INLINE_HEADING.search(text, m.end()) or _INLINE_HEADING.search(text, 0, m.start())
            if hm:
                heading = (no, hm.group(1).strip())
            clause = prose[max(0, start - 300) : start]
            condition: str | None = doc.branch_at.get(no)
            lead = CODE_SPAN.sub("x", text[: m.start()])
            fallback = bool(_PROSE_CONDITION.search(lead)) or no in shell_conditional
            if fallback:
                # "If X, write …" / "`./notify` not present — write …": a fallback, not the product
                words = " ".join(CODE_SPAN.sub("…", text[: m.start()]).replace("*", "").split())
                condition = f"if: {words[:60]}" if condition is None else condition
            found.append(
                _Write(
                    appends=nearest_write_word(clause).startswith("append")
                    or bool(re.match(r"[`*\s]*\(?\s*append", text[m.end() : m.end() + 20], re.I)),
                    glob=glob,
                    line=no,
                    quote=quoted(text),
                    condition=condition,
                    template=_template_after(doc, index),
                    heading=heading,
                    only_if=bool(_ONLY_IF.match(CODE_SPAN.sub("x", text[m.end() :]))),
                    fallback=fallback or _under_condition(doc, index),
                    in_log_step=any(lo <= index < hi for lo, hi in log_step),
                )
            )
    return found, warnings


def _conditional(
    draft: _Draft, cond: str | None, exits: list[tuple[int, str | None, Evidence]]
) -> Evidence | None:
    """Why the product `draft` is written only on some runs of branch `cond`, when it is: its
    own sentence ("… only if there are findings", "If …, write"), or an early exit before it
    ("If zero picks are found, log … and stop")."""
    writes = [w for w in draft.writes if w.condition == cond]
    if writes and all(w.only_if or (w.condition or "").startswith("if:") for w in writes):
        return Evidence(writes[0].line, writes[0].quote)
    first = min(w.line for w in writes) if writes else 0
    return next(
        (ev for no, branch, ev in exits if no < first and branch in (None, cond)),
        None,
    )


def _no_contract(doc: SkillDoc, reason: str, warnings: Iterable[str] = ()) -> Contract:
    return Contract(
        skill=doc.skill,
        outputs=(),
        reason=reason,
        source=doc.path.rpartition("/")[2],
        scorable=doc.scorable,
        warnings=(*doc.warnings, *warnings),
        sha256=doc.sha256,
    )


def _kind(glob: str) -> int:
    """Among products of one branch, an article before a rewritten memory file: the topic file
    a skill also writes beside its report is the next run's baseline (`last30-<slug>.md`)."""
    return 0 if glob.startswith(("articles/", "output/articles/")) else 1


def _rank(draft: _Draft) -> int:
    """0: the run's product (an article, a rewritten topic file); 1: the daily log entry;
    2: a file the skill only appends to."""
    if draft.glob == LOG_PATTERN:
        return 1
    if draft.glob.startswith("memory/") and all(w.appends for w in draft.writes):
        return 2
    return 0


def infer_contract(doc: SkillDoc) -> Contract:
    """The output contract `doc`'s body states. Pure; never raises for any text.

    No usable contract (empty `outputs`, with `reason`) when the file could not be read, has an
    unterminated code fence, writes outside the root, or names no output it writes.
    """
    if doc.error is not None:
        return Contract(
            doc.skill, (), doc.error, "SKILL.md", doc.scorable, doc.warnings, doc.sha256
        )
    try:
        scanned = scan(doc)
    except Unusable as exc:
        return _no_contract(doc, "a code fence is never closed", [str(exc)])
    writes, outside = _writes(scanned)
    if outside:
        return _no_contract(doc, "SKILL.md writes outside the instance root", outside[:1])
    if not writes:
        return _no_contract(doc, "SKILL.md names no output it writes")
    if any(not (w.condition or "").startswith("if:") for w in writes):
        # a fallback ("if X is missing, write …") is not the product when the skill has one
        writes = [w for w in writes if not (w.condition or "").startswith("if:")]
    drafts: dict[str, _Draft] = {}
    for write in writes:
        draft = drafts.setdefault(write.glob, _Draft(write.glob, None))
        draft.writes.append(write)
        draft.conditions.append(write.condition)
    if LOG_PATTERN in drafts:
        log = drafts[LOG_PATTERN]
        # the heading of the entry every run writes, before a way out's (`If identical: …`)
        ordered = sorted(
            log.writes,
            key=lambda w: (w.fallback, not w.in_log_step, w.condition is not None, w.line),
        )
        sections = [(w, *log_section(w.heading, w.template, doc.skill)) for w in ordered]
        named = next(((w, sec) for w, sec, ev in sections if ev is not None), None)
        log.section = named[1] if named is not None else sections[0][1]
        # the write that names the entry's heading is the one the evidence quotes
        log.writes.sort(key=lambda w: w is not (named[0] if named else None))
    # One product per branch: a dated article or a rewritten topic file, else the log entry,
    # else a file the skill only appends to.
    rank = {g: _rank(d) for g, d in drafts.items()}
    best: dict[str | None, int] = {}
    for g, d in drafts.items():
        for c in d.conditions:
            best[c] = min(best.get(c, 9), rank[g])
    floor_all = best.get(None, 9)
    kept: list[tuple[_Draft, list[str | None]]] = []
    for g, d in drafts.items():
        conds = [c for c in dict.fromkeys(d.conditions) if rank[g] <= min(best[c], floor_all)]
        if conds:
            kept.append((d, conds))
    # A product written only on some runs (an early exit before it, "only if" in its sentence)
    # keeps the branch's log entry beside it: a run that took the way out wrote only that.
    only_if: dict[str, Evidence] = {}
    log_draft = drafts.get(LOG_PATTERN)
    products = log_draft is not None and any(rank[d.glob] == 0 for d, _ in kept)
    exits = exits_of(scanned) if products else []
    for draft, conds in list(kept):
        if rank[draft.glob] != 0 or log_draft is None:
            continue
        for cond in conds:
            why = _conditional(draft, cond, exits)
            if why is None:
                continue
            only_if.setdefault(draft.glob, why)
            also = [c for c in dict.fromkeys(log_draft.conditions) if c in (cond, None)]
            held = next((item for item in kept if item[0] is log_draft), None)
            if held is None and also:
                kept.append((log_draft, also))
            elif held is not None:
                held[1].extend(c for c in also if c not in held[1])
    kept.sort(key=lambda item: (rank[item[0].glob], _kind(item[0].glob), item[0].writes[0].line))
    prose = (
        "\n".join(t for no, t in scanned.lines if no not in scanned.fence_at)
        if scanned.fences
        else "\n".join(scanned.texts)
    )
    always = tuple((p, None) for p in ALWAYS_FORBIDDEN)
    floors = WordFloors(scanned)
    span = branch_spans(scanned)
    outputs: list[ContractOutput] = []
    for draft, conds in kept:
        first = next(
            (w for w in draft.writes if w.condition in conds and not w.fallback),
            next((w for w in draft.writes if w.condition in conds), draft.writes[0]),
        )
        condition = None if None in conds else " | ".join(c for c in conds if c)
        evidence: list[tuple[str, Evidence]] = [("output", Evidence(first.line, first.quote))]
        if draft.glob in only_if:
            evidence.append(("only_if", only_if[draft.glob]))
        templates = [w.template for w in draft.writes if w.template is not None]
        headings: list[str] = []
        section = draft.section
        if section is not None:
            sev = next(
                (
                    ev
                    for w in draft.writes
                    if (ev := log_section(w.heading, w.template, doc.skill)[1])
                ),
                None,
            )
            if sev is not None:
                evidence.append(("section", sev))
        else:
            template = templates[0] if templates else None
            if template is not None:
                k = scanned.index(template.close_line)
                after = list(scanned.texts[k + 1 : k + 12])
                for no, heading in template_headings(template, after):
                    if heading not in headings:
                        headings.append(heading)
                        evidence.append((f"heading:{heading}", Evidence(no, heading)))
        min_words = 0
        if section is None:
            if first.condition is None and not scanned.branch_at and scanned.lines:
                start, hi = 0, len(scanned.lines)  # no branch heading: the whole body
            else:
                start, hi = span(first.condition, scanned.index(first.line))
            floor = floors.first(start, hi)
            if floor is not None:
                min_words = floor[0]
                evidence.append(("min_words", floor[1]))
        forbidden = forbidden_patterns(templates, prose, always)
        for pattern, ev in forbidden:
            if ev is not None:
                evidence.append((f"forbidden:{pattern}", ev))
        spec = Spec(
            skill=doc.skill,
            output_pattern=draft.glob,
            min_words=min_words,
            forbidden_patterns=tuple(p for p, _ in forbidden),
            section=section,
            required_headings=tuple(headings),
        )
        outputs.append(ContractOutput(spec, condition, tuple(evidence)))
    return Contract(
        skill=doc.skill,
        outputs=tuple(outputs),
        reason=None,
        source=outputs[0].source,
        scorable=doc.scorable,
        warnings=doc.warnings,
        sha256=doc.sha256,
        selectors=branch_selectors(scanned),
    )

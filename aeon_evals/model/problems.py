"""One problem found in a file the tool reads: the file, where in it, the message, how much it
matters; every validator (evals.json, aeon.yml, `validate`) reports these."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace


class Severity(enum.StrEnum):
    """How much a problem matters: errors make a configuration invalid, the others do not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


# A warning that starts at a line of a file (`Problem.brief`): `skills/x/evals.json:9: …`.
_AT_LINE = re.compile(r"^([^\s:]+:\d+): (.*)$", re.S)
# A location that ends in its line (`skills.x (line 3)`, `line 20`), as the registry writes them.
_LINE_SUFFIX = re.compile(r"^(?:(.*) )?\(?line (\d+)\)?$")


@dataclass(frozen=True)
class Problem:
    """One thing wrong in `file`, at `where` (like `skills.x.numeric_checks[0].max`; "" for the
    whole file) and, when known, on `line`."""

    file: str
    where: str
    message: str
    severity: Severity = Severity.ERROR
    line: int | None = None

    def brief(self) -> str:
        """`file:line: where: message` (`file: where: message` without a line), as the run's
        warnings show it."""
        place = f"{self.file}:{self.line}" if self.line else self.file
        return ": ".join(part for part in (place, self.where, self.message) if part)

    def text(self) -> str:
        """`file:line: severity: where: message`, as `validate` prints it."""
        place = f"{self.file}:{self.line}" if self.line else self.file
        return ": ".join(part for part in (place, self.severity, self.where, self.message) if part)

    def located(self) -> Problem:
        """The problem with the line its location carries (`skills.x (line 3)`, `line 20`)
        moved into `line`."""
        match = _LINE_SUFFIX.match(self.where)
        if self.line is not None or match is None:
            return self
        return replace(self, where=match.group(1) or "", line=int(match.group(2)))

    def as_json(self) -> dict[str, str | int | None]:
        """The problem for `validate --json` (its severity is the list it is in)."""
        return {"file": self.file, "line": self.line, "where": self.where, "message": self.message}


def warning_line(warning: str) -> str:
    """A run warning as printed on stderr: `file:line: warning: …` when it starts at a line of a
    file, as `validate` and `lint` print it (so editors and CI logs can jump to it), else
    `warning: …`."""
    match = _AT_LINE.match(warning)
    if match is None:
        return f"warning: {warning}"
    return f"{match.group(1)}: {Severity.WARNING}: {match.group(2)}"

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
        """`file: where: message`, as the run's warnings show it."""
        return ": ".join(part for part in (self.file, self.where, self.message) if part)

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

"""What goes wrong reading a suite: a malformed line (skipped and reported as `file:line`, or
stopping the run under `--strict`) and a file that cannot be read at all."""

from __future__ import annotations

from dataclasses import dataclass, field

from ud_agree.errors import UserError


class MalformedInput(UserError):
    """--strict: a malformed line of a suite stops the run."""


class SuiteFormatError(UserError):
    """A suite file that cannot be read at all, or options that do not fit it."""


@dataclass(frozen=True)
class Malformed:
    """One skipped line: where, and why."""

    file: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.reason}"
            if self.line
            else f"{self.file}: {self.reason}"
        )


@dataclass
class Problems:
    """The malformed lines of one file; under `strict` the first one raises."""

    file: str
    strict: bool = False
    found: list[Malformed] = field(default_factory=list)

    def add(self, line: int | None, reason: str) -> None:
        """Report a line (raises MalformedInput under strict)."""
        entry = Malformed(self.file, line, reason)
        if self.strict:
            raise MalformedInput(str(entry))
        self.found.append(entry)

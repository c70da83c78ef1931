"""One error hierarchy and one exit wrapper for every command line of the project."""

from __future__ import annotations

import argparse
import difflib
import errno
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


class UserError(Exception):
    """A problem the user can fix (input, options, installation): one line on stderr, exit 2."""

    exit_code = 2


class UsageError(UserError):
    """A user-facing error of the evaluator (an option, a corpus, a model folder): one line, exit
    status 2."""


class MachineError(Exception):
    """A fault of the machine, not of the input (no space, permission denied, read-only file
    system, too many open files…): one line naming the path and the cause, exit 1."""

    exit_code = 1

    def __init__(self, path: str | Path | None, cause: str, saved: str = "") -> None:
        self.path, self.cause, self.saved = path, cause, saved
        where = f" on {path}" if path else ""
        super().__init__(f"{cause}{where}" + (f"; {saved}" if saved else ""))

    @classmethod
    def of(cls, error: OSError, path: str | Path | None = None) -> MachineError:
        """The fault of an OSError, on `path` (else the error's own file name)."""
        return cls(path or error.filename, cause_of(error))

    def __reduce__(self) -> tuple:  # crosses process boundaries (mining workers)
        return (MachineError, (self.path, self.cause, self.saved))

    def saving(self, saved: str) -> MachineError:
        """The same fault, saying what was already written whole and how to go on."""
        return MachineError(self.path, self.cause, saved)


class Terminated(BaseException):
    """SIGTERM (`kill`, `timeout`, a batch system's time limit): stop as Ctrl-C stops."""


def cause_of(error: OSError) -> str:
    """What went wrong, in words: `no space left on device`, `permission denied`…"""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on device"
    if error.errno is not None:
        return os.strerror(error.errno).lower()
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[0].lower() + text[1:] if text else type(error).__name__


def terminate_as_interrupt() -> None:
    """From now on SIGTERM raises `Terminated` in the main thread (cleanups run, then exit 143)."""

    def handler(signum: int, frame: object) -> None:
        raise Terminated

    signal.signal(signal.SIGTERM, handler)


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr, exit code 2, and whose options are
    taken only as spelled in full (`--min-candidate 3` is an error, not `--min-candidates`)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def add_argument(self, *names: Any, **kwargs: Any) -> argparse.Action:
        """As argparse's; `--out` refuses an empty path (Path('') is the working directory)."""
        if "--out" in names:
            kwargs["type"] = not_empty(kwargs.get("type") or str)
        return super().add_argument(*names, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {message}{self.suggestion(message)} (see {self.prog} --help)\n")

    def suggestion(self, message: str) -> str:
        """`; did you mean --min-candidates?` for an option spelled almost like one of ours."""
        if not message.startswith("unrecognized arguments: "):
            return ""
        options = [name for action in self._actions for name in action.option_strings]
        for word in message.split(": ", 1)[1].split():
            if word.startswith("--"):
                close = did_you_mean(word.split("=", 1)[0], options)
                if close:
                    return f"; did you mean {close}?"
        return ""


def did_you_mean(word: str, names: Sequence[str], cutoff: float = 0.75) -> str | None:
    """The one of `names` spelled most like `word` (a typo: `frequncy` → `frequency`), if any."""
    close = difflib.get_close_matches(word, list(names), n=1, cutoff=cutoff)
    return close[0] if close else None


def run_main(body: Callable[[], int], interrupted: str = "interrupted") -> int:
    """Run a command's body: a UserError is `error: …` and its exit code (2), a fault of the
    machine (an OSError) one line and exit 1, Ctrl-C exit 130 and SIGTERM exit 143."""
    previous = signal.getsignal(signal.SIGTERM)
    try:
        terminate_as_interrupt()
    except ValueError:  # not the main thread: leave SIGTERM alone
        previous = None
    try:
        return body()
    except (UserError, MachineError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"error: {message}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:  # `… | head`: the reader is gone, nothing is wrong
        return 0
    except OSError as error:
        print(f"error: {MachineError.of(error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(interrupted, file=sys.stderr)
        return 130
    except Terminated:
        print(f"terminated: {interrupted}", file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def argv_list(argv: Sequence[str] | None) -> list[str]:
    """The arguments a command was given (sys.argv[1:] when None)."""
    return list(sys.argv[1:] if argv is None else argv)


# The tools' modules: `python -m <module>` from the repository root, `ud-agree <command>` anywhere.
TOOLS = {
    "mine": "mine",
    "evaluate": "evaluate",
    "suite": "evaluate.suite",
    "report": "evaluate.report",
    "merge": "evaluate.merge",
    "export": "mine.export",
    "compare": "mine.compare",
    "validate": "mine.validate",
    "cluster": "evaluate.cluster",
}


def tool_command(prog: str, command: str) -> str:
    """How a help text run as `prog` names another tool: `ud-agree mine` where it was itself run
    as a `ud-agree` subcommand, else `python -m mine`."""
    return f"ud-agree {command}" if prog.startswith("ud-agree") else f"python -m {TOOLS[command]}"


def not_empty(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse `type` that refuses an empty or blank value, then converts it."""

    def checked(text: str) -> Any:
        if not text.strip():
            raise argparse.ArgumentTypeError("an empty path; name a folder or file")
        return convert(text)

    checked.__name__ = getattr(convert, "__name__", "value")
    return checked


def check_out(out: str | Path) -> None:
    """A MachineError where `out` cannot become an output folder (a file there or above it, a
    folder that cannot be written): said before any slow work starts, as writing would say it."""
    path = Path(out)
    above = path
    while not above.exists() and above != above.parent:  # the nearest that exists
        above = above.parent
    if above.exists() and not above.is_dir():
        raise MachineError(above if above == path else path, "not a directory")
    if not path.exists() and not os.access(above, os.W_OK | os.X_OK):
        raise MachineError(above, "permission denied")


def at_least(low: int) -> Callable[[str], int]:
    """An argparse `type`: an integer, `low` or more (`--nonce -1` is refused, never read as 0)."""

    def integer(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value}: give {low} or more")
        return value

    return integer

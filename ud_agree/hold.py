"""One process at a time in an output folder (an evaluator run, a shard, a suite run, a mined
language): a hold file created with O_CREAT|O_EXCL, which works on local and network file
systems alike (NFSv3 and later create exclusively; fcntl/flock locks are not reliable there).

The hold names its holder (host, pid) and is touched every HEARTBEAT seconds while held. Another
process takes a hold over only when it is stale: its holder is on this host and no longer runs,
or, on another host, it has not been touched for STALE seconds (a lost node). Taking over renames
the stale file first, so that of two processes that both saw it stale only one wins.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import MachineError, UserError

NAME = ".ud-agree.hold"
HEARTBEAT = 30.0  # seconds between touches of a held hold
STALE = 300.0  # a hold of another host untouched this long is taken over


class HeldError(UserError):
    """The folder is held by another running process."""


def _holder(path: Path) -> dict | None:
    """What a hold file says (None: gone, or not yet written by its creator)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it runs
        return True
    return True


def is_stale(path: Path, now: float | None = None) -> bool:
    """Whether the hold at `path` may be taken over (its holder is gone)."""
    holder = _holder(path)
    try:
        touched = path.stat().st_mtime
    except FileNotFoundError:
        return True
    age = (now or time.time()) - touched
    if holder is None:  # being written this instant, or garbage left by a crash
        return age > STALE
    if holder.get("host") == socket.gethostname():
        return not _alive(int(holder.get("pid", -1)))
    return age > STALE


def _create(path: Path, token: str) -> bool:
    """Create the hold file; False when it exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return False
    record = {"host": socket.gethostname(), "pid": os.getpid(), "token": token,
              "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}  # fmt: skip
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    return True


def acquire(folder: Path) -> tuple[Path, str]:
    """Hold `folder` (created if need be); a HeldError names a live holder."""
    path = folder / NAME
    token = secrets.token_hex(8)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(3):
            if _create(path, token):
                return path, token
            if not is_stale(path):
                holder = _holder(path) or {}
                raise HeldError(
                    f"{folder} is in use by pid {holder.get('pid', '?')} on host "
                    f"{holder.get('host', '?')} (since {holder.get('since', '?')}); wait for it "
                    f"to finish, or delete {path} if that process is gone"
                )
            # Stale: move it aside (one taker wins the rename), then try to create again.
            try:
                os.rename(path, path.with_name(f"{NAME}.stale-{token}"))
                os.unlink(path.with_name(f"{NAME}.stale-{token}"))
            except FileNotFoundError:
                pass
    except OSError as error:
        raise MachineError.of(error, error.filename or path) from None
    raise HeldError(f"{folder} is being taken over by another process; try again")


def release(path: Path, token: str) -> None:
    """Give a hold back, if it is still ours."""
    holder = _holder(path)
    if holder is not None and holder.get("token") == token:
        path.unlink(missing_ok=True)


@contextmanager
def hold(folder: str | Path) -> Iterator[Path]:
    """Hold `folder` for the block, touching the hold so that other hosts see it is alive (a
    folder made for the hold and left empty by the block is removed with it, and so are the
    parents made for it: a run that writes nothing leaves no `<out>/<lang>/`)."""
    made = [p for p in (Path(folder), *Path(folder).parents) if not p.exists()]
    path, token = acquire(Path(folder))
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(HEARTBEAT):
            try:
                os.utime(path)
            except OSError:
                return

    beat = threading.Thread(target=heartbeat, name="ud-agree hold", daemon=True)
    beat.start()
    try:
        yield path
    finally:
        stop.set()
        release(path, token)
        with contextlib.suppress(OSError):  # not empty: the block wrote there
            for made_folder in made:  # innermost first
                made_folder.rmdir()

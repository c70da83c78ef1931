"""Atomic file writes for both tools: a reader sees the old file or the new one, never a part.

A fault of the machine (no space, permission denied…) becomes a `MachineError` naming the target,
and the temporary file is removed: nothing half-written is ever left. The temporary file is
created in the target's folder with the umask's permissions (as `open`
would give the final file, unlike `mkstemp`'s 0600), flushed and fsynced before the rename,
and the folder is fsynced after it, so a power cut cannot leave an empty file behind.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, cast

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import MachineError


class _Digesting:
    """A write handle that hashes the bytes passing through it (a fingerprint without a second
    read of the file)."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle, self.digest = handle, hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()

    def tell(self) -> int:
        return self.handle.tell()

    @property
    def closed(self) -> bool:
        return self.handle.closed


def fingerprint(path: str | Path) -> str:
    """A file's fingerprint as manifests record it (`sha256:<hex>`)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def changed_tables(folder: str | Path, recorded: dict[str, str]) -> list[str]:
    """The files of `folder` whose fingerprint is not the one its manifest `recorded` (missing
    ones too), by name."""
    changed = []
    for name, expected in sorted(recorded.items()):
        path = Path(folder) / name
        try:
            if fingerprint(path) != expected:
                changed.append(name)
        except OSError:
            changed.append(name)
    return changed


def edited_since_written(folder: str | Path, names: list[str]) -> list[str]:
    """Those of `names` (files of a folder the miner wrote) whose fingerprint is no longer the
    one its `manifest.json` records; none where the manifest records none (an older corpus)."""
    try:
        recorded = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    tables = recorded.get("tables") if isinstance(recorded, dict) else None
    if not isinstance(tables, dict):
        return []
    return changed_tables(folder, {name: tables.get(name, "") for name in names})


def edited_message(folder: str | Path, names: list[str]) -> str | None:
    """What a reader says of the tables of `names` that `edited_since_written` finds (None: none),
    without the fix, which is the reader's to name."""
    edited = edited_since_written(folder, names)
    if not edited:
        return None
    return (
        f"{folder}: {', '.join(edited)} changed since it was mined (its fingerprint in "
        "manifest.json differs)"
    )


@contextmanager
def atomic_file(
    path: str | Path, fingerprints: dict[str, str] | None = None
) -> Iterator[IO[bytes]]:
    """A binary handle on a temporary file beside `path`, renamed into place when the block ends
    without an error (removed when it raises); with `fingerprints`, the file's fingerprint is
    recorded there under its name, hashed as it is written."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        # The user knows the target, not our temporary name (a folder that failed is named).
        named = path if error.filename in (None, str(temporary)) else error.filename
        raise MachineError.of(error, named) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            digesting = None if fingerprints is None else _Digesting(handle)
            # pyarrow and the writers need only write, flush and tell.
            yield handle if digesting is None else cast("IO[bytes]", digesting)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        # A write to the handle names no file: it is this one. (An error of the block's own
        # reads names its file.)
        raise MachineError.of(error, error.filename or path) from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)
    if digesting is not None and fingerprints is not None:
        fingerprints[path.name] = f"sha256:{digesting.digest.hexdigest()}"


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], object]) -> Path:
    """Call write(handle) on a temporary file beside `path`, then rename it into place (what
    write returns is ignored)."""
    with atomic_file(path) as handle:
        write(handle)
    return Path(path)


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # some platforms cannot open folders; the rename itself is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes(data: bytes, path: str | Path) -> Path:
    """Bytes, atomically."""
    return atomic_write(path, lambda handle: handle.write(data))


def write_text(text: str, path: str | Path) -> Path:
    """UTF-8 text, atomically."""
    return write_bytes(text.encode("utf-8"), path)


def write_json(data: Any, path: str | Path) -> Path:
    """Indented UTF-8 JSON, atomically (non-JSON values such as paths written as strings)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    return write_text(text + "\n", path)


def write_parquet(
    table: pa.Table,
    path: str | Path,
    schema: pa.Schema | None = None,
    fingerprints: dict[str, str] | None = None,
) -> Path:
    """A Parquet table (cast to `schema` when given, its columns in schema order), atomically
    (its fingerprint recorded in `fingerprints` when given)."""
    if schema is not None:
        table = table.select(schema.names).cast(schema)
    with atomic_file(path, fingerprints) as handle:
        pq.write_table(table, handle, compression="snappy")
    return Path(path)


def write_csv(frame: Any, path: str | Path) -> Path:
    """A polars DataFrame as CSV, atomically."""
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    return write_bytes(buffer.getvalue(), path)


@contextmanager
def atomic_folder(path: str | Path) -> Iterator[Path]:
    """A temporary folder beside `path` to fill, which then replaces `path` whole (an older
    folder there is removed after the swap): a reader never sees a part of the new folder nor
    what remains of the old one, and a failure leaves the old folder as it was."""
    path = Path(path)
    token = f"{os.getpid()}.{secrets.token_hex(4)}"
    temporary = path.with_name(f".{path.name}.{token}.tmp")
    try:
        if path.exists() and not path.is_dir():  # a file in the way is never replaced
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.mkdir()
    except OSError as error:
        named = path if error.filename in (None, str(temporary)) else error.filename
        raise MachineError.of(error, named) from None
    try:
        yield temporary
        _fsync_folder(temporary)
        _swap_in(temporary, path, path.with_name(f".{path.name}.{token}.old.tmp"))
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        named = path if error.filename is None or ".tmp" in str(error.filename) else error.filename
        raise MachineError.of(error, named) from None
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    _fsync_folder(path.parent)


def _swap_in(new: Path, path: Path, old: Path) -> None:
    """Put the folder `new` at `path`, an existing folder there moved to `old`, then removed
    (moved back when the second rename fails)."""
    if not path.exists():
        os.rename(new, path)
        return
    os.rename(path, old)
    try:
        os.rename(new, path)
    except OSError:
        os.rename(old, path)
        raise
    shutil.rmtree(old, ignore_errors=True)


def input_named(out: str | Path, inputs: Iterable[str | Path]) -> Path | None:
    """The one of `inputs` that `out` names (the same file, through a link too), if any: a
    command never writes over what it reads."""
    out = Path(out)
    for path in map(Path, inputs):
        try:
            if out.resolve() == path.resolve() or (
                out.exists() and path.exists() and os.path.samefile(out, path)
            ):
                return path
        except OSError:
            continue
    return None


def corpus_files(folder: str | Path) -> list[Path]:
    """What a mined language folder holds that its readers read: its manifest and tables."""
    folder = Path(folder)
    return [folder / "manifest.json", *sorted(folder.glob("*.parquet"))]

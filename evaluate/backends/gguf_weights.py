"""GGUF files (llama.cpp's single-file format) named as a model: the file found, its facts read
(sha256, quantization), and its weights dequantized once into a cached transformers folder that
every later load reads instead (seconds, not the file's conversion)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from dataclasses import asdict, dataclass, replace
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ud_agree.errors import UserError

from .spec import MODEL_FILE_ERRORS

SUFFIX = ".gguf"
INSTALL = "pip install 'gguf>=0.10'"
# Where dequantized folders are kept, one per file's sha256 (see docs/choices.md).
CACHE_VARIABLE = "UD_AGREE_GGUF_CACHE"
FACTS_FILE = "gguf.json"  # written last: a folder without it is unfinished and made again


class GgufError(UserError):
    """A GGUF model that cannot be read: no `gguf` package, several files, a file not GGUF."""


@dataclass(frozen=True)
class GgufFacts:
    """What the manifest records of a GGUF model: the file, its sha256, its quantization."""

    file: str  # absolute path
    sha256: str
    quantization: str  # llama.cpp's file type without its prefix (`Q4_1`, `Q4_K_M`, `F32`)
    tensor_types: dict[str, int]  # tensors per stored type
    architecture: str
    dequantized_to: str = "float32"


def gguf_file(model: str) -> Path | None:
    """The GGUF file a model name means: a `.gguf` file, or a folder holding exactly one and no
    `config.json` (a transformers folder stays one); None for anything else."""
    path = Path(model).expanduser()
    if path.is_file():
        return path if path.suffix.lower() == SUFFIX else None
    if not path.is_dir() or (path / "config.json").is_file():
        return None
    found = sorted(p for p in path.iterdir() if p.suffix.lower() == SUFFIX and p.is_file())
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise GgufError(
            f"model folder '{model}' holds {len(found)} GGUF files ({names}); name one with "
            f"--model {found[0]}"
        )
    return found[0] if found else None


def missing_package(model: str, flag: str = "--model") -> str:
    """The one-line refusal of a GGUF model when the `gguf` package is absent, found without
    importing torch; empty otherwise."""
    try:
        path = gguf_file(model)
    except GgufError as error:
        return str(error)
    if path is None or find_spec("gguf") is not None:
        return ""
    return f"{flag} {model} is a GGUF file: reading it needs the gguf package ({INSTALL})"


def cache_root() -> Path:
    """$UD_AGREE_GGUF_CACHE, else `ud-agree-gguf` in the Hugging Face cache ($HF_HOME)."""
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE]).expanduser()
    home = os.environ.get("HF_HOME") or Path(
        os.environ.get("XDG_CACHE_HOME", "~/.cache"), "huggingface"
    )
    return Path(home).expanduser() / "ud-agree-gguf"


def sha256_of(path: Path) -> str:
    """The file's sha256, read in 8 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(1 << 23):
            digest.update(block)
    return digest.hexdigest()


@cache
def _sha256_once(path: Path, size: int, mtime_ns: int) -> str:
    """A file's sha256 computed once per process while the file is unchanged (a run resolves its
    model for the config, the tokenizer and the weights)."""
    return sha256_of(path)


def file_sha256(path: Path) -> str:
    """The file's sha256, remembered while its size and time are unchanged."""
    stat = path.stat()
    return _sha256_once(path.resolve(), stat.st_size, stat.st_mtime_ns)


def quantization(file_type: int | None, tensor_types: Counter[str]) -> str:
    """llama.cpp's `general.file_type` name (`MOSTLY_Q4_K_M` → `Q4_K_M`); without one, the
    type most tensors are stored in."""
    if file_type is not None:
        from gguf import LlamaFileType

        try:
            name = LlamaFileType(file_type).name
        except ValueError:
            return f"file type {file_type}"
        return name.removeprefix("MOSTLY_").removeprefix("ALL_")
    return tensor_types.most_common(1)[0][0] if tensor_types else "unknown"


def read_facts(path: Path, sha256: str) -> GgufFacts:
    """The file's quantization, tensor types and architecture (its header parsed, its tensors
    not dequantized), with its sha256."""
    from gguf import GGUFReader

    try:
        reader = GGUFReader(path)
    except (ValueError, OSError, KeyError, IndexError) as error:
        raise GgufError(f"{path}: not a readable GGUF file ({_first_line(error)})") from None
    types = Counter(t.tensor_type.name for t in reader.tensors)
    field = reader.get_field("general.file_type")
    arch = reader.get_field("general.architecture")
    return GgufFacts(
        file=str(path.resolve()),
        sha256=sha256,
        quantization=quantization(None if field is None else int(field.contents()), types),
        tensor_types=dict(sorted(types.items())),
        architecture="unknown" if arch is None else str(arch.contents()),
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:160] if text else type(error).__name__


def require_package(model: str) -> None:
    """Refuse a GGUF model at once when the `gguf` package is absent."""
    if problem := missing_package(model):
        raise GgufError(problem)


def cached_folder(model: str) -> tuple[str, GgufFacts | None]:
    """The folder transformers loads for `model`: a GGUF file's dequantized copy (made now when
    the cache lacks it) with the file's facts, or the name itself and None. A cached copy is
    found by the file's sha256 alone: the file is not parsed again."""
    path = gguf_file(model)
    if path is None:
        return model, None
    require_package(model)
    sha256 = file_sha256(path)
    folder = cache_root() / sha256
    facts = _cached_facts(folder / FACTS_FILE)
    if facts is None:
        facts = read_facts(path, sha256)
        dequantize(path, folder, facts)
    return str(folder), replace(facts, file=str(path.resolve()))


def _cached_facts(file: Path) -> GgufFacts | None:
    """The facts a finished cache folder recorded; None where it is absent or unreadable."""
    try:
        return GgufFacts(**json.loads(file.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def remove_abandoned(folder: Path) -> None:
    """Remove the half-written copies of `folder` whose writing process is gone (killed, where
    no handler ran); a live process's copy is its own."""
    for partial in folder.parent.glob(f"{folder.name}.partial-*"):
        pid = partial.name.rpartition("-")[2]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(partial, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def dequantize(path: Path, folder: Path, facts: GgufFacts) -> None:
    """The file's weights in float32 and its tokenizer, saved as a transformers folder: written
    beside `folder` and renamed into place, so an interrupted run leaves no half folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    where, name = str(path.parent), path.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(where, gguf_file=name)
        loaded = AutoModelForCausalLM.from_pretrained(where, gguf_file=name, dtype=torch.float32)
    except MODEL_FILE_ERRORS as error:
        raise GgufError(
            f"{path}: transformers cannot load this GGUF file ({_first_line(error)})"
        ) from None
    # A model loaded from GGUF refuses save_pretrained; one built from its config takes its
    # weights and saves as any other.
    model = AutoModelForCausalLM.from_config(loaded.config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned(folder)
    partial = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        (partial / FACTS_FILE).write_text(json.dumps(asdict(facts), indent=1) + "\n")
    except BaseException:  # a full disk, Ctrl-C: no half folder of ~0.5 GB left behind
        shutil.rmtree(partial, ignore_errors=True)
        raise
    shutil.rmtree(folder, ignore_errors=True)  # an unfinished one (no facts file)
    try:
        partial.rename(folder)
    except OSError:  # another run finished it first: keep theirs
        shutil.rmtree(partial, ignore_errors=True)


def facts_record(facts: GgufFacts | None) -> dict[str, Any] | None:
    """The manifest's `gguf` entry."""
    return None if facts is None else asdict(facts)

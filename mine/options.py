"""What a mining run is asked to do (a module of its own: the command line reads it before the
miner's heavy imports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Options:
    """What a mining run was asked to do."""

    ud_dir: Path
    out: Path = Path("corpus")
    langs: list[str] | None = None
    unimorph_dirs: list[Path] = field(default_factory=list)
    all_types: bool = False
    strict: bool = False
    jobs: int = 1
    force: bool = False
    progress: bool = True
    vary: str = "target"  # target | controller | both: which member pairs re-inflect (§4)
    pairs: bool = True  # False: no pairs.parquet (--no-pairs)
    nonce: int = 0  # §9: nonce variants per pair (--nonce K)
    seed: int = 0  # §9: seed of the nonce draws

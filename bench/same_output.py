"""Whether two mining outputs are the same: every table of every language (polars
`assert_frame_equal`: same rows in the same order, same types) and each manifest's counts,
agreement summary and malformed sentences (not its times, paths or checksums of the inputs).

    python bench/same_output.py CORPUS_A CORPUS_B
    python bench/same_output.py --smoke     # the embedded sample mined twice (CI)

Used to check that a change of the miner's engine leaves its output as it was: mine the same
treebanks with the code before and after into two folders, then compare them. Exit 1 if any differ.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
from polars.testing import assert_frame_equal

TABLES = ("relations", "sentences", "lexicon", "pairs", "pair_skips", "drops", "agreement")


def differences(before: Path, after: Path) -> tuple[int, list[str]]:
    """How many tables and manifests are equal, and a line for each that is not."""
    langs = sorted(p.name for p in before.iterdir() if (p / "manifest.json").is_file())
    other = sorted(p.name for p in after.iterdir() if (p / "manifest.json").is_file())
    if langs != other:
        return 0, [f"languages differ: {langs} against {other}"]
    equal, differ = 0, []
    for lang in langs:
        for name in TABLES:
            old, new = before / lang / f"{name}.parquet", after / lang / f"{name}.parquet"
            if not old.exists() and not new.exists():
                continue
            try:
                assert_frame_equal(pl.read_parquet(old), pl.read_parquet(new))
                equal += 1
            except (AssertionError, FileNotFoundError) as error:
                differ.append(f"{lang} {name}: {str(error).splitlines()[0]}")
        old_manifest, new_manifest = (
            json.loads((root / lang / "manifest.json").read_text(encoding="utf-8"))
            for root in (before, after)
        )
        for key in ("counts", "malformed", "agreement"):
            if old_manifest.get(key) == new_manifest.get(key):
                equal += 1
            else:
                differ.append(f"{lang} manifest {key} differ")
    return equal, differ


def main() -> int:
    if sys.argv[1:] == ["--smoke"]:
        return smoke()
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    return compare(Path(sys.argv[1]), Path(sys.argv[2]))


def smoke() -> int:
    """The embedded sample mined twice and compared: what CI runs (`--smoke`)."""
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parent.parent
    sample = root / "data" / "sample"
    with tempfile.TemporaryDirectory() as tmp:
        outs = [Path(tmp) / "a", Path(tmp) / "b"]
        for out in outs:
            command = [sys.executable, "-m", "mine", "--ud-dir", str(sample / "ud"), "--out",
                       str(out), "--unimorph-dir", str(sample / "unimorph"), "--quiet"]  # fmt: skip
            subprocess.run(command, check=True, cwd=root)
        return compare(*outs)


def compare(before: Path, after: Path) -> int:
    """Print what is equal and what differs; 1 if anything differs."""
    equal, differ = differences(before, after)
    langs = len([p for p in before.iterdir() if (p / "manifest.json").is_file()])
    print(f"{langs} languages: {equal} tables and manifest parts equal, {len(differ)} differ")
    for line in differ:
        print(line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

"""Mining speed against a bare `conllu` parse of the same plain files, measured side by side.

    python bench/mine.py [--ud-dir ../shared/data/ud] [--lang fr en pt | --all] [--repeat 3]

With --all, every shared treebank: it also prints µs per word and the peak memory of mining
only the language of the largest file, beside that of the whole release (memory is bounded by
the largest file and a language's lexicon, not by the release).

Decompresses the treebanks first (DESIGN.md: benchmarks time every side on the same plain
files) and byte-compiles the miner, as an install does (`compile_miner`), then times, in fresh
processes, `python -m mine` (lexicon and minimal pairs, UniMorph where the shared data has it),
`python -m mine --no-pairs` (relations, sentences, lexicon), `python -m mine --nonce 3` (pairs
and their nonce variants, DESIGN.md §9) and a loop that only parses every file with
`conllu.parse_incr`. Prints the best wall time of each, the ratios to the
parse (goal ≤ 0.25 for the default command with pairs, ≤ 0.30 with --all; no goal with --nonce)
and each side's peak memory, sampled in one more run of each side (sampling slows the miner's
cores, not the parse's: the timed runs do not sample).
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
SAMPLE_UD = ROOT / "data" / "sample" / "ud"
SMOKE = "the embedded sample, one repeat, no goal enforced: that the bench runs at all (CI)"
sys.path.insert(0, str(ROOT))

from ud_agree.mine.languages import find_treebanks, load_languages, select  # noqa: E402
from ud_agree.mine.read import read_bytes  # noqa: E402

CONLLU_PARSE = """
import sys, conllu
words = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as handle:
        for sentence in conllu.parse_incr(handle):
            words += len(sentence)
print(words)
"""


def decompress(ud_dir: Path, langs: list[str], into: Path) -> list[Path]:
    """Plain copies of the languages' treebanks, laid out like a UD release."""
    groups = select(find_treebanks(ud_dir, load_languages()), langs)
    plain = []
    for treebanks in groups.values():
        for treebank in treebanks:
            folder = into / treebank.folder.name
            folder.mkdir(parents=True, exist_ok=True)
            for path in treebank.files:
                target = folder / path.name.split(".conllu")[0]
                target = target.with_name(target.name + ".conllu")
                target.write_bytes(read_bytes(path))
                plain.append(target)
    return plain


def compile_miner() -> None:
    """Byte-compile the miner's packages, as installing a package does: an editable install
    run under PYTHONDONTWRITEBYTECODE (this machine's and CI's setting) compiles every module
    of the miner at every start (~0.08 s, on the run's critical path), which the parse's
    library, compiled when pip installed it, never pays."""
    for package in ("mine", "ud_agree"):
        compileall.compile_dir(ROOT / package, quiet=1)


def timed(
    command: list[str], output: list[str] | None = None, sample: bool = False
) -> tuple[float, float]:
    """Wall seconds of the command and, when `sample`, the peak memory (MiB) of its whole process
    tree, sampled: its workers are forked by a server process, which rusage of the command does
    not count. Sampling /proc every 50 ms takes a share of a core, which slows a command that
    uses every core (the miner) and not one that uses one (the parse): timings are taken in runs
    that do not sample."""
    start = time.perf_counter()
    stdout = subprocess.PIPE if output is not None else subprocess.DEVNULL
    process = subprocess.Popen(command, stdout=stdout, cwd=ROOT, text=True)
    peak = [0]
    done = threading.Event()

    def sampling() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], tree_rss(process.pid))

    sampler = threading.Thread(target=sampling if sample else done.wait, daemon=True)
    sampler.start()
    if output is not None:
        output.append(process.stdout.read())
    process.wait()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if process.returncode:
        raise SystemExit(f"{command[:3]} failed with exit code {process.returncode}")
    return wall, peak[0] / 2**20


def tree_rss(root: int) -> int:
    """Bytes resident in `root` and its descendants now, shared pages counted once (the sum of
    their proportional set sizes, Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if stat:  # pid (comm) state ppid ...; comm may hold spaces
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, ()))
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        total += sum(
            int(line.split()[1]) * 1024 for line in rollup.splitlines() if line.startswith("Pss:")
        )
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ud-dir", type=Path, default=SHARED / "ud")
    parser.add_argument("--lang", nargs="+", default=["fr", "en", "pt"])
    parser.add_argument("--all", action="store_true", help="every language of --ud-dir")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; the best is kept")
    parser.add_argument(
        "--nonce", type=int, default=3, help="K of the timed --nonce K line (0: not timed)"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, help="passed to python -m mine (default: its own)"
    )
    parser.add_argument("--smoke", action="store_true", help=SMOKE)
    args = parser.parse_args()
    if args.smoke:  # the embedded sample's three small languages, once
        args.ud_dir, args.lang, args.repeat, args.nonce = SAMPLE_UD, ["fr", "en", "de"], 1, 1
    if args.all:
        args.lang = sorted(select(find_treebanks(args.ud_dir, load_languages()), None))
    compile_miner()
    work = Path(tempfile.mkdtemp(prefix="bench-mine-"))
    try:
        files = decompress(args.ud_dir, args.lang, work / "ud")
        size = sum(f.stat().st_size for f in files) / 2**20
        print(
            f"{len(files)} files, {size:.1f} MiB plain CoNLL-U ({len(args.lang)} languages: {', '.join(args.lang)})"
        )
        mine = [sys.executable, "-m", "mine", "--ud-dir", str(work / "ud"), "--lang", *args.lang]
        mine += ["--out", str(work / "out"), "--force", "--quiet"]
        mine += [
            "--unimorph-dir",
            str(SHARED / "unimorph"),
            "--unimorph-dir",
            str(SHARED / "unimorph_sigmorphon2018"),
        ]
        if args.jobs:
            mine += ["--jobs", str(args.jobs)]
        parse = [sys.executable, "-c", CONLLU_PARSE, *map(str, files)]
        bare = [*mine, "--no-pairs"]
        nonce = [*mine, "--nonce", str(args.nonce)]
        sides = {"mine": mine, "bare": bare, "parse": parse}
        if args.nonce:
            sides["nonce"] = nonce
        walls: dict[str, list[float]] = {side: [] for side in sides}
        printed: list[str] = []
        # Interleave the sides so that a noisy machine slows them alike.
        for _ in range(args.repeat):
            for side, command in sides.items():
                walls[side].append(timed(command, printed if side == "parse" else None)[0])
        memory = {side: timed(command, sample=True)[1] for side, command in sides.items()}
        words = int(printed[-1].strip())
        mine_wall, bare_wall, parse_wall = (min(walls[s]) for s in ("mine", "bare", "parse"))
        for label, side in (
            ("python -m mine (pairs included):  ", "mine"),
            ("python -m mine --no-pairs:        ", "bare"),
            (f"python -m mine --nonce {args.nonce}:        ", "nonce"),
            ("conllu.parse_incr only:           ", "parse"),
        ):
            if side in sides:
                print(f"{label} {min(walls[side]):6.2f} s   peak memory {memory[side]:6.0f} MiB")
        bare_goal = "no goal: --smoke" if args.smoke else "goal <= 0.25"
        goal = "no goal: --smoke" if args.smoke else "goal <= 0.30" if args.all else "goal <= 0.25"
        print(f"ratio mine --no-pairs / conllu:    {bare_wall / parse_wall:6.3f}   ({bare_goal})")
        print(f"ratio mine with pairs / conllu:    {mine_wall / parse_wall:6.3f}   ({goal})")
        if args.nonce:
            nonce_wall = min(walls["nonce"])
            print(
                f"ratio mine --nonce {args.nonce} / conllu:     {nonce_wall / parse_wall:6.3f}   (no goal)"
            )
        print(
            f"{words:,} words: mine {1e6 * mine_wall / words:.2f} µs/word, "
            f"conllu {1e6 * parse_wall / words:.2f} µs/word (wall, all cores)"
        )
        if args.all:
            largest = max(files, key=lambda f: f.stat().st_size)
            code = largest.name.split("_")[0]
            one = [*mine[: mine.index("--lang") + 1], code, *mine[mine.index("--out") :]]
            _, alone = timed(one, sample=True)
            print(
                f"peak memory mining only '{code}' (largest file {largest.stat().st_size / 2**20:.1f} MiB): "
                f"{alone:.0f} MiB; whole release: {memory['mine']:.0f} MiB"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

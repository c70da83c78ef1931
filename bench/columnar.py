"""Per-token time of the two mining engines on the same plain CoNLL-U files, in one run.

    python bench/columnar.py [--ud-dir ../shared/data/ud] [--lang fr en pt] [--repeat 3] [--jobs 1]

Decompresses the languages' treebanks into a temporary folder, then times
the reference `tests.reference.extract.mine_file` (pure Python, the test oracle) and the
package's engine `mine.columnar.mine_file_columnar` over every file
(in this process, or in --jobs worker processes as `python -m mine --jobs` runs them), engine
after engine, --repeat times. Prints the best wall and CPU time of each engine per word
(syntactic words, as `FileResult.words` counts them) and the engines' wall-time ratio.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ud_agree.mine.columnar import mine_file_columnar  # noqa: E402
from ud_agree.mine.extract import FileJob  # noqa: E402

from bench.mine import SAMPLE_UD, SHARED, SMOKE, decompress  # noqa: E402
from tests.reference.extract import mine_file  # noqa: E402
from ud_agree.schemas.corpus import TYPES  # noqa: E402


def run(
    engine: Callable[[FileJob], object], jobs: list[FileJob], workers: int
) -> tuple[float, float]:
    """Wall and CPU seconds (this process and its workers) to mine every job."""
    wall, cpu = time.perf_counter(), _cpu()
    if workers <= 1:
        for job in jobs:
            engine(job)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            list(pool.map(engine, jobs))
    return time.perf_counter() - wall, _cpu() - cpu


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ud-dir", type=Path, default=SHARED / "ud")
    parser.add_argument("--lang", nargs="+", default=["fr", "en", "pt"])
    parser.add_argument("--repeat", type=int, default=3, help="passes; the best is kept")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1: this one)")
    parser.add_argument("--smoke", action="store_true", help=SMOKE)
    args = parser.parse_args()
    if args.smoke:  # the embedded sample's three small languages, once
        args.ud_dir, args.lang, args.repeat = SAMPLE_UD, ["fr", "en", "de"], 1
    work = Path(tempfile.mkdtemp(prefix="bench-columnar-"))
    try:
        files = decompress(args.ud_dir, args.lang, work / "ud")
        # Largest first, as python -m mine orders its jobs.
        files.sort(key=lambda f: -f.stat().st_size)
        jobs = [FileJob(f, f.name, "xx", f.parent.name, frozenset(TYPES)) for f in files]
        engines = {"python": mine_file, "columnar": mine_file_columnar}
        words = sum(mine_file_columnar(job).words for job in jobs)  # also warms imports
        best = {name: (float("inf"), float("inf")) for name in engines}
        for _ in range(args.repeat):
            for name, engine in engines.items():
                wall, cpu = run(engine, jobs, args.jobs)
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
        print(f"{len(files)} files, {words} words ({', '.join(args.lang)}), --jobs {args.jobs}")
        for name, (wall, cpu) in best.items():
            print(
                f"{name:9} wall {wall:6.2f} s = {wall / words * 1e6:5.2f} µs/word"
                f"   cpu {cpu:6.2f} s = {cpu / words * 1e6:5.2f} µs/word"
            )
        ratio = best["columnar"][0] / best["python"][0]
        print(f"columnar / python (wall) = {ratio:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

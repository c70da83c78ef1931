"""One HTML page over a results folder: figures, summary tables, baseline, context control, manifests.

Usage: ``python -m evaluate.report RESULTS [--out report/] [--validity validity.parquet]`` writes
``report/index.html`` with the figures (PNG + CSV) beside it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from ud_agree.atomic import atomic_folder, write_csv, write_text
from ud_agree.errors import (
    MachineError,
    OneLineParser,
    UserError,
    check_out,
    run_main,
    tool_command,
)

from ..options import option_defaults
from .folder import check_report_out, record_report


def build_report(
    results: str | Path,
    out_dir: str | Path = "report",
    warn: Callable[[str], None] | None = None,
    validity: str | Path | Sequence[str | Path] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> Path:
    """Write index.html, figures (PNG + CSV) and summary.csv for `results` into `out_dir`; runs
    whose chunks do not hold what their manifests say are left out, named on the page and to
    `warn`. With `validity` (scored validity.parquet files) each language × type row of the pair
    reading shows it; with `defaults` (the evaluator's) the runs table lists the options that
    differ from them."""
    # Imported here: matplotlib and the report's modules load only once the arguments are checked.
    from ..output.results import read_results
    from ..output.store import check_runs, load_manifests
    from .analysis import analyse
    from .figures import all_figures, prepare
    from .heatmaps import write_heat_maps
    from .judged import judged_rows
    from .markup import docs_href
    from .sections import Page, render
    from .suites import suite_rows
    from .validity import read_validity

    judged = None if validity is None else read_validity(validity)
    checked = check_runs(results)
    if not checked.files:
        if checked.left_out:
            raise UserError(f"nothing valid to report under {results}: {checked.note()}")
        raise FileNotFoundError(f"no results*.parquet under {results}")
    for run in checked.left_out:
        if warn is not None:
            warn(f"run {run.run} left out of the report: {run.reason}")
    root = Path(results) if Path(results).is_dir() else Path(results).parent
    suites = suite_rows(checked.files, root)
    # Suite rows have their own table: the corpus's figures group by language and type.
    frame = (
        prepare(read_results(checked.files)).filter(pl.col("reading").ne_missing("suite")).collect()
    )
    if frame.height == 0 and not suites:
        raise FileNotFoundError(f"no result rows under {results}: nothing to report")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if frame.height == 0:
        if judged is not None and warn is not None:
            warn("validity not shown: it is of mined pairs, and the results hold suite runs only")
        page = Page(str(results), frame, left_out=checked.left_out, suites=suites)
        return write_text(render(page), out / "index.html")
    tables = all_figures(frame, out)
    heat_maps, flags = write_heat_maps(frame, out)
    analysis = analyse(frame, tables)
    summaries = analysis.summaries
    manifests = load_manifests(results, {f.parent for f in checked.files})
    shown = None
    if judged is not None:
        shown = judged_rows(summaries["lang_type"], judged, frame, manifests)
        summaries["lang_type"] = shown.table
        if warn is not None:
            for line in shown.mismatches:
                warn(f"validity: {line}")
    write_csv(summaries["lang_type"], out / "summary.csv")
    page = Page(
        str(results),
        frame,
        analysis,
        manifests,
        tables,
        heat_maps,
        flags,
        left_out=checked.left_out,
        suites=suites,
        defaults=defaults,
        judged=shown,
        docs=docs_href(out),
    )
    return write_text(render(page), out / "index.html")


def main(argv: Sequence[str] | None = None, prog: str = "python -m evaluate.report") -> int:
    """Command line: exit 0 with the report's path printed, 2 with a one-line error."""
    parser = OneLineParser(prog=prog, description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "results", help=f"results folder written by {tool_command(prog, 'evaluate')} (any level)"
    )
    parser.add_argument("--out", default="report", help="output folder (default: report/)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="--out may hold files that are not an earlier report: it is replaced whole "
        "(never a folder holding results)",
    )
    parser.add_argument(
        "--validity",
        action="append",
        help=f"a validity.parquet from {tool_command(prog, 'validate')} score: the judged "
        "validity of the pairs beside each language × type row (repeatable: one file per cell)",
    )
    args = parser.parse_args(argv)

    def build(folder: Path) -> None:
        try:
            build_report(
                args.results,
                folder,
                lambda line: print(f"warning: {line}", file=sys.stderr),
                args.validity,
                option_defaults(),
            )
        except FileNotFoundError as error:
            raise UserError(str(error)) from None
        except OSError as error:  # the machine's fault (a full or read-only disk): exit 1
            raise MachineError.of(error, error.filename or args.out) from None
        except (pl.exceptions.PolarsError, ValueError) as error:
            reason = str(error).splitlines()[0]
            raise UserError(f"cannot build a report from {args.results}: {reason}") from None

    def body() -> int:
        if not Path(args.results).exists():
            raise UserError(f"no such results folder: {args.results}")
        check_out(args.out)
        check_report_out(Path(args.out), Path(args.results), args.force)
        # Written beside --out, then swapped in whole: a failed build leaves the old report.
        with atomic_folder(args.out) as folder:
            build(folder)
            record_report(folder)
        print(Path(args.out) / "index.html")
        return 0

    return run_main(body)


if __name__ == "__main__":
    sys.exit(main())

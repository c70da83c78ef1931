"""A language's pairs streamed into `pairs.parquet` and `pair_skips.parquet`: its files' attempts
in batches, each decided on a thread while the next is read, written in the batches' order;
then the nonce variants."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from ud_agree.atomic import atomic_file
from ud_agree.schemas.corpus import PAIR_SKIPS, PAIRS

from .nonce import nonce_pairs
from .paradigms import ParadigmFrames
from .plan import LanguageRun, Options
from .skips import skip_table
from .spill import unspill, unspill_columns

# Attempts at pairs per step: bounded memory, and few batches (each costs ~60 polars steps).
PAIR_BATCH = 150_000
PAIR_THREADS = 2  # batches of pairs decided at once (`PairStream`)


NONCE_MEMBERS = [
    "treebank", "sent_id", "target_id", "controller_id", "target_surface", "controller_surface",
]  # fmt: skip


# A relation's varied role: §9 varies the pairs it made, with all its features' attempts (a
# variant's bad sentence, like its original's, is one row with its other contrasts in `also`).
NONCE_ATTEMPT = ["treebank", "sent_id", "target_id", "controller_id", "varied"]


def write_nonce(
    run: LanguageRun,
    options: Options,
    lexicon: pa.Table,
    frames: ParadigmFrames,
    rates: pl.DataFrame,
    stream: PairStream,
) -> tuple[Counter, Counter]:
    """§9: the nonce variants of a language's pairs, after its original pairs, and their skips
    after the original skips; (variants by type, skips per reason). The stream's `made`: the
    attempts that made the original pairs, which the variants' bad forms are decided from (§4's
    rules, run again)."""
    files: dict[str, list[Path]] = {}
    for job in run.jobs:
        files.setdefault(job.treebank, []).append(job.path)
    originals, made, members = stream.originals, stream.made, stream.members
    pairs = pl.concat([pl.DataFrame(t) for t in originals]) if originals else pl.DataFrame()
    tried = pl.concat(made, how="vertical_relaxed") if made else pl.DataFrame()
    relations = pl.concat(members) if members else pl.DataFrame()
    table, skipped = nonce_pairs(
        pairs, tried, relations, files, lexicon, frames, options.nonce, options.seed, rates
    )
    stream.pairs_out.write_table(table)
    stream.skips_out.write_table(skipped)
    return Counter(table.column("type").to_pylist()), Counter(skipped.column("reason").to_pylist())


@dataclass
class PairCounts:
    """What a language's pair stream wrote: pairs and nonce variants by type, skips per reason,
    pairs per agreement flag."""

    pairs_by_type: Counter = field(default_factory=Counter)
    nonce: Counter = field(default_factory=Counter)
    pair_skips: Counter = field(default_factory=Counter)
    flags: Counter = field(default_factory=Counter)


Decide = Callable[..., tuple[pa.Table, pl.DataFrame, Counter]]


class PairStream:
    """A language's files' attempts, batched (PAIR_BATCH), each batch decided on a thread
    (polars releases the GIL) while the next is read, written in the batches' order so that
    the tables do not depend on the threads; at most PAIR_THREADS batches held."""

    def __init__(
        self,
        out_dir: Path,
        decide: Decide,
        counts: PairCounts,
        keep_nonce: bool,
        fingerprints: dict[str, str],
    ):
        self.out_dir, self.decide, self.counts = out_dir, decide, counts
        self.keep_nonce = keep_nonce
        self.fingerprints = fingerprints  # the two tables', hashed as they are written
        self.n_relations = 0
        self.batch: list[pl.DataFrame] = []
        self.skipped: list[pl.DataFrame] = []  # the batch's files' skips (same `rel` as `batch`)
        self.texts: list[pa.Array] = []  # the batch's sentences, which its attempts index
        self.originals: list[pa.Table] = []  # what nonce variants are made of (§9)
        self.made: list[pl.DataFrame] = []  # and the attempts that made them
        self.members: list[pl.DataFrame] = []
        self.in_flight: deque[tuple[Future, list[pl.DataFrame], pl.DataFrame]] = deque()
        self.stack = ExitStack()

    def __enter__(self) -> PairStream:
        stack = self.stack.__enter__()
        pairs_file = stack.enter_context(
            atomic_file(self.out_dir / "pairs.parquet", self.fingerprints)
        )
        self.pairs_out = stack.enter_context(
            pq.ParquetWriter(pairs_file, PAIRS, compression="snappy")
        )
        skips_file = stack.enter_context(
            atomic_file(self.out_dir / "pair_skips.parquet", self.fingerprints)
        )
        self.skips_out = stack.enter_context(
            pq.ParquetWriter(skips_file, PAIR_SKIPS, compression="snappy")
        )
        self.deciding = stack.enter_context(
            ThreadPoolExecutor(PAIR_THREADS, thread_name_prefix="pairs")
        )
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> bool | None:
        return self.stack.__exit__(kind, error, trace)

    def add_file(self, prefix: Path) -> None:
        """A spilled file's attempts and skips, in the language's order of relations (the
        file's relation index made the language's)."""
        # Only the columns read here (`write_plain_tables` reads the tables whole).
        relations = unspill_columns(prefix, "relations", NONCE_MEMBERS)
        sentences = unspill_columns(prefix, "sentences", ["text"])
        if self.keep_nonce:
            self.members.append(pl.DataFrame(relations))
        tries = pl.DataFrame(unspill(prefix, "attempts"))
        rel = pl.col("rel").cast(pl.Int64) + self.n_relations
        self.batch.append(
            tries.with_columns(rel, pl.col("sentence").cast(pl.Int64) + sum(map(len, self.texts)))
        )
        self.skipped.append(pl.DataFrame(unspill(prefix, "skips")).with_columns(rel))
        self.texts.append(sentences.column("text").combine_chunks())
        if sum(b.height for b in self.batch) >= PAIR_BATCH:
            self._submit()
        self.n_relations += relations.num_rows

    def finish(self) -> None:
        """Decide the last batch and write every batch still in flight."""
        self._submit()
        while self.in_flight:
            self._write_decided()

    def _submit(self) -> None:
        if not self.batch:
            return
        sentences = pl.Series("text", pa.chunked_array(self.texts, pa.string()))
        tried = pl.concat(self.batch, how="vertical_relaxed")
        decided = self.deciding.submit(self.decide, tried, texts=sentences)
        self.in_flight.append((decided, list(self.skipped), tried))
        self.batch.clear()
        self.skipped.clear()
        self.texts.clear()
        while len(self.in_flight) >= PAIR_THREADS:  # memory: at most this many batches held
            self._write_decided()

    def _write_decided(self) -> None:
        future, skips_before, tried = self.in_flight.popleft()
        pairs, more, flagged = future.result()
        self.counts.flags.update(flagged)
        self.pairs_out.write_table(pairs.cast(PAIRS))
        self.counts.pairs_by_type.update(pairs.column("type").to_pylist())
        skips = skip_table([*skips_before, more])
        self.skips_out.write_table(skips)
        self.counts.pair_skips.update(skips.column("reason").to_pylist())
        if self.keep_nonce:
            self.originals.append(pairs)
            keys = pl.DataFrame(pairs).select(NONCE_ATTEMPT).unique()
            self.made.append(tried.join(keys, on=NONCE_ATTEMPT, how="semi"))

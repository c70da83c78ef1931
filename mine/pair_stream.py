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
from .spill import unspill

# Relations whose attempts at pairs are prepared and decided in one step (1 to 3 attempts each
# with --vary target): bounded memory, and few batches (each costs ~100 polars steps).
PAIR_BATCH = 100_000
PAIR_THREADS = 2  # batches of pairs decided at once (`PairStream`)
# Relations whose attempts are prepared in one call within a batch: a call's fixed cost is paid
# a few times per batch, and its intermediate tables (about 5 KiB a relation) stay small.
PREPARE_BATCH = 40_000


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


Prepare = Callable[[list[tuple[pa.Table, pa.Table]]], list[tuple[pl.DataFrame, pl.DataFrame]]]
Decide = Callable[..., tuple[pa.Table, pl.DataFrame, Counter]]


@dataclass
class Batch:
    """Files of a language whose attempts at pairs are decided together: their relations and
    sentences, and where each file's relations and sentences begin in the language and in the
    batch (`rel` is the language's index of a relation, `sentence` the batch's of a sentence)."""

    files: list[tuple[pa.Table, pa.Table]] = field(default_factory=list)
    starts: list[tuple[int, int]] = field(default_factory=list)  # (relation, sentence)
    relations: int = 0
    sentences: int = 0


@dataclass
class Decided:
    """A batch decided: its pairs, its skips (the files' own, then the decision's), the pairs
    per agreement flag, and its attempts (which nonce variants are made from)."""

    pairs: pa.Table
    skipped: list[pl.DataFrame]
    flagged: Counter
    tried: pl.DataFrame


class PairStream:
    """A language's files' attempts, batched (PAIR_BATCH relations), each batch prepared and
    decided on a thread (polars releases the GIL) while the next is read, written in the
    batches' order so that the tables do not depend on the threads; at most PAIR_THREADS
    batches held. `prepare` is `pairs.prepare_bundle` with the language's facts."""

    def __init__(
        self,
        out_dir: Path,
        prepare: Prepare,
        decide: Decide,
        counts: PairCounts,
        keep_nonce: bool,
        fingerprints: dict[str, str],
    ):
        self.out_dir, self.prepare, self.decide, self.counts = out_dir, prepare, decide, counts
        self.keep_nonce = keep_nonce
        self.fingerprints = fingerprints  # the two tables', hashed as they are written
        self.n_relations = 0
        self.batch = Batch()
        self.originals: list[pa.Table] = []  # what nonce variants are made of (§9)
        self.made: list[pl.DataFrame] = []  # and the attempts that made them
        self.members: list[pl.DataFrame] = []
        self.in_flight: deque[Future[Decided]] = deque()
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
        """A spilled file's relations and sentences, in the language's order of relations (the
        file's relation index made the language's when its attempts are prepared)."""
        # Mapped, not read: what the rules read of them is read when the batch is prepared.
        relations = unspill(prefix, "relations")
        sentences = unspill(prefix, "sentences")
        if self.keep_nonce:
            self.members.append(pl.DataFrame(relations.select(NONCE_MEMBERS).combine_chunks()))
        batch = self.batch
        batch.files.append((relations, sentences))
        batch.starts.append((self.n_relations, batch.sentences))
        batch.relations += relations.num_rows
        batch.sentences += sentences.num_rows
        self.n_relations += relations.num_rows
        if batch.relations >= PAIR_BATCH:
            self._submit()

    def finish(self) -> None:
        """Decide the last batch and write every batch still in flight."""
        self._submit()
        while self.in_flight:
            self._write_decided()

    def _submit(self) -> None:
        if not self.batch.files:
            return
        self.in_flight.append(self.deciding.submit(self._decided, self.batch))
        self.batch = Batch()
        while len(self.in_flight) >= PAIR_THREADS:  # memory: at most this many batches held
            self._write_decided()

    def _decided(self, batch: Batch) -> Decided:
        """A batch's attempts prepared (each file as alone), placed in the language's relations
        and the batch's sentences, and decided."""
        tries, skipped = [], []
        prepared = [p for files in prepare_groups(batch.files) for p in self.prepare(files)]
        for (attempts, skips), (first, sentence) in zip(prepared, batch.starts, strict=True):
            rel = pl.col("rel").cast(pl.Int64) + first
            tries.append(attempts.with_columns(rel, pl.col("sentence").cast(pl.Int64) + sentence))
            skipped.append(skips.with_columns(rel))
        texts = [sentences.column("text") for _, sentences in batch.files]
        tried = pl.concat(tries, how="vertical_relaxed")
        text = pl.Series(
            "text", pa.chunked_array([c for t in texts for c in t.chunks], pa.string())
        )
        pairs, more, flagged = self.decide(tried, texts=text)
        return Decided(pairs, [*skipped, more], flagged, tried)

    def _write_decided(self) -> None:
        decided = self.in_flight.popleft().result()
        pairs = decided.pairs
        self.counts.flags.update(decided.flagged)
        self.pairs_out.write_table(pairs.cast(PAIRS))
        self.counts.pairs_by_type.update(pairs.column("type").to_pylist())
        skips = skip_table(decided.skipped)
        self.skips_out.write_table(skips)
        self.counts.pair_skips.update(skips.column("reason").to_pylist())
        if self.keep_nonce:
            self.originals.append(pairs)
            keys = pl.DataFrame(pairs).select(NONCE_ATTEMPT).unique()
            self.made.append(decided.tried.join(keys, on=NONCE_ATTEMPT, how="semi"))


def prepare_groups(
    files: list[tuple[pa.Table, pa.Table]],
) -> list[list[tuple[pa.Table, pa.Table]]]:
    """Consecutive files (relations, sentences) in groups of at most PREPARE_BATCH relations
    (a larger file alone), each group's attempts prepared in one call."""
    groups: list[list[tuple[pa.Table, pa.Table]]] = []
    held = 0
    for relations, sentences in files:
        if groups and held + relations.num_rows <= PREPARE_BATCH:
            groups[-1].append((relations, sentences))
            held += relations.num_rows
        else:
            groups.append([(relations, sentences)])
            held = relations.num_rows
    return groups

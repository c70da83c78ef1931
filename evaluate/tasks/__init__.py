"""Tasks: what a run scores and how it decides, knowing nothing of models (a model is any scorer
of the back-ends' interface, `evaluate.backends.api`), as lm-evaluation-harness's tasks do.

- minimal pairs, of every source (`evaluate.sources` reads them into one pair table): a corpus's
  (`corpus_pairs.py`, §4–5) and peers' files (`suite_files.py`, §7), scored by the one pair
  reading (`readings/pair_scores.py`) in one chunk loop (`pair_chunks.py`);
- class-average items (`class_average.py`, §1.5): one masked role per relation, mean probability
  of the correct against the incorrect candidates;
- SyntaxGym suites (`suite_files.GymTask`, `syntaxgym.py`, §7): region surprisals tested by
  each item's predictions.

One loop runs them all (`evaluate.run.run_task`): hold the folder, write the manifest, score in
chunks (resuming), summarize, finish the manifest. A task bound to its run answers the loop's
questions (`Task`); back-ends never import a task (a test checks it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import polars as pl


class Task(Protocol):
    """What the one loop asks of a task bound to its run, in the order it asks."""

    unit: str  # what `saved` counts, in messages: "items", "pairs"

    def open(self) -> dict[str, Any]:
        """Items built and the scorer ready; its facts for the manifest."""
        ...

    def prepare(self, folder: Path, resume: bool) -> Any:
        """The folder made fresh, or under --resume checked: what it already holds."""
        ...

    def manifest_base(self, facts: dict[str, Any]) -> dict[str, Any]:
        """What the run is, written before anything is scored."""
        ...

    def score(self, folder: Path, done: Any) -> dict[str, float]:
        """Score what `done` lacks, chunk by chunk, into `folder`; the seconds of the task's own
        stages (encoding), which the loop times apart from scoring."""
        ...

    def saved(self, folder: Path, done: Any) -> int:
        """How many items (pairs) the folder holds when a fault stops the run."""
        ...

    def finish(
        self, base: dict[str, Any], folder: Path, seconds: float
    ) -> tuple[dict[str, Any], pl.DataFrame | None]:
        """The finished manifest, and the summary over every chunk (written)."""
        ...

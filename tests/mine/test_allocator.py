"""The miner's command sets polars' allocator to keep freed memory a while: before polars
loads, under the name polars' jemalloc reads, and never over the user's own setting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ud_agree.mine.allocator import JEMALLOC_CONF, JEMALLOC_VARIABLE, keep_freed_memory

ROOT = Path(__file__).resolve().parents[2]


def python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )


def test_the_command_sets_the_allocator_before_anything_loads_polars() -> None:
    # `python -m mine` calls keep_freed_memory() after importing its __main__ module's imports:
    # were polars among them, its allocator would have read its settings already.
    done = python("import sys, mine.__main__; print('polars' in sys.modules)", dict(os.environ))
    assert done.stdout.strip() == "False"


def test_an_unset_allocator_gets_the_miners_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(JEMALLOC_VARIABLE, raising=False)
    keep_freed_memory()
    assert os.environ[JEMALLOC_VARIABLE] == JEMALLOC_CONF


def test_the_users_allocator_setting_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JEMALLOC_VARIABLE, "dirty_decay_ms:0")
    keep_freed_memory()
    assert os.environ[JEMALLOC_VARIABLE] == "dirty_decay_ms:0"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="polars uses jemalloc on Linux")
def test_polars_allocator_reads_the_setting_under_that_name() -> None:
    # jemalloc prints its options at exit when asked (stats_print): a name it did not read, or
    # a value it refused, would leave polars' own (dirty_decay_ms:500) in place.
    env = {**os.environ, JEMALLOC_VARIABLE: f"{JEMALLOC_CONF},stats_print:true"}
    done = python("import polars as pl; pl.Series([1, 2]).sum()", env)
    assert "opt.dirty_decay_ms: 5000" in done.stderr
    assert "opt.oversize_threshold: 0" in done.stderr

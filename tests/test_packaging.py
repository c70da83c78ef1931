"""Installable anywhere: a built wheel mines the sample from outside the repository, the console
script answers, data tables ship inside the package, and files are written atomically with the
umask's permissions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT, SAMPLE
from ud_agree import __version__
from ud_agree.atomic import atomic_write, write_json, write_text


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project built as a wheel (not editable) and installed into a folder of its own."""
    work = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what the wheel is made of: an in-tree build leaves build/ behind, whose
    # stale modules a later wheel would ship.
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("mine", "evaluate", "ud_agree"):
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "-w", str(work / "dist"), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = (work / "dist").glob("ud_agree-*.whl")
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    return target


def run_installed(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """A command run from `cwd` with only the installed packages importable (not the checkout)."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-X", "utf8", *args],
        cwd=cwd, env=env, capture_output=True, text=True,
    )  # fmt: skip


def test_wheel_mines_the_sample_from_outside_the_repository(installed, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = run_installed(installed, outside, "-c", "import mine; print(mine.__file__)")
    assert where.stdout.startswith(str(installed)), where.stdout + where.stderr
    result = run_installed(
        installed, outside, "-m", "mine", "--ud-dir", str(SAMPLE / "ud"), "--out", "c", "--quiet"
    )
    assert result.returncode == 0, result.stderr
    expected = json.loads((SAMPLE / "expected.json").read_text())
    for lang in expected:
        manifest = json.loads((outside / "c" / lang / "manifest.json").read_text())
        assert manifest["version"] == __version__
        assert (outside / "c" / lang / "pairs.parquet").is_file()
    for package in ("mine", "evaluate", "ud_agree"):
        assert (installed / package / "py.typed").is_file()
    assert sorted(p.name for p in (installed / "mine" / "data").glob("*.tsv")) == sorted(
        p.name for p in (ROOT / "mine" / "data").glob("*.tsv")
    )


def test_console_script_has_every_tool_and_the_version(installed, tmp_path):
    script = installed / "bin" / "ud-agree"
    assert script.is_file()
    env = {**os.environ, "PYTHONPATH": str(installed)}
    version = subprocess.run(
        [sys.executable, str(script), "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert version.stdout.strip() == f"ud-agree {__version__}"
    helped = subprocess.run(
        [sys.executable, str(script), "mine", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert helped.returncode == 0 and helped.stdout.startswith("usage: ud-agree mine")
    wrong = subprocess.run(
        [sys.executable, str(script), "mien"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1


def test_missing_data_table_of_an_installation_is_one_line(installed, tmp_path):
    broken = tmp_path / "site"
    shutil.copytree(installed, broken)
    (broken / "mine" / "data" / "types.tsv").unlink()
    result = run_installed(
        broken, tmp_path, "-m", "mine", "--ud-dir", str(SAMPLE / "ud"), "--out", "c", "--quiet"
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "types.tsv" in result.stderr and "reinstall" in result.stderr


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664)])
def test_files_are_written_with_the_umask_permissions(tmp_path, umask, mode):
    before = os.umask(umask)
    try:
        write_json({"a": 1}, tmp_path / "m.json")
        write_text("x", tmp_path / "deep" / "t.txt")
    finally:
        os.umask(before)
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == mode
    assert (tmp_path / "deep" / "t.txt").stat().st_mode & 0o777 == mode


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "table.txt"
    write_text("old", path)

    def fails(handle):
        handle.write(b"half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(path, fails)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["table.txt"]


def test_version_is_the_package_metadata_in_both_tools():
    from importlib.metadata import version

    import evaluate.run
    import mine

    assert mine.__version__ == __version__ == version("ud-agree")
    assert "TOOL_VERSION" not in vars(evaluate.run)

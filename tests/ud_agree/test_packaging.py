"""Installable anywhere: a built wheel mines the sample from outside the repository, the console
script answers, data tables ship inside the package, and files are written atomically with the
umask's permissions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from tests.paths import ROOT, SAMPLE
from ud_agree import __version__
from ud_agree.atomic import atomic_write, write_json, write_text

PACKAGE_FOLDERS = {"ud_agree": "ud_agree", "mine": "ud_agree/mine", "evaluate": "ud_agree/evaluate"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The project built as a wheel, from a copy of what the wheel is made of (an in-tree build
    leaves build/ behind, whose stale modules a later wheel would ship)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in PACKAGE_FOLDERS:
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "-w", str(work / "dist"), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (built,) = (work / "dist").glob("ud_agree-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory) -> Path:
    """The wheel (not editable) installed into a folder of its own."""
    target = tmp_path_factory.mktemp("site")
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


def test_wheel_installs_one_top_level_package_holding_every_package_folder(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    top_level = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert top_level == {"ud_agree"}
    shipped = {name for name in names if name.endswith(".py")}
    for folder, inside in PACKAGE_FOLDERS.items():
        for module in (ROOT / folder).rglob("*.py"):
            assert f"{inside}/{module.relative_to(ROOT / folder).as_posix()}" in shipped, module


def test_wheel_mines_the_sample_from_outside_the_repository(installed, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = run_installed(installed, outside, "-c", "import ud_agree.mine as m; print(m.__file__)")
    assert where.stdout.startswith(str(installed)), where.stdout + where.stderr
    assert run_installed(installed, outside, "-c", "import mine").returncode == 1
    result = run_installed(
        installed, outside, "-m", "ud_agree.mine", "--ud-dir", str(SAMPLE / "ud"), "--out", "c",
        "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    expected = json.loads((SAMPLE / "expected.json").read_text())
    for lang in expected:
        manifest = json.loads((outside / "c" / lang / "manifest.json").read_text())
        assert manifest["version"] == __version__
        assert (outside / "c" / lang / "pairs.parquet").is_file()
    for package in PACKAGE_FOLDERS.values():
        assert (installed / package / "py.typed").is_file()
    assert sorted(p.name for p in (installed / "ud_agree/mine/data").glob("*.tsv")) == sorted(
        p.name for p in (ROOT / "mine" / "data").glob("*.tsv")
    )


def _venv(folder: Path) -> tuple[Path, Path]:
    """A fresh venv, and the `.pth` file that shows it this environment's dependencies."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
    python = folder / "bin" / "python"
    site_dir = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return python, Path(site_dir) / "outer.pth"


def test_installs_beside_hugging_face_evaluate_in_either_order(wheel: Path, tmp_path: Path):
    """The real Hugging Face `evaluate` (from the package registry, or pip's cache) and ud-agree
    in one venv: both import, and uninstalling either leaves the other whole."""
    try:
        hf_version = version("evaluate")
    except PackageNotFoundError:
        pytest.skip("Hugging Face evaluate is not installed here (it comes with the dev extra)")
    python, outer = _venv(tmp_path / "venv")
    # This environment's dependencies (numpy, datasets, polars…) at the lowest priority, as plain
    # paths (its editable checkout of ud-agree is not installed there), shown only while importing:
    # pip must neither see them as installed nor uninstall from them.
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    hf = f"evaluate=={hf_version}"
    check = (
        "import evaluate, ud_agree.evaluate, ud_agree.mine, ud_agree.evaluate.run;"
        "assert callable(evaluate.load), evaluate.__file__;"
        "print(evaluate.__file__)"
    )

    def pip(*args: str) -> None:
        subprocess.run([str(python), "-m", "pip", "--quiet", "--disable-pip-version-check", *args],
                       check=True, capture_output=True, cwd=tmp_path)  # fmt: skip

    def imports(code: str) -> subprocess.CompletedProcess:
        outer.write_text("\n".join(paths) + "\n")
        try:
            return subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                                  cwd=tmp_path)  # fmt: skip
        finally:
            outer.unlink()

    for first, second in ((hf, str(wheel)), (str(wheel), hf)):
        pip("install", "--no-deps", first)
        pip("install", "--no-deps", second)
        both = imports(check)
        assert both.returncode == 0, both.stderr
        assert str(tmp_path / "venv") in both.stdout  # HF's evaluate, not ours nor the outer one
        pip("uninstall", "--yes", "ud-agree")
        assert imports("import evaluate; assert callable(evaluate.load)").returncode == 0
        pip("install", "--no-deps", str(wheel))
        pip("uninstall", "--yes", "evaluate")
        alone = imports("import ud_agree.evaluate.run, ud_agree.mine.run")
        assert alone.returncode == 0, alone.stderr
        pip("uninstall", "--yes", "ud-agree")


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
    (broken / "ud_agree" / "mine" / "data" / "types.tsv").unlink()
    result = run_installed(
        broken,
        tmp_path,
        "-m",
        "ud_agree.mine",
        "--ud-dir",
        str(SAMPLE / "ud"),
        "--out",
        "c",
        "--quiet",
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

    import ud_agree.evaluate.run
    import ud_agree.mine

    assert ud_agree.mine.__version__ == __version__ == version("ud-agree")
    assert "TOOL_VERSION" not in vars(ud_agree.evaluate.run)

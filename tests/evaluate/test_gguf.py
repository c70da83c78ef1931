"""GGUF files named as models: scored as the float32 weights they hold, dequantized once and read
from the cache after, their sha256 and quantization in the manifest, and a missing `gguf` package
a one-line error. Every file is written here (tests/evaluate/gguf_files.py), never downloaded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from tests.paths import SAMPLE

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gguf")

from ud_agree.evaluate.backends import gguf_weights, load_scorer  # noqa: E402
from ud_agree.evaluate.backends.gguf_weights import GgufError, cached_folder  # noqa: E402
from ud_agree.evaluate.cli import main as evaluate_main  # noqa: E402
from ud_agree.evaluate.readings.token_sums import sentence_scores  # noqa: E402
from ud_agree.evaluate.suite import main as suite_main  # noqa: E402
from ud_agree.mine.cli import main as mine_main  # noqa: E402

from tests.evaluate.gguf_files import tiny_llama, write_gguf  # noqa: E402
from tests.evaluate.test_backends import SENTENCES, loop_log_probability  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """The float32 folder, its GGUF twin in F32 and in Q8_0."""
    work = tmp_path_factory.mktemp("gguf")
    folder = tiny_llama(work / "float32")
    return {
        "float32": folder,
        "f32": write_gguf(folder, work / "f32" / "tiny.gguf"),
        "q8": write_gguf(folder, work / "q8" / "tiny-q8.gguf", quantized=True),
    }


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    """Each test's own empty cache of dequantized folders."""
    root = tmp_path / "gguf-cache"
    monkeypatch.setenv(gguf_weights.CACHE_VARIABLE, str(root))
    return root


def scores(model: str | Path) -> np.ndarray:
    return sentence_scores(load_scorer(str(model), device="cpu"), SENTENCES)


def test_an_f32_gguf_scores_as_its_float32_folder_and_the_loop_over_its_logits(files):
    scorer = load_scorer(str(files["f32"]), device="cpu")
    found = sentence_scores(scorer, SENTENCES)
    np.testing.assert_allclose(found, scores(files["float32"]), rtol=0, atol=1e-5)
    loop = [loop_log_probability(scorer.model, scorer.tokenizer, s) for s in SENTENCES]
    np.testing.assert_allclose(found, loop, atol=1e-4)
    assert scorer.bos_token == "<|endoftext|>" and scorer.facts()["model_kind"] == "causal"


def test_a_q8_gguf_scores_near_the_float32_weights_but_not_equal(files):
    quantized, exact = scores(files["q8"]), scores(files["float32"])
    assert np.abs(quantized - exact).max() < 0.05
    assert np.abs(quantized - exact).max() > 1e-6  # Q8_0 rounds: the weights did change


def test_a_folder_holding_one_gguf_is_that_file_and_two_are_refused(files, tmp_path):
    folder, facts = cached_folder(str(files["f32"].parent))
    assert facts is not None and facts.file == str(files["f32"].resolve())
    assert (Path(folder) / "config.json").is_file()
    both = tmp_path / "both"
    both.mkdir()
    for name in ("a.gguf", "b.gguf"):
        (both / name).write_bytes(files["f32"].read_bytes())
    with pytest.raises(GgufError, match=r"holds 2 GGUF files \(a.gguf, b.gguf\)"):
        cached_folder(str(both))
    assert cached_folder(str(files["float32"])) == (str(files["float32"]), None)


def test_the_second_load_reads_the_cache_not_the_gguf(files, cache, monkeypatch):
    first, facts = cached_folder(str(files["q8"]))
    assert Path(first).parent == cache and Path(first).name == facts.sha256

    def refuse(*args, **kwargs):
        raise AssertionError("the GGUF file was parsed again")

    monkeypatch.setattr(gguf_weights, "read_facts", refuse)
    monkeypatch.setattr(gguf_weights, "dequantize", refuse)
    monkeypatch.setattr("gguf.GGUFReader", refuse)
    assert cached_folder(str(files["q8"])) == (first, facts)
    np.testing.assert_allclose(scores(files["q8"]), scores(first), rtol=0, atol=0)


def test_an_unfinished_cache_folder_is_made_again(files, cache):
    folder, _ = cached_folder(str(files["f32"]))
    (Path(folder) / gguf_weights.FACTS_FILE).unlink()  # as an interrupted run leaves it
    (Path(folder) / "model.safetensors").write_bytes(b"torn")
    again, facts = cached_folder(str(files["f32"]))
    assert again == folder and facts is not None
    assert (Path(folder) / gguf_weights.FACTS_FILE).is_file()
    np.testing.assert_allclose(scores(files["f32"]), scores(files["float32"]), atol=1e-5)


def test_an_interrupted_dequantization_leaves_no_half_copy_and_a_killed_ones_is_removed(
    files, cache, monkeypatch
):
    dead = 2**22 + 1  # above Linux's default pid_max: no process has it
    abandoned = cache / f"{hashlib.sha256(files['f32'].read_bytes()).hexdigest()}.partial-{dead}"
    abandoned.mkdir(parents=True)
    (abandoned / "model.safetensors").write_bytes(b"half")

    def interrupted(self, *args, **kwargs):
        (Path(args[0]) / "model.safetensors").write_bytes(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr("transformers.PreTrainedTokenizerBase.save_pretrained", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cached_folder(str(files["f32"]))
    assert not list(cache.glob("*.partial-*"))  # the killed run's and this one's
    monkeypatch.undo()
    monkeypatch.setenv(gguf_weights.CACHE_VARIABLE, str(cache))
    folder, facts = cached_folder(str(files["f32"]))
    assert facts is not None and sorted(p.name for p in cache.iterdir()) == [Path(folder).name]


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err and "Traceback" not in err
    return err


def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.csv"
    path.write_text(
        "sentence_good,sentence_bad\n"
        "Les clés de l'armoire sont cassées.,Les clés de l'armoire est cassées.\n"
        "Il parle du chat.,Il parlent du chat.\n"
    )
    return path


def test_without_the_gguf_package_a_gguf_model_is_one_line_naming_the_install(
    files, tmp_path, monkeypatch, capsys
):
    real = gguf_weights.find_spec
    monkeypatch.setattr(
        gguf_weights, "find_spec", lambda name: None if name == "gguf" else real(name)
    )
    out = tmp_path / "out"
    args = [str(suite_file(tmp_path)), "--model", str(files["f32"]), "--out", str(out)]
    assert suite_main([*args, "--no-progress"]) == 2
    message = one_line_error(capsys)
    assert "is a GGUF file" in message and "pip install 'gguf>=0.10'" in message
    corpus_args = ["--lang", "fr", "--corpus", str(tmp_path), "--model", str(files["f32"])]
    assert evaluate_main([*corpus_args, "--out", str(out), "--reading", "pair"]) == 2
    assert "pip install 'gguf>=0.10'" in one_line_error(capsys)
    assert not out.exists()


def test_a_suite_run_records_the_files_sha256_and_quantization(files, tmp_path, capsys):
    out = tmp_path / "out"
    args = [str(suite_file(tmp_path)), "--model", str(files["q8"]), "--out", str(out)]
    assert suite_main([*args, "--no-progress", "--device", "cpu"]) == 0
    run = out / "pairs" / "tiny-q8.gguf"
    manifest = json.loads((run / "manifest.json").read_text())
    gguf = manifest["scorer"]["gguf"]
    assert gguf["sha256"] == hashlib.sha256(files["q8"].read_bytes()).hexdigest()
    assert gguf["quantization"] == "Q8_0" and gguf["architecture"] == "llama"
    assert gguf["tensor_types"]["Q8_0"] == 2 * 7 + 2  # 7 matrices a layer, embeddings, head
    assert gguf["file"] == str(files["q8"].resolve()) and manifest["model"] == "tiny-q8.gguf"


def test_a_corpus_run_records_the_gguf_and_its_path(files, tmp_path, capsys):
    corpus = tmp_path / "corpus"
    mined = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    assert mine_main([*mined, "--lang", "fr", "--out", str(corpus), "--quiet", "--jobs", "1"]) == 0
    out = tmp_path / "out"
    args = ["--lang", "fr", "--corpus", str(corpus), "--model", str(files["f32"])]
    assert evaluate_main([*args, "--reading", "pair", "--out", str(out), "--no-progress"]) == 0
    manifest = json.loads((out / "fr" / "tiny.gguf__pair" / "manifest.json").read_text())
    assert manifest["model_path"] == str(files["f32"].resolve())
    assert manifest["scorer"]["gguf"]["quantization"] == "F32"
    assert (
        manifest["scorer"]["gguf"]["sha256"]
        == hashlib.sha256(files["f32"].read_bytes()).hexdigest()
    )

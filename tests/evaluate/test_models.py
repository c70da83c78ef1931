"""Model loading (offline errors, random weights) and logits at mask positions on each architecture."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ud_agree.evaluate.backends.models import (  # noqa: E402
    ModelNotFound,
    load_model,
    looks_untrained,
    mask_logits,
)
from ud_agree.evaluate.cli import main  # noqa: E402

from tests.paths import FAMILIES, MODELS, needs_models  # noqa: E402


def tiny_model(name: str, layers: int = 1):
    """The real architecture and vocabulary of `name`, shrunk to width 32, random weights."""
    config = transformers.AutoConfig.from_pretrained(MODELS / name)
    config.update(
        {
            "num_hidden_layers": layers,
            "hidden_size": 32,
            "num_attention_heads": 2,
            "intermediate_size": 64,
        }
    )
    torch.manual_seed(0)
    return transformers.AutoModelForMaskedLM.from_config(config).eval()


@needs_models
@pytest.mark.parametrize("layers", [1, 3])
@pytest.mark.parametrize("name", FAMILIES)
def test_head_applied_only_at_masks_equals_full_model_logits(name, layers):
    model = tiny_model(name, layers)
    tok = transformers.AutoTokenizer.from_pretrained(MODELS / name)
    batch = tok(
        [f"Les {tok.mask_token} sont cassées.", f"La porte est {tok.mask_token} ouverte ."],
        padding=True,
        return_tensors="pt",
    )
    positions = (batch["input_ids"] == tok.mask_token_id).int().argmax(1)
    with torch.inference_mode():
        ours = mask_logits(model, batch["input_ids"], batch["attention_mask"], positions)
        full = model(**batch).logits[torch.arange(2), positions]
    assert ours.shape == (2, model.config.vocab_size)
    torch.testing.assert_close(ours, full, rtol=1e-4, atol=1e-5)
    assert looks_untrained(model)


@needs_models
def test_saved_random_model_is_flagged_and_trained_one_is_not(tmp_path):
    tiny_model("camembert-base").save_pretrained(tmp_path / "rand")
    transformers.AutoTokenizer.from_pretrained(MODELS / "camembert-base").save_pretrained(
        tmp_path / "rand"
    )
    loaded = load_model(str(tmp_path / "rand"), "cpu")
    assert loaded.random_weights and loaded.window == 512
    trained = load_model(str(MODELS / "tiny-fr-ud-bert"), "cpu")
    assert not trained.random_weights
    assert next(trained.model.parameters()).dtype == torch.float32  # fp16 weights upcast on CPU
    assert trained.window == 128


@needs_models
def test_directory_without_weights_is_an_error_not_random_weights():
    with pytest.raises(ModelNotFound, match="no weights"):
        load_model(str(MODELS / "bert-base-multilingual-cased"), "cpu")


def one_line_error(capsys, argv) -> str:
    """Run the CLI, expect exit status 2 and exactly one line on stderr; return it."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    return err[0]


def test_missing_model_is_one_line_saying_how_to_pass_a_local_path(capsys, tmp_path, monkeypatch):
    from tests.evaluate.test_run import SENTENCES_FR, write_corpus

    corpus = write_corpus(tmp_path / "c", SENTENCES_FR)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for model in (str(tmp_path / "no-such-dir"), "no-such-org/no-such-model"):
        line = one_line_error(capsys, ["--lang", "fr", "--corpus", str(corpus), "--model", model])
        assert ("not found" in line and "--model /path/to/model" in line) or (
            "no such folder" in line and str(tmp_path) in line
        )


def test_missing_corpus_or_language_is_one_line(capsys, tmp_path):
    from tests.evaluate.test_run import SENTENCES_FR, write_corpus

    line = one_line_error(capsys, ["--lang", "fr", "--corpus", str(tmp_path / "nothing")])
    assert "corpus folder" in line
    corpus = write_corpus(tmp_path / "c", SENTENCES_FR)
    line = one_line_error(capsys, ["--lang", "de", "--corpus", str(corpus)])
    assert "--lang de" in line and "not in corpus" in line and "fr" in line


def test_demo_model_output_says_random_weights_plainly(capsys, tmp_path):
    from tests.evaluate.test_run import SENTENCES_FR, write_corpus

    corpus = write_corpus(tmp_path / "c", SENTENCES_FR)
    argv = [
        "--lang",
        "fr",
        "--corpus",
        str(corpus),
        "--model",
        "tiny-random",
        "--min-candidates",
        "2",
    ]
    assert main([*argv, "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "RANDOM" in out and "accuracy" in out


@needs_models
def test_dtype_auto_keeps_the_checkpoints_own_precision_and_says_so():
    from ud_agree.evaluate.backends.masked import MaskedPLL

    stored = load_model(str(MODELS / "tiny-fr-ud-bert"), "cpu", dtype="auto")
    assert next(stored.model.parameters()).dtype == torch.float16  # as saved, as lm-eval's auto
    assert MaskedPLL(stored, dtype="auto").facts()["dtype"] == "auto (float16)"
    upcast = load_model(str(MODELS / "tiny-fr-ud-bert"), "cpu")
    assert MaskedPLL(upcast).facts()["dtype"] == "float32"


def test_model_loading_names_the_failures_it_expects_and_lets_others_through(tmp_path, monkeypatch):
    import ud_agree.evaluate.backends.models as models

    def failing(error: BaseException):
        def load(cached: bool):
            raise error

        return load

    def local(error: BaseException) -> models.ModelNotFound:
        return models.ModelNotFound(f"local folder: {error}")

    folder = str(tmp_path)  # a local folder: its failure is named, the Hub never asked
    for expected in (OSError("no file"), ValueError("bad json"), KeyError("model"), Exception("x")):
        with pytest.raises(models.ModelNotFound, match="local folder"):
            models.local_or_hub(folder, failing(expected), local)
    # A bug is not a missing model.
    with pytest.raises(ZeroDivisionError):
        models.local_or_hub(folder, failing(ZeroDivisionError()), local)
    # A hub name not cached: asked of the Hub when it answers, else said to be not found.
    calls: list[bool] = []

    def cached_only_on_hub(cached: bool) -> str:
        calls.append(cached)
        if cached:
            raise OSError("not in the cache")
        return "model"

    monkeypatch.setattr(models, "hub_reachable", lambda: True)
    assert models.local_or_hub("org/m", cached_only_on_hub, local) == "model"
    assert calls == [True, False]
    monkeypatch.setattr(models, "hub_reachable", lambda: False)
    with pytest.raises(models.ModelNotFound, match="not found"):
        models.local_or_hub("org/m", cached_only_on_hub, local)


def test_every_loading_option_of_a_model_spec_reaches_load_scorer():
    # One spelling of the options (corpus and suite runs alike): each is a parameter of
    # load_scorer, and every parameter but the model and tiny-random's vocabulary is one of them.
    import inspect

    from ud_agree.evaluate.backends import load_scorer
    from ud_agree.evaluate.backends.spec import ModelSpec

    spec = ModelSpec("m", kind="causal", device="cpu", batch_size=3, max_tokens=9, seed=4,
                     trust_remote_code=True, native=True, pll="sentence")  # fmt: skip
    parameters = set(inspect.signature(load_scorer).parameters) - {"model", "vocabulary"}
    assert set(spec.loading()) == parameters
    assert spec.loading()["kind"] == "causal" and spec.loading()["trust_remote_code"] is True

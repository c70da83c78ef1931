"""Exports for the field's tools: lm-evaluation-harness runs ud-agree's task folder offline and
decides every pair as the pair reading does; Hugging Face `datasets` loads the dataset folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from ud_agree.mine.export import main as export_main
from ud_agree.mine.plan import Options
from ud_agree.mine.run import mine_languages

from tests.paths import MODELS, SAMPLE

KEY = ["sent_id", "target_id", "controller_id", "feature", "bad_value", "variant"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The sample's French, mined with two nonce variants per pair."""
    out = tmp_path_factory.mktemp("corpus")
    options = Options(ud_dir=SAMPLE / "ud", out=out, langs=["fr"], unimorph_dirs=[SAMPLE / "unimorph"],
                      progress=False, nonce=2)  # fmt: skip
    mine_languages(options)
    return out


def offline(tmp_path: Path) -> dict[str, str]:
    """An environment that downloads nothing and imports Hugging Face's `evaluate`, not ours."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_HOME=str(tmp_path / "hf"), HF_DATASETS_CACHE=str(tmp_path / "hf" / "datasets"))  # fmt: skip
    return env


def random_gpt2(folder: Path) -> Path:
    """A tiny GPT-2 with random weights and tiny-fr-ud-gpt2's byte-level tokenizer."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-gpt2")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_positions=256, n_embd=32,
                                     n_layer=2, n_head=2, bos_token_id=tokenizer.bos_token_id,
                                     eos_token_id=tokenizer.eos_token_id)  # fmt: skip
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def random_mistral(folder: Path) -> Path:
    """A tiny Mistral with random weights and Mistral v0.3's tokenizer (it adds BOS itself)."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "mistral-v0.3-tokenizer")
    torch.manual_seed(0)
    config = transformers.MistralConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
    )  # fmt: skip
    transformers.MistralForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


# lm-eval's metrics and the ud-agree rules that decide as they do (DESIGN §5.1).
LM_EVAL_RULES = {"acc": "sum", "acc_norm": "chars", "acc_bytes": "bytes"}


@pytest.mark.parametrize(
    ("tokenizer", "build"),
    [("tiny-fr-ud-gpt2", random_gpt2), ("mistral-v0.3-tokenizer", random_mistral)],
)
def test_lm_eval_decides_every_pair_as_the_pair_reading_does(corpus, tmp_path, tokenizer, build):
    pytest.importorskip("lm_eval")
    if not (MODELS / tokenizer).is_dir():
        pytest.skip(f"shared {tokenizer} not present")
    model = build(tmp_path / "model")
    tasks = tmp_path / "tasks"
    assert export_main([str(corpus), "--format", "lm-eval", "--out", str(tasks)]) == 0
    assert (tasks / "_ud_agree_fr.yaml").is_file() and (tasks / "_ud_agree_fr_nonce.yaml").is_file()
    # ud-agree's own pair reading of the same pairs with the same model.
    from ud_agree.evaluate.options import Options as EvaluateOptions
    from ud_agree.evaluate.output.results import load_results
    from ud_agree.evaluate.run import evaluate

    ours = evaluate(EvaluateOptions(lang="fr", corpus=str(corpus), model=str(model), reading="pair",
                                    out=str(tmp_path / "results"), progress=False))  # fmt: skip
    ours_rows = load_results(ours.out_dir).collect()
    # lm-eval, run where the repository's `evaluate/` folder cannot shadow Hugging Face's.
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    command = [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args",
               f"pretrained={model},dtype=float32", "--include_path", str(tasks), "--tasks",
               "ud_agree_fr,ud_agree_fr_nonce", "--device", "cpu", "--batch_size", "4",
               "--output_path", str(tmp_path / "lm"), "--log_samples"]  # fmt: skip
    done = subprocess.run(
        command, cwd=outside, env=offline(tmp_path), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    samples = [
        {**record["doc"], **{f"lm_eval_{m}": bool(record[m]) for m in LM_EVAL_RULES}}
        for path in (tmp_path / "lm").rglob("samples_*.jsonl")
        for record in map(json.loads, path.read_text().splitlines())
    ]
    theirs = pl.DataFrame(samples).select(*KEY, "type", *(f"lm_eval_{m}" for m in LM_EVAL_RULES))
    rules = [f"right_{rule}" for rule in LM_EVAL_RULES.values()]
    joined = ours_rows.select(*KEY, "right", *rules).join(theirs, on=KEY, how="full", coalesce=True)
    assert joined.height == ours_rows.height == theirs.height > 20
    # lm-eval's argmax counts a tie as right, ud-agree does not: no pair here is a tie.
    for metric, rule in LM_EVAL_RULES.items():
        assert (joined[f"right_{rule}"] == joined[f"lm_eval_{metric}"]).all(), metric
    assert (joined["right"] == joined["right_sum"]).all()  # the default headline rule
    # Per task, lm-eval's accuracies are then the pair reading's under each rule.
    results = json.loads(next((tmp_path / "lm").rglob("results_*.json")).read_text())["results"]
    for (kind, type_), rows in joined.with_columns(
        pl.col("variant").str.starts_with("nonce").alias("nonce")
    ).group_by("nonce", "type"):
        task = f"ud_agree_fr_{type_.replace('-', '_')}" + ("_nonce" if kind else "")
        for metric, rule in LM_EVAL_RULES.items():
            assert results[task][f"{metric},none"] == pytest.approx(rows[f"right_{rule}"].mean())


def test_hugging_face_datasets_loads_the_dataset_folder_offline(corpus, tmp_path):
    pytest.importorskip("datasets")
    folder = tmp_path / "dataset"
    assert export_main([str(corpus), "--format", "hf", "--out", str(folder)]) == 0
    card = (folder / "README.md").read_text()
    assert "config_name: fr" in card and "path: fr/test.parquet" in card
    assert "| fr | Sample |" in card  # the source treebank's license row
    code = (
        "import json, sys, datasets; d = datasets.load_dataset(sys.argv[1], 'fr', split='test');"
        "print(json.dumps([len(d), d.column_names, d[0]['variant']]))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(folder)], cwd=tmp_path,
                          env=offline(tmp_path), capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    rows, columns, variant = json.loads(done.stdout.strip().splitlines()[-1])
    pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet")
    assert rows == pairs.height and columns == pairs.columns and variant == "original"

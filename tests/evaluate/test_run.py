"""End-to-end evaluator runs on a hand-built French corpus: oracles, chunks, resume, baselines."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ud_agree.schemas.corpus import LEXICON, RELATIONS, SENTENCES

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ud_agree.evaluate.options import Options  # noqa: E402
from ud_agree.evaluate.run import evaluate  # noqa: E402

from tests.paths import MODELS, needs_models  # noqa: E402

MBERT = MODELS / "bert-base-multilingual-cased"

# form, upos, number, gender, count
LEXICON_ROWS = [
    ("homme", "NOUN", "Sing", "Masc", 5),
    ("hommes", "NOUN", "Plur", "Masc", 3),
    ("femme", "NOUN", "Sing", "Fem", 5),
    ("femmes", "NOUN", "Plur", "Fem", 2),
    ("livre", "NOUN", "Sing", "Masc", 4),
    ("livres", "NOUN", "Plur", "Masc", 2),
    ("ville", "NOUN", "Sing", "Fem", 6),
    ("villes", "NOUN", "Plur", "Fem", 1),
    ("maison", "NOUN", "Sing", "Fem", 3),
    ("maisons", "NOUN", "Plur", "Fem", 1),
    ("enfant", "NOUN", "Sing", "Masc", 2),
    ("enfants", "NOUN", "Plur", "Masc", 4),
    ("ami", "NOUN", "Sing", "Masc", 2),
    ("amis", "NOUN", "Plur", "Masc", 2),
    ("voiture", "NOUN", "Sing", "Fem", 2),
    ("voitures", "NOUN", "Plur", "Fem", 1),
    ("pays", "NOUN", "Sing,Plur", "Masc", 3),
    ("le", "DET", "Sing", "Masc", 9),
    ("Le", "DET", "Sing", "Masc", 3),
    ("la", "DET", "Sing", "Fem", 9),
    ("La", "DET", "Sing", "Fem", 2),
    ("les", "DET", "Plur", "", 8),
    ("Les", "DET", "Plur", "", 2),
    ("un", "DET", "Sing", "Masc", 4),
    ("une", "DET", "Sing", "Fem", 4),
    ("Une", "DET", "Sing", "Fem", 1),
    ("grand", "ADJ", "Sing", "Masc", 2),
    ("grande", "ADJ", "Sing", "Fem", 2),
    ("grands", "ADJ", "Plur", "Masc", 1),
    ("grandes", "ADJ", "Plur", "Fem", 1),
    ("petit", "ADJ", "Sing", "Masc", 2),
    ("petite", "ADJ", "Sing", "Fem", 2),
]


def _values(text: str) -> list[str]:
    return sorted(v for v in text.split(",") if v)


def lexicon_features(form: str, upos: str) -> tuple[list[str], list[str]]:
    """(number, gender) of a form in the test lexicon."""
    for f, u, n, g, _ in LEXICON_ROWS:
        if f == form and u == upos:
            return _values(n), _values(g)
    raise KeyError(form)


@dataclass
class Rel:
    """One relation of the test corpus: surface indices and forms of target and controller."""

    type: str
    target: int  # surface index
    controller: int
    target_form: str | None = None
    target_upos: str = "DET"
    controller_upos: str = "NOUN"
    in_mwt_target: bool = False
    controller_form: str | None = None


@dataclass
class Sent:
    """A sentence: surface words, SpaceAfter, relations."""

    sent_id: str
    words: list[str]
    space_after: list[bool] | None = None
    relations: list[Rel] = field(default_factory=list)


SENTENCES_FR = [
    Sent("s1", ["Les", "hommes", "dorment", "."], None, [Rel("determiner", 0, 1)]),
    Sent("s2", ["La", "femme", "dort", "."], None, [Rel("determiner", 0, 1)]),
    Sent(
        "s3",
        ["Une", "grande", "maison", "."],
        None,
        [Rel("determiner", 0, 2), Rel("attributive", 1, 2, target_upos="ADJ")],
    ),
    Sent(
        "s4",
        ["J'", "aime", "les", "villes", "."],
        [False, True, True, False, False],
        [Rel("determiner", 2, 3)],
    ),
    # "du" is the multiword token de + le: masking the det masks "du".
    Sent(
        "s5",
        ["Il", "parle", "du", "livre", "."],
        [True, True, True, False, False],
        [Rel("determiner", 2, 3, target_form="le", in_mwt_target=True)],
    ),
    Sent("s6", ["le", "livre", "des", "enfants"], None, [Rel("determiner", 0, 1)]),
    Sent("s7", ["un", "ami", "parle", "."], None, [Rel("determiner", 0, 1)]),
    Sent("s8", ["les", "voitures", "roulent", "."], None, [Rel("determiner", 0, 1)]),
]


def write_corpus(root: Path, sentences: list[Sent], lang: str = "fr", space_after_column=True):
    """Write relations/sentences/lexicon Parquet (ud_agree.schemas.corpus) and a manifest under root/lang."""
    folder = root / lang
    folder.mkdir(parents=True, exist_ok=True)
    rel_rows, sent_rows = [], []
    for line, s in enumerate(sentences):
        sent_rows.append(
            {
                "lang": lang,
                "treebank": "Test",
                "sent_id": s.sent_id,
                "text": " ".join(s.words),
                "words": s.words,
                "space_after": s.space_after or [True] * len(s.words),
                "file": "test.conllu",
                "line": line + 1,
            }
        )
        for r in s.relations:
            t_form = r.target_form or s.words[r.target]
            c_form = r.controller_form or s.words[r.controller]
            tn, tg = lexicon_features(t_form, r.target_upos)
            cn, cg = lexicon_features(c_form, r.controller_upos)
            agreeing = sorted(
                f
                for f, a, b in (("Number", tn, cn), ("Gender", tg, cg))
                if a and b and set(a) & set(b)
            )
            rel_rows.append(
                {
                    "lang": lang,
                    "treebank": "Test",
                    "sent_id": s.sent_id,
                    "type": r.type,
                    "target_id": r.target + 1,
                    "controller_id": r.controller + 1,
                    "target_surface": r.target,
                    "controller_surface": r.controller,
                    "target_form": t_form,
                    "controller_form": c_form,
                    "target_lemma": t_form.lower(),
                    "controller_lemma": c_form,
                    "target_upos": r.target_upos,
                    "controller_upos": r.controller_upos,
                    "target_number": tn,
                    "target_gender": tg,
                    "target_case": [],
                    "target_person": [],
                    "controller_number": cn,
                    "controller_gender": cg,
                    "controller_case": [],
                    "controller_person": [],
                    "agreeing": agreeing,
                    "distance": abs(r.target - r.controller),
                    "order": "target-first" if r.target < r.controller else "controller-first",
                    "intervening_nouns": 0,
                    "distractors": 0,
                    "attractors": 0,
                    "in_mwt_target": r.in_mwt_target,
                    "in_mwt_controller": False,
                }
            )
    sent_schema = SENTENCES
    if "space_after" not in SENTENCES.names:
        sent_schema = SENTENCES.append(pa.field("space_after", pa.list_(pa.bool_())))
    if not space_after_column:
        sent_schema = pa.schema([f for f in sent_schema if f.name != "space_after"])
        for row in sent_rows:
            del row["space_after"]
    pq.write_table(pa.Table.from_pylist(rel_rows, RELATIONS), folder / "relations.parquet")
    pq.write_table(pa.Table.from_pylist(sent_rows, sent_schema), folder / "sentences.parquet")
    lex_rows = [
        {
            "lang": lang,
            "form": f,
            "upos": u,
            "number": _values(n),
            "gender": _values(g),
            "case": [],
            "person": [],
            "count": c,
            "source": "ud",
        }
        for f, u, n, g, c in LEXICON_ROWS
    ]
    pq.write_table(pa.Table.from_pylist(lex_rows, LEXICON), folder / "lexicon.parquet")
    (folder / "manifest.json").write_text(json.dumps({"lang": lang, "n": len(rel_rows)}))
    return root


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The hand-built French test corpus."""
    return write_corpus(tmp_path / "corpus", SENTENCES_FR)


# ---------------------------------------------------------------- oracle stand-in models


class OracleLM(torch.nn.Module):
    """Stand-in masked LM: each known input sequence gets high logits on chosen token ids.

    It has neither `cls` nor `lm_head`, so the evaluator takes its full-logits path.
    """

    def __init__(self, vocab_size: int, table: dict[tuple[int, ...], set[int]]):
        super().__init__()
        self.vocab_size, self.table, self.seen = vocab_size, table, []

    def forward(self, input_ids, attention_mask):
        logits = torch.zeros((*input_ids.shape, self.vocab_size))
        for row in range(input_ids.shape[0]):
            key = tuple(input_ids[row][attention_mask[row] == 1].tolist())
            self.seen.append(key)
            favoured = self.table.get(key)
            if favoured:
                logits[row, :, sorted(favoured)] = 20.0
        return type("Out", (), {"logits": logits})()


def shown_text(words, space_after, masked, mask):
    """Test's own rendering of a masked sentence (space unless SpaceAfter=No)."""
    out = ""
    for i, w in enumerate(words):
        out += mask if i == masked else w
        if i < len(words) - 1 and (space_after is None or space_after[i]):
            out += " "
    return out


def expected_split(upos, number, gender, agreeing):
    """Correct and incorrect lower-cased forms of the test lexicon, by DESIGN.md §1.5 (agreement)."""
    own = {"Number": set(number), "Gender": set(gender)}
    bundles: dict[str, set] = {}
    for f, u, n, g, _ in LEXICON_ROWS:
        if u == upos:
            bundles.setdefault(f.lower(), set()).add((frozenset(_values(n)), frozenset(_values(g))))
    correct, incorrect = set(), set()
    for form, bs in bundles.items():
        as_dict = [{"Number": set(n), "Gender": set(g)} for n, g in bs]
        if any(all(b[f] == own[f] for f in agreeing) for b in as_dict):
            correct.add(form)
        elif any(all(b[f] for f in agreeing) for b in as_dict):
            incorrect.add(form)
    return correct, incorrect


def oracle_table(tokenizer, favour: str) -> dict[tuple[int, ...], set[int]]:
    """Masked sentence ids → ids of every vocabulary casing of the favoured forms."""
    from ud_agree.evaluate.readings.candidates import whole_word_vocab

    casings: dict[str, set[int]] = {}
    for word, index in whole_word_vocab(tokenizer).items():
        casings.setdefault(word.lower(), set()).add(index)
    table: dict[tuple[int, ...], set[int]] = {}
    for s in SENTENCES_FR:
        for r in s.relations:
            for role in ("controller", "target"):
                index = r.controller if role == "controller" else r.target
                form = (r.target_form or s.words[r.target]) if role == "target" else s.words[index]
                upos = r.controller_upos if role == "controller" else r.target_upos
                number, gender = lexicon_features(form, upos)
                tn, tg = lexicon_features(r.target_form or s.words[r.target], r.target_upos)
                cn, cg = lexicon_features(s.words[r.controller], r.controller_upos)
                agreeing = [
                    f for f, a, b in (("Number", tn, cn), ("Gender", tg, cg)) if set(a) & set(b)
                ]
                correct, incorrect = expected_split(upos, number, gender, agreeing)
                chosen = correct if favour == "correct" else incorrect
                ids = set().union(*(casings.get(f, set()) for f in chosen))
                text = shown_text(s.words, s.space_after, index, tokenizer.mask_token)
                key = tuple(tokenizer(text)["input_ids"])
                assert table.get(key, ids) == ids, "test corpus has conflicting items"
                table[key] = ids
    return table


def run_with_oracle(monkeypatch, corpus, tmp_path, model_dir, favour, **options):
    """Evaluate the test corpus with an oracle standing in for the model of `model_dir`."""
    import ud_agree.evaluate.backends.models as models

    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    oracle = OracleLM(len(tokenizer), oracle_table(tokenizer, favour))

    def fake_load(name, device="auto", tokenizer=None, **_):
        return models.LoadedModel(name, oracle, tokenizer, False, 128, torch.device("cpu"))

    monkeypatch.setattr(models, "load_model", fake_load)
    opts = Options(
        lang="fr",
        corpus=str(corpus),
        model=str(model_dir),
        mask="both",
        min_candidates=2,
        out=str(tmp_path / "out"),
        progress=False,
        batch_size=3,
        **options,
    )
    outcome = evaluate(opts)
    return outcome, pl.read_parquet(outcome.out_dir / "results-*.parquet"), oracle


@needs_models
@pytest.mark.parametrize("family", ["bert-base-multilingual-cased", "camembert-base"])
def test_oracle_favouring_correct_candidates_scores_100_percent(
    monkeypatch, corpus, tmp_path, family
):
    _, results, oracle = run_with_oracle(monkeypatch, corpus, tmp_path, MODELS / family, "correct")
    assert results.height >= 12
    assert results["right"].all() and results["right_logit"].all()
    # Every forward row was a sentence the oracle knew: masking and tokenization match the test's.
    assert all(key in oracle.table for key in oracle.seen)


@needs_models
@pytest.mark.parametrize("family", ["bert-base-multilingual-cased", "xlm-roberta-base"])
def test_oracle_favouring_incorrect_candidates_scores_0_percent(
    monkeypatch, corpus, tmp_path, family
):
    _, results, oracle = run_with_oracle(
        monkeypatch, corpus, tmp_path, MODELS / family, "incorrect"
    )
    assert results.height >= 8
    assert not results["right"].any() and not results["right_logit"].any()
    assert all(key in oracle.table for key in oracle.seen)


@needs_models
def test_no_context_control_shows_only_masks_and_writes_its_own_folder(
    monkeypatch, corpus, tmp_path
):
    outcome, results, oracle = run_with_oracle(
        monkeypatch, corpus, tmp_path, MBERT, "correct", control="no-context"
    )
    assert "__no-context" in outcome.out_dir.name
    assert set(results["method"]) == {"no-context"}
    tokenizer = transformers.AutoTokenizer.from_pretrained(MBERT)
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.mask_token_id}
    assert oracle.seen and all(set(key) <= special for key in oracle.seen)
    # "J'aime les villes ." keeps 5 surface words: 5 masks.
    assert max(key.count(tokenizer.mask_token_id) for key in oracle.seen) == 5


# ---------------------------------------------------------------- files, resume, counts


def tiny_options(corpus, tmp_path, **kw) -> Options:
    """Options for a fast run with the offline random model."""
    base = dict(
        lang="fr",
        corpus=str(corpus),
        model="tiny-random",
        mask="both",
        min_candidates=2,
        out=str(tmp_path / "out"),
        progress=False,
        batch_size=4,
        chunk_size=4,
    )
    base.update(kw)
    return Options(**base)


def test_results_are_written_in_chunks_that_resume_continues_without_duplicates(corpus, tmp_path):
    first = evaluate(tiny_options(corpus, tmp_path))
    chunks = sorted(first.out_dir.glob("results-*.parquet"))
    assert len(chunks) >= 3
    full = pl.read_parquet(chunks).sort("sent_id", "target_id", "masked")
    # Interrupted run: the last chunk never landed.
    chunks[-1].unlink()
    kept = {p.name: p.read_bytes() for p in chunks[:-1]}
    again = evaluate(tiny_options(corpus, tmp_path, resume=True))
    kept_rows = sum(pl.read_parquet(p).height for p in chunks[:-1])
    assert again.counts["resumed_already_done"] == kept_rows
    after = sorted(again.out_dir.glob("results-*.parquet"))
    assert {p.name: p.read_bytes() for p in after if p.name in kept} == kept
    resumed = pl.read_parquet(after).sort("sent_id", "target_id", "masked")
    key = ["sent_id", "type", "target_id", "controller_id", "masked"]
    assert resumed.select(key).is_duplicated().sum() == 0
    assert resumed.select(key).equals(full.select(key))
    assert again.counts["items_scored_now"] == full.height - kept_rows
    assert not list(again.out_dir.glob(".*tmp*"))


def test_results_follow_the_schema_and_manifest_says_random_weights(corpus, tmp_path):
    from ud_agree.schemas.results import RESULTS

    outcome = evaluate(tiny_options(corpus, tmp_path))
    table = pq.read_table(next(outcome.out_dir.glob("results-*.parquet")))
    assert table.schema.equals(RESULTS)
    manifest = json.loads((outcome.out_dir / "manifest.json").read_text())
    assert manifest["random_weights"] is True
    assert manifest["counts"]["items_built"] == 2 * sum(len(s.relations) for s in SENTENCES_FR)
    assert (outcome.out_dir / "summary.csv").exists()
    assert "RANDOM" in (outcome.out_dir / "summary.md").read_text()


def test_same_surface_word_and_too_few_candidates_are_skipped_and_counted(tmp_path):
    sentences = [
        *SENTENCES_FR,
        # A relation whose two members share a surface word (as in a contraction).
        Sent(
            "s9",
            ["Il", "parle", "du", "."],
            None,
            [Rel("determiner", 2, 2, "le", controller_upos="DET", controller_form="le")],
        ),
    ]
    corpus = write_corpus(tmp_path / "c", sentences)
    outcome = evaluate(tiny_options(corpus, tmp_path, mask="controller", min_candidates=6))
    counts = outcome.counts
    assert counts["same-surface-word"] == 1
    # 9 NOUN controllers: the 6 agreeing on Gender+Number have 4 correct nouns (< 6) and are
    # skipped; the 3 after "les" agree on Number only: 8 correct, 9 incorrect.
    results = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    assert counts["too-few-candidates"] == 6
    assert sorted(results["sent_id"]) == ["s1", "s4", "s8"]
    assert (results["n_correct"] == 8).all() and (results["n_incorrect"] == 9).all()


def test_frequency_baseline_compares_mean_lexicon_counts(corpus, tmp_path):
    outcome = evaluate(tiny_options(corpus, tmp_path, model="frequency", mask="controller"))
    assert outcome.out_dir.name == "frequency-baseline"
    results = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    assert set(results["model"]) == {"frequency-baseline"} and set(results["method"]) == {
        "frequency"
    }
    s1 = results.filter(pl.col("sent_id") == "s1").row(0, named=True)
    # "Les" is Plur with no gender: correct = 8 plural nouns (counts sum 16), incorrect = 8
    # singular nouns (29) + "pays" (Sing,Plur ≠ Plur, 3).
    assert (s1["n_correct"], s1["n_incorrect"]) == (8, 9)
    assert s1["p_correct"] / s1["p_incorrect"] == pytest.approx((16 / 8) / (32 / 9))
    assert s1["right"] is False
    assert s1["distance_tokens"] is None


def test_class_average_item_with_a_non_finite_score_is_skipped_and_counted(
    corpus, tmp_path, monkeypatch
):
    from ud_agree.evaluate.backends.api import FormBatch
    from ud_agree.evaluate.tasks import class_average

    whole = evaluate(tiny_options(corpus, tmp_path / "whole", model="frequency"))
    scores = class_average.count_batches

    def overflowing(counts, n_items, chunk_size):
        # A model whose float16 overflowed on every item of an even row: NaN probabilities.
        for batch in scores(counts, n_items, chunk_size):
            prob = np.repeat(batch.prob, len(batch.rows), axis=0)
            logit = np.repeat(batch.logit, len(batch.rows), axis=0)
            prob[batch.rows % 2 == 0] = np.nan
            yield FormBatch(batch.rows, prob, logit)

    monkeypatch.setattr(class_average, "count_batches", overflowing)
    outcome = evaluate(tiny_options(corpus, tmp_path / "nan", model="frequency"))
    scored = whole.counts["items_in_results"]
    assert outcome.counts["non-finite"] == (scored + 1) // 2
    assert outcome.counts["items_in_results"] == scored // 2
    results = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    assert results["p_correct"].is_finite().all() and results["p_incorrect"].is_finite().all()


def test_missing_space_after_column_joins_words_with_spaces(tmp_path):
    corpus = write_corpus(tmp_path / "c", SENTENCES_FR, space_after_column=False)
    outcome = evaluate(tiny_options(corpus, tmp_path))
    assert outcome.counts["items_in_results"] > 0


def test_limit_scores_only_the_first_items(corpus, tmp_path):
    outcome = evaluate(tiny_options(corpus, tmp_path, limit=3))
    assert pl.read_parquet(outcome.out_dir / "results-*.parquet").height == 3


def test_exact_match_compares_all_features_and_gets_its_own_folder(corpus, tmp_path):
    opts = tiny_options(corpus, tmp_path, model="frequency", mask="controller", match="exact")
    outcome = evaluate(opts)
    assert outcome.out_dir.name == "frequency-baseline__match-exact"
    s1 = pl.read_parquet(outcome.out_dir / "results-*.parquet").filter(pl.col("sent_id") == "s1")
    # "hommes" is Plur+Masc: correct are the Plur+Masc nouns, every other noun is incorrect.
    assert s1.select("n_correct", "n_incorrect", "match").row(0) == (4, 13, "exact")


@pytest.mark.parametrize(("case", "expected"), [("fold", (1, 4)), ("exact", (2, 7))])
def test_case_fold_merges_casings_and_exact_keeps_them_apart(corpus, tmp_path, case, expected):
    opts = tiny_options(
        corpus, tmp_path, model="frequency", mask="target", case=case, min_candidates=1
    )
    results = pl.read_parquet(evaluate(opts).out_dir / "results-*.parquet")
    # Target "Les" (Plur, agreeing on Number): les/Les against le/Le/la/La/un/une/Une.
    s1 = results.filter(pl.col("sent_id") == "s1")
    assert s1.select("n_correct", "n_incorrect").row(0) == expected
    assert set(results["case"]) == {case}


@needs_models
def test_frequency_baseline_with_vocab_of_keeps_only_the_models_whole_words(corpus, tmp_path):
    tiny_fr = str(MODELS / "tiny-fr-ud-bert")
    plain = evaluate(tiny_options(corpus, tmp_path, model="frequency", mask="controller"))
    vocab = evaluate(
        tiny_options(corpus, tmp_path, model="frequency", mask="controller", vocab_of=tiny_fr)
    )
    assert vocab.out_dir.name == "frequency-baseline__vocab-tiny-fr-ud-bert"
    assert set(pl.read_parquet(vocab.out_dir / "results-*.parquet")["model"]) == {
        "frequency-baseline (tiny-fr-ud-bert vocabulary)"
    }
    assert vocab.manifest["candidates"] <= plain.manifest["candidates"]
    results = pl.read_parquet(vocab.out_dir / "results-*.parquet")
    assert results["distance_tokens"].null_count() == 0


def test_resume_with_other_options_is_refused(corpus, tmp_path):
    from ud_agree.evaluate.options import UsageError

    evaluate(tiny_options(corpus, tmp_path, model="frequency"))
    with pytest.raises(UsageError, match="min_candidates"):
        evaluate(tiny_options(corpus, tmp_path, model="frequency", resume=True, min_candidates=3))

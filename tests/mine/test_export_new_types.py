"""The exports and `mine.compare` on corpora mined here with the types beyond the four
(`numeral`, `subject-participle`, `possessive`): MultiBLiMP's phenomenon names, BLiMP's terms,
lm-eval's tasks, the Hugging Face card, and a MultiBLiMP export compared back to its corpus."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest
from ud_agree.mine.compare import compare
from ud_agree.mine.export import main

from tests.mine.test_numeral import DVA_STOLY, DVE_ZENY
from tests.mine.test_pairs import mine_with_skips
from tests.mine.test_possessive import MERA_GHAR, MERI_KITAB
from tests.mine.test_subject_participle import (
    ELLE_EST_PARTIE,
    ELLES_SONT_PARTIES,
    ILS_SONT_PARTIS,
)

CORPORA = {
    "cs": ("Czech", (DVA_STOLY, DVE_ZENY)),
    "fr": ("French", (ELLES_SONT_PARTIES, ILS_SONT_PARTIS, ELLE_EST_PARTIE)),
    "hi": ("Hindi", (MERI_KITAB, MERA_GHAR)),
}


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> dict[str, Path]:
    """Per language, the pairs.parquet of a corpus mined from the sentences above."""
    found = {}
    for code, (name, blocks) in CORPORA.items():
        work = tmp_path_factory.mktemp(code)
        pairs, _, _ = mine_with_skips(work, *blocks, lang=name)
        assert pairs.height
        found[code] = work / "corpus" / code / "pairs.parquet"
    return found


def multiblimp_rows(pairs: Path, out: Path) -> list[dict]:
    assert main([str(pairs), "--format", "multiblimp", "--out", str(out)]) == 0
    with out.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_multiblimp_names_the_new_types_as_lionlab_does(corpora, tmp_path):
    seen = {}
    for code, pairs in corpora.items():
        for row in multiblimp_rows(pairs, tmp_path / f"{code}.tsv"):
            seen[(row["type"], row["feature"])] = (row["phenomenon"], row["inflect_item"])
    assert seen[("numeral", "Gender")] == ("HEAD-NUM-G", "num")
    assert seen[("subject-participle", "Gender")] == ("SP-G", "verb")
    assert seen[("subject-participle", "Number")] == ("SP-#", "verb")
    assert seen[("possessive", "Gender")] == ("HEAD-PRON-G", "pron")
    # Subject-verb keeps MultiBLiMP's SV; no other type is named SP.
    assert seen[("subject-verb", "Number")][0] == "SV-#"
    assert not any(
        p.startswith("SP-") for (t, _), (p, _) in seen.items() if t != "subject-participle"
    )


def test_a_multiblimp_export_of_the_new_types_compares_back_as_the_same_pairs(corpora, tmp_path):
    for code, pairs in corpora.items():
        exported = tmp_path / f"{code}.tsv"
        rows = multiblimp_rows(pairs, exported)
        classed = compare(exported, pairs.parent.parent)
        assert classed.height == len(rows)
        assert set(classed["class"]) == {"same-pair"}, classed


def test_blimp_lm_eval_and_hf_carry_each_type(corpora, tmp_path):
    cs = corpora["cs"]
    out = tmp_path / "cs.jsonl"
    assert main([str(cs), "--format", "blimp", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    numeral = [r for r in records if r["type"] == "numeral"]
    assert numeral and {r["linguistics_term"] for r in numeral} == {"numeral_noun_agreement"}
    assert {r["UID"] for r in numeral} == {"cs_numeral_noun_agreement_gender"}
    fr_corpus = corpora["fr"].parent.parent
    tasks = tmp_path / "tasks"
    assert main([str(fr_corpus), "--format", "lm-eval", "--out", str(tasks)]) == 0
    task = tasks / "ud_agree_fr_subject_participle.jsonl"
    rows = [json.loads(line) for line in task.read_text(encoding="utf-8").splitlines()]
    expected = pl.read_parquet(corpora["fr"]).filter(pl.col("type") == "subject-participle")
    assert len(rows) == expected.height
    assert "ud_agree_fr_subject_participle" in (tasks / "_ud_agree_fr.yaml").read_text()
    card_dir = tmp_path / "hf"
    hi_corpus = corpora["hi"].parent.parent
    assert main([str(hi_corpus), "--format", "hf", "--out", str(card_dir)]) == 0
    card = (card_dir / "README.md").read_text(encoding="utf-8")
    possessive = pl.read_parquet(corpora["hi"]).filter(pl.col("type") == "possessive").height
    assert f"| hi | possessive | {possessive} | 0 |" in card
    assert "four relation types" not in card and "subject-participle" in card

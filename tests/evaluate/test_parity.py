"""DESIGN §5.2's parity matrix, one test per cell (family × peer): on a tiny random model of the
family built on its real tokenizer, the peer's per-sentence scores equal the ud-agree column that
claims them within 1e-4 + 1e-6 × |score|, and every decision is equal except at the peer's exact
float32 ties (tests/parity.py runs both sides; `python -m tests.parity` prints the matrix)."""

from __future__ import annotations

import re

import pytest

from tests.docs import DOCS
from tests.parity import (
    BY_NAME,
    CELLS,
    FAMILIES,
    MASKED_PAIRS,
    PAIRS_PER_LANGUAGE,
    Matrix,
    build_model,
    docs_table,
    figure_table,
)
from tests.paths import MODELS, UD

# The docs' pages that carry the matrix's table (between these markers), rebuilt by a test.
TABLE_PAGES = ("evaluating/scoring-rules.md", "reproducing.md")
BEGIN, END = "<!-- parity matrix: begin -->", "<!-- parity matrix: end -->"


@pytest.fixture(scope="module")
def matrix(tmp_path_factory) -> Matrix:
    for module in ("torch", "transformers", "lm_eval", "minicons", "pandas", "yaml"):
        pytest.importorskip(module)
    missing = [f.folder for f in FAMILIES if not f.folder.is_dir()]
    if missing or not (UD / "UD_French-PUD").is_dir() or not (UD / "UD_English-PUD").is_dir():
        pytest.skip(f"shared models or treebanks not present: {missing or 'PUD'}")
    return Matrix(tmp_path_factory.mktemp("parity"))


# A family's cells run in one worker (`--dist loadgroup`): its model and runs are made once.
@pytest.mark.parametrize(
    ("family", "peer"),
    [pytest.param(f, p, id=f"{f}|{p}", marks=pytest.mark.xdist_group(f)) for f, p in CELLS],
)
def test_the_peer_decides_every_pair_as_the_ud_agree_column(matrix, family, peer):
    cell = matrix.cell(family, peer)
    print(figure_table([cell]).splitlines()[-1])  # the matrix's row: `pytest -rP` shows it
    assert cell.pairs >= (MASKED_PAIRS if BY_NAME[family].masked else 60), cell.failure()
    assert cell.holds, cell.failure()


def test_the_pairs_hold_the_hard_cases_in_both_languages(matrix):
    pairs = matrix.pairs
    for lang in ("fr", "en"):
        mine = pairs.filter(pairs["lang"] == lang)
        texts = mine["sentence_good"].to_list() + mine["sentence_bad"].to_list()
        # English-PUD alone is news text: its first and second persons are rare values (§4.1),
        # so its short pairs are fewer (21 of 60).
        assert mine.height >= PAIRS_PER_LANGUAGE // 3, lang
        assert (mine["start"] == 0).any(), f"{lang}: no pair varies its first, capitalised word"
        assert any(re.search(r"\d", t) for t in texts), f"{lang}: no digits"
        assert any(re.search("['’]", t) for t in texts), f"{lang}: no apostrophes"
    assert any(re.search(r"[éèàçêù]", t) for t in pairs["sentence_good"].to_list())


def test_every_family_has_a_real_tokenizer_and_every_claim_a_cell():
    assert {f.folder.parent for f in FAMILIES} >= {MODELS, MODELS / "tokenizers"}
    assert len({f for f, _ in CELLS}) == len(FAMILIES)


def test_a_family_whose_tokenizer_adds_more_than_bos_is_refused_where_minicons_is_asked(tmp_path):
    # Llama-2's tokenizer set to add EOS too: lp_native (minicons' encoding) would score it, and
    # ud-agree knows no such convention (§5.2: fails loudly, not silently) where minicons is
    # asked; elsewhere lp_native is never read, and the model scores.
    transformers = pytest.importorskip("transformers")
    from ud_agree.evaluate.backends import load_scorer
    from ud_agree.evaluate.options import UsageError

    family = BY_NAME["Llama-2"]
    if not family.folder.is_dir():
        pytest.skip("shared Llama-2 tokenizer not present")
    build_model(family, tmp_path / "model")
    tokenizer = transformers.AutoTokenizer.from_pretrained(family.folder, add_eos_token=True)
    assert tokenizer("Les clés.")["input_ids"][-1] == tokenizer.eos_token_id
    tokenizer.save_pretrained(tmp_path / "model")
    with pytest.raises(UsageError, match=r"adds \['<s>', '</s>'\] around a sentence"):
        load_scorer(str(tmp_path / "model"), device="cpu", native=True)
    scorer = load_scorer(str(tmp_path / "model"), device="cpu")
    assert "adds ['<s>', '</s>']" in scorer.facts()["lp_native"]
    assert all(s.native is None for s in scorer.token_scores(["Les clés sont là."]))


@pytest.mark.parametrize("page", TABLE_PAGES)
def test_the_docs_table_is_the_matrix(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{page}: no parity matrix table"
    table = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    assert table == docs_table(), f"{page}: rebuild it with `python -m tests.parity --docs`"

"""Fixtures shared by several test modules."""

from pathlib import Path

import pytest

from tests.paths import FAMILIES, MODELS, PUD


@pytest.fixture(scope="session")
def tokenizers():
    """The real tokenizers of the shared model folders, by folder name (loaded once)."""
    transformers = pytest.importorskip("transformers")
    return {name: transformers.AutoTokenizer.from_pretrained(MODELS / name) for name in FAMILIES}


@pytest.fixture(scope="session")
def pud_corpus(tmp_path_factory) -> Path:
    """French-PUD mined alone (`--all-types`, no UniMorph): the corpus folder."""
    if not PUD.is_dir():
        pytest.skip("shared French-PUD not present")
    from ud_agree.mine.plan import Options
    from ud_agree.mine.run import mine_languages

    work = tmp_path_factory.mktemp("pud")
    (work / "ud").mkdir()
    (work / "ud" / PUD.name).symlink_to(PUD)
    options = Options(
        ud_dir=work / "ud",
        out=work / "corpus",
        unimorph_dirs=[work / "no-unimorph"],
        all_types=True,
        progress=False,
    )
    mine_languages(options)
    return work / "corpus"

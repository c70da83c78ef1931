"""Fixtures shared by several test modules."""

import pytest

from tests.paths import FAMILIES, MODELS


@pytest.fixture(scope="session")
def tokenizers():
    """The real tokenizers of the shared model folders, by folder name (loaded once)."""
    transformers = pytest.importorskip("transformers")
    return {name: transformers.AutoTokenizer.from_pretrained(MODELS / name) for name in FAMILIES}

"""The fast reader reads every shared treebank exactly as the `conllu` library does."""

from __future__ import annotations

import io

import conllu
import pytest
from ud_agree.mine.features import parse_feats
from ud_agree.mine.read import Sentence, parse, read_bytes, stem

from tests.paths import UD, needs_ud
from ud_agree.schemas.corpus import FEATURES

TREEBANKS = sorted(p for p in UD.glob("UD_*") if p.is_dir())


def library_view(tokenlist: conllu.TokenList) -> dict:
    """What the miner keeps of a sentence, computed from the library's parse."""
    words, covered_until = [], 0
    ids, forms, upos, heads, deprels, values = [], [], [], [], [], []
    for token in tokenlist:
        token_id = token["id"]
        if isinstance(token_id, tuple):
            if token_id[1] == "-":
                words.append(token["form"])
                covered_until = token_id[2]
            continue
        ids.append(token_id)
        forms.append(token["form"])
        upos.append(token["upos"])
        heads.append(token["head"])
        deprels.append(token["deprel"])
        feats = token["feats"] or {}
        values.append(
            tuple(frozenset(feats[f].split(",")) if f in feats else frozenset() for f in FEATURES)
        )
        if token_id > covered_until:
            words.append(token["form"])
    return {
        "sent_id": tokenlist.metadata.get("sent_id"),
        "ids": ids,
        "forms": forms,
        "upos": upos,
        "heads": heads,
        "deprels": deprels,
        "values": values,
        "words": words,
    }


def our_view(sentence: Sentence) -> dict:
    return {
        "sent_id": sentence.sent_id,
        "ids": sentence.ids,
        "forms": sentence.forms,
        "upos": sentence.upos,
        "heads": sentence.heads,
        "deprels": sentence.deprels,
        # Definite read as in a language whose Definite is in F, as the library view reads it.
        "values": [parse_feats(f, definite=True).values() for f in sentence.feats],
        "words": sentence.words,
    }


@pytest.mark.slow
@needs_ud
@pytest.mark.parametrize("treebank", TREEBANKS, ids=lambda p: p.name)
def test_fast_reader_matches_conllu_library(treebank):
    files = sorted(treebank.glob("*.conllu*"))
    assert files
    for path in files:
        data = read_bytes(path)
        ours = [our_view(s) for s in parse(data, stem(path))]
        theirs = [library_view(t) for t in conllu.parse_incr(io.StringIO(data.decode("utf-8")))]
        assert len(ours) == len(theirs), path
        for mine, library in zip(ours, theirs, strict=True):
            if library["sent_id"] is None:
                mine["sent_id"] = None
            assert mine == library, (path, library["sent_id"])

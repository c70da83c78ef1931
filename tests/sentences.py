"""Write CoNLL-U sentences for tests from compact rows: `id form lemma upos feats head deprel [misc]`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ud_agree.mine.read import Sentence, parse


def conllu(*rows: str, sent_id: str | None = "s1", comments: tuple[str, ...] = ()) -> str:
    """One sentence block; `_` fields stand for themselves, XPOS and DEPS are `_`."""
    lines = [f"# sent_id = {sent_id}"] if sent_id else []
    lines += list(comments)
    for row in rows:
        parts = row.split()
        token_id, form, lemma, upos, feats, head, deprel = parts[:7]
        misc = parts[7] if len(parts) > 7 else "_"
        lines.append("\t".join([token_id, form, lemma, upos, "_", feats, head, deprel, "_", misc]))
    return "\n".join(lines) + "\n\n"


def write_treebank(
    ud_dir: Path, language: str, code: str, blocks: Iterable[tuple[str, ...]]
) -> str:
    """Sentences (each a tuple of rows, sent_ids s1, s2, …) written as the test file of
    `<ud_dir>/UD_<language>-Test/`, its name prefixed `code`; the file's text."""
    folder = ud_dir / f"UD_{language}-Test"
    folder.mkdir(parents=True)
    text = "".join(conllu(*rows, sent_id=f"s{i}") for i, rows in enumerate(blocks, 1))
    (folder / f"{code}_test-ud-test.conllu").write_text(text, encoding="utf-8")
    return text


def sentence(*rows: str) -> Sentence:
    """The single well-formed sentence of rows (fails the test if malformed)."""
    (parsed,) = list(parse(conllu(*rows).encode(), "test"))
    assert isinstance(parsed, Sentence), parsed
    return parsed


# Les clés de l'armoire sont cassées . — copula, predicative adjective, an attractor.
KEYS_ARE_BROKEN = (
    "1 Les le DET Definite=Def|Gender=Fem|Number=Plur|PronType=Art 2 det",
    "2 clés clé NOUN Gender=Fem|Number=Plur 7 nsubj",
    "3 de de ADP _ 5 case",
    "4 l' le DET Definite=Def|Number=Sing|PronType=Art 5 det SpaceAfter=No",
    "5 armoire armoire NOUN Gender=Fem|Number=Sing 2 nmod",
    "6 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 7 cop",
    "7 cassées cassé ADJ Gender=Fem|Number=Plur 0 root SpaceAfter=No",
    "8 . . PUNCT _ 7 punct",
)

"""Check the mined sentence texts (surface words: docs/method.md#surface-words) against each treebank's own `# text =`.

    python scripts/check_text.py --ud-dir ../shared/data/ud --corpus corpus [--examples 3]

Reads every language folder of a mined corpus (`sentences.parquet`: `text`, rebuilt from surface
words, `SpaceAfter=No`, `SpacesAfter=` and multiword tokens) and the treebank files it names with
the `conllu` library, and counts per treebank the sentences whose rebuilt text differs from
`# text` (sentences without `# text` are left out). Each difference is classed by where it lies:

- `reference`: the text `conllu`'s tokens give by §1.4 differs from the mined one: the miner's
  fault (every other class is the treebank's own: its `# text` disagrees with its tokens);
- `words`: the characters differ, not only the whitespace (the treebank's text is normalised,
  corrected or written otherwise than its tokens);
- `no-space-in-text`: a space the tokens give (no `SpaceAfter=No`) that `# text` lacks, `-mwt`
  where the word before is a multiword token, `-on-part` where a word inside it has the key;
- `space-in-text`: whitespace in `# text` where the token says `SpaceAfter=No`, `-mwt` likewise;
- `other-whitespace`: whitespace on both sides but not the same (`SpacesAfter=` giving a tab, a
  newline or several spaces that `# text` writes as one space, or the reverse);
- `edge-whitespace`: whitespace before the first word or after the last in `# text`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import conllu
import polars as pl
from ud_agree.mine.read import read_bytes

from ud_agree.surface import decode_spaces


def reference(sentence: conllu.TokenList) -> tuple[list[str], list[str], list[bool], list[str]]:
    """§1.4 from `conllu`'s tokens: the surface words, the whitespace after each (SpacesAfter=
    decoded, else one space or none after SpaceAfter=No; none after the last), whether each is a
    multiword token, and the MISC keys of the words inside each."""
    words: list[str] = []
    after: list[str] = []
    is_mwt: list[bool] = []
    inner: list[str] = []
    mwt_end = 0
    for token in sentence:
        token_id = token["id"]
        misc = token["misc"] or {}
        if isinstance(token_id, tuple):
            if token_id[1] != "-":
                continue  # an empty node is never a word
            mwt_end = token_id[2]
        elif token_id <= mwt_end:
            if misc:
                inner[-1] += "|".join(f"{k}={v}" for k, v in misc.items()) + "|"
            continue
        words.append(token["form"])
        is_mwt.append(isinstance(token_id, tuple))
        inner.append("")
        if "SpacesAfter" in misc:
            after.append(decode_spaces(misc["SpacesAfter"] or ""))
        else:
            after.append("" if misc.get("SpaceAfter") == "No" else " ")
    if after:
        after[-1] = ""
    return words, after, is_mwt, inner


def classes(
    text: str, words: list[str], after: list[str], is_mwt: list[bool], inner: list[str]
) -> Counter:
    """The classes of the differences between `# text` and the words with their whitespace."""
    found: Counter = Counter()
    at = len(text) - len(text.lstrip())
    if at:
        found["edge-whitespace"] += 1
    for i, word in enumerate(words):
        if not text.startswith(word, at):
            found["words"] += 1
            return found
        at += len(word)
        gap_end = at
        while gap_end < len(text) and text[gap_end].isspace():
            gap_end += 1
        theirs, ours = text[at:gap_end], after[i]
        at = gap_end
        if i == len(words) - 1:
            if theirs:
                found["edge-whitespace"] += 1
            break
        if theirs == ours:
            continue
        mwt = "-mwt" if is_mwt[i] else ""
        if not theirs:
            part = "-on-part" if "SpaceAfter=No" in inner[i] else ""
            found[f"no-space-in-text{mwt}{part}"] += 1
        elif not ours:
            found[f"space-in-text{mwt}"] += 1
        else:
            found[f"other-whitespace {ours!r} in ours, {theirs!r} in text"] += 1
    if at < len(text):
        found["words"] += 1
    return found


def check(ud_dir: Path, corpus: Path, examples: int) -> dict[str, dict]:
    """Per treebank: sentences with `# text`, those differing, and the classes' counts."""
    report: dict[str, dict] = {}
    for sentences_file in sorted(corpus.glob("*/sentences.parquet")):
        mined = pl.read_parquet(sentences_file, columns=["treebank", "file", "line", "text"])
        for file, rows in mined.sort("file", "line").group_by("file", maintain_order=True):
            texts = rows.get_column("text").to_list()
            treebank = f"{sentences_file.parent.name}_{rows.item(0, 'treebank')}"
            entry = report.setdefault(
                treebank,
                {"with_text": 0, "differ": 0, "classes": Counter(), "examples": defaultdict(list)},
            )
            parsed = conllu.parse(read_bytes(ud_dir / str(file[0])).decode("utf-8"))
            if len(parsed) != len(texts):
                sys.exit(f"{file[0]}: {len(parsed)} sentences, {len(texts)} mined (malformed?)")
            for sentence, ours in zip(parsed, texts, strict=True):
                text = sentence.metadata.get("text")
                if text is None:
                    continue
                entry["with_text"] += 1
                if text == ours:
                    continue
                entry["differ"] += 1
                words, after, is_mwt, inner = reference(sentence)
                rebuilt = "".join(w + a for w, a in zip(words, after, strict=True))
                found = (
                    Counter(reference=1)
                    if rebuilt != ours
                    else classes(text, words, after, is_mwt, inner)
                )
                for name in found:
                    entry["classes"][name] += 1
                    if len(entry["examples"][name]) < examples:
                        sent_id = sentence.metadata.get("sent_id", "?")
                        entry["examples"][name].append((sent_id, text, ours))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ud-dir", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--examples", type=int, default=0, help="examples shown per class")
    args = parser.parse_args()
    report = check(args.ud_dir, args.corpus, args.examples)
    total: Counter = Counter()
    for treebank, entry in report.items():
        total["with_text"] += entry["with_text"]
        total["differ"] += entry["differ"]
        listed = ", ".join(f"{k} {v}" for k, v in entry["classes"].most_common())
        print(f"{treebank:24} {entry['differ']:6} of {entry['with_text']:6}  {listed}")
        for name, shown in entry["examples"].items():
            for sent_id, text, ours in shown:
                print(f"    {name} {sent_id}\n      text: {text!r}\n      ours: {ours!r}")
    print(f"{'all':24} {total['differ']:6} of {total['with_text']:6}")


if __name__ == "__main__":
    main()

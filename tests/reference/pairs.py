"""Reference (test oracle): DESIGN.md §4 minimal pairs built one relation at a time, with the
rules as plain functions (`mine.rules.pairs.choose_bad_form`, `ambiguous`, over the `Paradigms`
index). The miner's pairs, decided by joins over whole tables, must equal these row for row,
and its skip counts these counts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from ud_agree.mine.lexicon import other_feats
from ud_agree.mine.nonce import capitalised_like, sound
from ud_agree.mine.paradigms import APOSTROPHES, BadForm, Member, Paradigms, is_elided
from ud_agree.mine.resources import read_rows
from ud_agree.mine.rules.pairs import ambiguous, choose_bad_form

from ud_agree.schemas.corpus import FEATURES, PAIR_SKIPS, PAIRS

ROLE_ORDER = {
    "target": ("target",),
    "controller": ("controller",),
    "both": ("target", "controller"),
}


def reference_pairs(
    relations: pa.Table,
    sentences: pa.Table,
    paradigms: Paradigms,
    vary: str,
    unagreement: bool = False,
    code: str = "",
    tokens: set[str] | None = None,
) -> tuple[pa.Table, pa.Table]:
    """Pairs of every relation for the varied role(s), in the relations' order, and the skips
    (a row each, in the same order)."""
    texts = sentence_index(sentences)
    attested = attested_values(paradigms)
    rows: list[dict[str, Any]] = []
    skips: list[dict[str, Any]] = []
    for relation in relations.to_pylist():
        for role in ROLE_ORDER[vary]:
            features, agreeing = features_of(relation, role, unagreement)
            for feature in features:
                if feature not in agreeing:  # the implicit Person under unagreement
                    skips.append(skip_row(relation, role, feature, None, "unagreement"))
                    continue
                rows += pairs_of(
                    relation,
                    role,
                    feature,
                    agreeing,
                    texts,
                    attested,
                    paradigms,
                    skips,
                    code,
                    tokens or set(),
                )
    return pa.Table.from_pylist(rows, PAIRS), pa.Table.from_pylist(skips, PAIR_SKIPS)


def features_of(
    relation: dict[str, Any], role: str, unagreement: bool
) -> tuple[list[str], list[str]]:
    """The features tried when varying `role`, and those a bad form must not meet (§4's A): the
    agreeing ones, and for a varied target the Person that a NOUN or PROPN subject without Person
    has implicitly (3) when the target has Person 3 — not under unagreement (a plural target
    in such a language)."""
    agreeing = relation["agreeing"]
    implicit = (
        role == "target"
        and relation["type"] == "subject-verb"
        and relation["controller_upos"] in ("NOUN", "PROPN")
        and not relation["controller_person"]
        and relation["target_person"] == ["3"]
        and "Person" not in agreeing
    )
    if not implicit:
        return agreeing, agreeing
    features = sorted([*agreeing, "Person"])
    if unagreement and relation["target_number"] == ["Plur"]:
        return features, agreeing
    return features, features


def skip_row(relation: dict[str, Any], role: str, feature: str, bad_value: str | None, reason: str):
    """A row of `pair_skips`."""
    keys = ("lang", "treebank", "sent_id", "type", "target_id", "controller_id")
    return {
        **{k: relation[k] for k in keys},
        "varied": role,
        "feature": feature,
        "bad_value": bad_value,
        "variant": "original",
        "reason": reason,
    }


def sentence_index(
    sentences: pa.Table,
) -> dict[tuple[str, str], tuple[str, list[int], list[bool]] | None]:
    """(treebank, sent_id) → text, each surface word's start offset and whether the word before is
    elided onto it; None for a key that repeats."""
    index: dict[tuple[str, str], tuple[str, list[int], list[bool]] | None] = {}
    for row in sentences.to_pylist():
        key = (row["treebank"], row["sent_id"])
        if key in index:
            index[key] = None
            continue
        starts, after_elided, offset = [], [], 0
        spaces = row.get("spaces_after") or [None] * len(row["words"])
        for i, (word, space) in enumerate(zip(row["words"], row["space_after"], strict=True)):
            starts.append(offset)
            before = row["words"][i - 1] if i else ""
            after_elided.append(
                bool(i) and not row["space_after"][i - 1] and before.endswith(APOSTROPHES)
            )
            offset += len(word) + len(spaces[i] if spaces[i] is not None else " " * space)
        index[key] = (row["text"], starts, after_elided, row["words"])
    return index


def written(
    code: str,
    tokens: set[str],
    upos: str,
    words: list[str],
    starts: list[int],
    surface: int,
    offset: int | None,
    form: str,
    bad_form: str,
) -> tuple[int, int, str] | str:
    """§4.1's written surface, one pair at a time, from the data tables themselves: the stretch
    replaced (start, end in the good text) and what is written there, or the skip reason."""
    start = starts[surface] + (offset or 0)
    if offset is not None:
        token = words[surface]
        rebuilt = token[:offset] + bad_form + token[offset + len(form) :]
        return (
            (start, start + len(form), bad_form)
            if rebuilt.lower() in tokens
            else "unattested-token"
        )
    after = words[surface + 1] if surface + 1 < len(words) else None
    onset = "consonant"
    for row in read_rows("onsets.tsv"):
        if row["code"] == code and after is not None and re.search(row["pattern"], after.lower()):
            onset = row["onset"]
            break
    sets = [
        row["set"]
        for row in read_rows("allomorphs.tsv")
        if (row["code"], row["upos"], row["member"]) == (code, upos, bad_form.lower())
    ]
    end, member = start + len(form), bad_form.lower()
    if sets:
        picks = {
            row["member"]
            for row in read_rows("allomorphs.tsv")
            if row["code"] == code
            and row["upos"] == upos
            and row["set"] in sets
            and onset in row["onsets"].split(",")
        }
        if len(picks) != 1:
            return "ambiguous-onset"
        (member,) = picks
        # A member of several sets (*l'*) is written only where each set writes the same.
        for name in sets:
            if not any(
                row["set"] == name and row["member"] == member and onset in row["onsets"].split(",")
                for row in read_rows("allomorphs.tsv")
                if (row["code"], row["upos"]) == (code, upos)
            ):
                return "ambiguous-onset"
        bad_form = capitalised_like(member, form)
        if member.endswith("'") and after is not None:
            return start, starts[surface + 1], bad_form
    if surface > 0:
        before = words[surface - 1]
        if starts[surface - 1] + len(before) < starts[surface]:
            for row in read_rows("contractions.tsv"):
                if (row["code"], row["first"], row["second"]) == (code, before.lower(), member):
                    return starts[surface - 1], end, capitalised_like(row["written"], before)
    return start, end, bad_form


def attested_values(paradigms: Paradigms) -> dict[tuple[str, str], list[str]]:
    """(upos, feature) → the values the lexicon attests, sorted."""
    return {
        (upos, FEATURES[slot]): sorted(values)
        for (upos, slot), values in paradigms.attested.items()
    }


def pairs_of(
    relation: dict[str, Any],
    role: str,
    feature: str,
    agreeing_features: list[str],
    texts: dict,
    attested: dict[tuple[str, str], list[str]],
    paradigms: Paradigms,
    skips: list[dict[str, Any]],
    code: str = "",
    tokens: set[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """The pairs of one relation varying `role` on `feature`; skips added to `skips`."""
    other = "controller" if role == "target" else "target"
    form, lemma, upos = (relation[f"{role}_{k}"] for k in ("form", "lemma", "upos"))
    values = relation[f"{role}_{feature.lower()}"]
    key = (relation["treebank"], relation["sent_id"])
    mwt_offset = relation[f"{role}_mwt_offset"]  # inside a transparent multiword token
    reason = (
        "multi-valued" if len(values) > 1
        else "no-lemma" if lemma in ("", "_", None)
        else "in-mwt" if relation[f"in_mwt_{role}"] and mwt_offset is None
        else "coordinated" if relation["coordinated"]
        else "elision" if is_elided(form)
        else "duplicate-sent-id" if key in texts and texts[key] is None
        else "missing-sentence" if key not in texts
        else None
    )  # fmt: skip
    if reason:
        skips.append(skip_row(relation, role, feature, None, reason))
        return
    text, starts, after_elided, words = texts[key]
    surface = relation[f"{role}_surface"]
    start = starts[surface] + (mwt_offset or 0)
    form = text[start : start + len(form)]  # as written: *Is* of *Isn't*
    bundle = tuple(frozenset(relation[f"{role}_{f.lower()}"]) - {""} for f in FEATURES)
    word = Member(form, lemma, upos, bundle, other_feats(relation[f"{role}_feats"] or ""), 0, False)
    other_member = Member(
        relation[f"{other}_form"],
        relation[f"{other}_lemma"],
        relation[f"{other}_upos"],
        tuple(frozenset(relation[f"{other}_{f.lower()}"]) - {""} for f in FEATURES),
        "",
        0,
        False,
    )
    slot = FEATURES.index(feature)
    agreeing = tuple(FEATURES.index(f) for f in agreeing_features)
    for bad_value in attested.get((upos, feature), ()):
        if bad_value in values:
            continue
        found = choose_bad_form(paradigms, word, slot, bad_value, agreeing)
        if not isinstance(found, BadForm):
            skips.append(skip_row(relation, role, feature, bad_value, found))
            continue
        if ambiguous(paradigms, other_member, slot, bad_value):
            skips.append(skip_row(relation, role, feature, bad_value, f"ambiguous-{other}"))
            continue
        bad_form = capitalised_like(found.key, form)
        elided = after_elided[surface] and mwt_offset in (None, 0)
        bound = bool(mwt_offset) and form[:1].lower() != bad_form[:1].lower()
        if (elided and sound(form) != sound(bad_form)) or bound:
            skips.append(skip_row(relation, role, feature, bad_value, "elision"))
            continue
        shape = written(
            code, tokens or set(), upos, words, starts, surface, mwt_offset, form, bad_form
        )
        if isinstance(shape, str):
            skips.append(skip_row(relation, role, feature, bad_value, shape))
            continue
        cut_start, cut_end, bad_form = shape
        yield {
            **{k: relation[k] for k in ("lang", "treebank", "sent_id", "type")},
            **{k: relation[k] for k in ("target_id", "controller_id")},
            "varied": role,
            "feature": feature,
            "good_value": values[0],
            "bad_value": bad_value,
            "lemma": lemma,
            "upos": upos,
            "good_form": form,
            "bad_form": bad_form,
            "bad_count": found.count,
            "bad_source": found.source,
            "sentence_good": text,
            "sentence_bad": text[:cut_start] + bad_form + text[cut_end:],
            "start": cut_start,
            "end_good": cut_end,
            "end_bad": cut_start + len(bad_form),
            "variant": "original",
        }

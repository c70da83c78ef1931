"""FEATS strings as sets of values of the four agreement features (DESIGN.md notation)."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ud_agree.schemas.corpus import FEATURES

EMPTY: frozenset[str] = frozenset()


class Bundle(NamedTuple):
    """val(w, f) for f in FEATURES, plus the other features the rules read (§1.1 verb forms,
    §1.2 typo)."""

    number: frozenset[str]
    gender: frozenset[str]
    case: frozenset[str]
    person: frozenset[str]
    typo: bool
    verbform: frozenset[str]
    mood: frozenset[str]
    definite: frozenset[str] = EMPTY  # only where Definite is in F (`parse_feats`)

    def values(self) -> tuple[frozenset[str], ...]:
        """The agreement features in FEATURES order."""
        return (self.number, self.gender, self.case, self.person, self.definite)

    def has_value(self) -> bool:
        """Whether some agreement feature has a value (the lexicon's entry condition)."""
        return bool(self.number or self.gender or self.case or self.person or self.definite)


@lru_cache(maxsize=1 << 16)
def parse_feats(feats: str, definite: bool = False) -> Bundle:
    """`Gender=Fem,Masc|Number=Plur` → Bundle; layered features (`Number[psor]`) are other
    features, and so is Definite unless `definite` (the language's Definite is in F, §1.7)."""
    found: dict[str, frozenset[str]] = {}
    if feats and feats != "_":
        for item in feats.split("|"):
            name, _, value = item.partition("=")
            if value:
                found[name] = frozenset(value.split(","))
    return Bundle(
        found.get("Number", EMPTY),
        found.get("Gender", EMPTY),
        found.get("Case", EMPTY),
        found.get("Person", EMPTY),
        "Yes" in found.get("Typo", EMPTY),
        found.get("VerbForm", EMPTY),
        found.get("Mood", EMPTY),
        found.get("Definite", EMPTY) if definite else EMPTY,
    )


# Layers of the features that §1.7's types compare (`Number[abs]`, `Person[psor]`, ...).
LAYERS = ("abs", "erg", "dat", "psor", "obj")
_AGREEMENT = FEATURES
# The name a layered view gives the word's own (plain) values of F, kept among its other
# features so that a bad form must share them (`layer_view`).
OWN_LAYER = "self"


@lru_cache(maxsize=1 << 16)
def parse_layer(feats: str, layer: str) -> tuple[frozenset[str], ...]:
    """val(w, f[layer]) for f in FEATURES order (`Number[abs]=Plur` → Number {Plur})."""
    found: dict[str, frozenset[str]] = {}
    if feats and feats != "_":
        for item in feats.split("|"):
            name, _, value = item.partition("=")
            if value and name.endswith(f"[{layer}]"):
                found[name[: -len(layer) - 2]] = frozenset(value.split(","))
    return tuple(found.get(name, EMPTY) for name in _AGREEMENT)


def has_layered_value(feats: str) -> bool:
    """Whether some agreement feature has a value in one of LAYERS (the lexicon keeps the word:
    a Basque auxiliary's agreement is all layered)."""
    return any(any(parse_layer(feats, layer)) for layer in LAYERS)


def layer_view(other: str, own: tuple[frozenset[str], ...], layer: str) -> str:
    """A word's other FEATS (`other`, `Name=Value|…` sorted, F left out) as a type comparing
    `layer` reads them: the layer's items of F left out (they are the values compared) and the
    word's own values of F (`own`) kept as `Name[self]` items, so that a bad form varying the
    layer must keep everything else (§4.1's same FEATS)."""
    items = [
        item
        for item in other.split("|")
        if item and item.partition("=")[0] not in {f"{name}[{layer}]" for name in _AGREEMENT}
    ]
    items += [
        f"{name}[{OWN_LAYER}]={','.join(sorted(values))}"
        for name, values in zip(_AGREEMENT, own, strict=True)
        if values
    ]
    return "|".join(sorted(items))

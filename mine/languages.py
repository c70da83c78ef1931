"""Languages and treebanks of a UD release: codes, `--lang` resolution, valid types (§1.6)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ud_agree.errors import UserError
from ud_agree.schemas.corpus import TYPES

from .read import CONLLU_SUFFIXES
from .resources import read_rows


@dataclass(frozen=True)
class Language:
    """A UD language: its UD file-name code, folder name, ISO codes."""

    code: str
    name: str
    iso1: str
    iso3: str
    unimorph: tuple[str, ...] = ()  # UniMorph folder names, where they differ from iso3

    @property
    def unimorph_codes(self) -> tuple[str, ...]:
        """Folders `<unimorph-dir>/<code>/` that hold this language's paradigms."""
        return self.unimorph or ((self.iso3,) if self.iso3 else ())

    @property
    def key(self) -> str:
        """Output folder and `lang` column: ISO 639-1 where one exists, else UD's code."""
        return self.iso1 or self.code


@dataclass
class Treebank:
    """One `UD_<Language>-<Treebank>` folder and its CoNLL-U files."""

    folder: Path
    name: str  # `GSD`
    language: Language
    files: list[Path] = field(default_factory=list)


class UsageError(UserError):
    """A one-line problem with the command line or the input folders (exit code 2)."""


def load_languages() -> list[Language]:
    """The language table kept as data (`mine/data/languages.tsv`)."""
    return [
        Language(
            row["code"],
            row["name"],
            row.get("iso1") or "",
            row.get("iso3") or "",
            tuple(c for c in (row.get("unimorph") or "").split(",") if c),
        )
        for row in read_rows("languages.tsv")
    ]


def load_valid_types() -> dict[str, frozenset[str]]:
    """UD code → the agreement types its grammar has (curated table, see data/TYPES.md)."""
    return {
        row["code"]: frozenset(t for t in TYPES if (row.get(t) or "").strip().lower() == "yes")
        for row in read_rows("types.tsv")
    }


ValueSets = dict[str, dict[str, frozenset[str]]]  # feature → value → the values it stands for


def load_value_sets() -> dict[str, ValueSets]:
    """UD code → the values that stand for several values when compared (§1.2: Norwegian Com)."""
    sets: dict[str, ValueSets] = defaultdict(dict)
    for row in read_rows("value_sets.tsv"):
        stands_for = frozenset(v.strip() for v in row["stands_for"].split(",") if v.strip())
        sets[row["code"]].setdefault(row["feature"], {})[row["value"]] = stands_for
    return dict(sets)


def language_codes(table: str) -> frozenset[str]:
    """The UD codes listed by a packaged table of languages (its `code` column)."""
    return frozenset(row["code"].strip() for row in read_rows(table))


def load_pro_drop_languages() -> frozenset[str]:
    """UD codes of the languages that drop pronominal subjects (§4.2: a copular clause's noun
    subject could be the predicate of a dropped first or second person), from
    `mine/data/pro_drop_languages.tsv`."""
    return language_codes("pro_drop_languages.tsv")


def load_unagreement_languages() -> frozenset[str]:
    """UD codes of the languages with unagreement (§4: a plural noun subject may take a first- or
    second-person plural verb, Spanish *los estudiantes trabajamos*; Höhn 2016), from
    `mine/data/unagreement_languages.tsv`."""
    return language_codes("unagreement_languages.tsv")


def load_reported_speech_languages() -> frozenset[str]:
    """UD codes of the languages whose subjunctive stands in main clauses of reported speech
    (German *Der Minister habe …*), so a form of another mood can be correct (§4.1 syncretism),
    from `mine/data/reported_speech_languages.tsv`."""
    return language_codes("reported_speech_languages.tsv")


def load_genderless_plural_languages() -> frozenset[str]:
    """UD codes of the languages whose plural distinguishes no gender (German *die alten*, for
    every gender), so a Gender contrast on a plural word is none (§4.1), from
    `mine/data/genderless_plural_languages.tsv`."""
    return language_codes("genderless_plural_languages.tsv")


def load_optional_feminine_treebanks() -> dict[str, frozenset[str]]:
    """UD code → the treebanks (names, as in `UD_Norwegian-Bokmaal`) whose feminine nouns may
    also take masculine agreement (Bokmål *kona din* beside *kona di*; empty: all the language's),
    from `mine/data/optional_feminine_languages.tsv`."""
    return {
        row["code"].strip(): frozenset(
            name.strip() for name in row["treebanks"].split(",") if name.strip()
        )
        for row in read_rows("optional_feminine_languages.tsv")
    }


def load_verb_prefixes() -> dict[str, dict[str, tuple[str, ...]]]:
    """Per UD code, per UPOS, the prefixes that mark an aspect its treebanks leave out of FEATS
    (Persian imperfective *mi-*, *nemi-*), from `mine/data/verb_prefixes.tsv` (§4.1: a bad form
    that gains or loses one changes the aspect too)."""
    prefixes: dict[str, dict[str, tuple[str, ...]]] = {}
    for row in read_rows("verb_prefixes.tsv"):
        listed = tuple(p.strip() for p in row["prefixes"].split(",") if p.strip())
        for upos in row["upos"].split(","):
            prefixes.setdefault(row["code"], {})[upos.strip()] = listed
    return prefixes


def load_verb_suffixes() -> dict[str, dict[str, tuple[tuple[str, str], ...]]]:
    """Per UD code, per UPOS, the suffixes (ending, class) that mark what its treebanks leave out
    of FEATS (Basque subordinators *-la*, *-(e)n*), from `mine/data/verb_suffixes.tsv` (§1.7: a
    layered view keeps the class, so a bad form keeps the clause type)."""
    suffixes: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {}
    for row in read_rows("verb_suffixes.tsv"):
        listed = tuple(
            (ending.strip(), kind.strip())
            for ending, _, kind in (item.partition(":") for item in row["suffixes"].split(","))
            if ending.strip()
        )
        for upos in row["upos"].split(","):
            suffixes.setdefault(row["code"], {})[upos.strip()] = listed
    return suffixes


# Per language, per UPOS, per context (`definite-plural`, `definite`, `any`): the endings its
# attributive forms may have (a missing context falls back on the next).
Endings = dict[str, dict[str, tuple[str, ...]]]


def load_adjective_endings() -> dict[str, Endings]:
    """Per UD code, the endings an attributive word may have by context (German weak
    declension after *der*: -e, -en), from `mine/data/adjective_endings.tsv` (§4.1: a bad form
    with another ending changes the declension, not the feature)."""
    endings: dict[str, Endings] = {}
    for row in read_rows("adjective_endings.tsv"):
        listed = tuple(e.strip() for e in row["endings"].split(",") if e.strip())
        endings.setdefault(row["code"], {}).setdefault(row["upos"], {})[row["context"]] = listed
    return endings


# Per (declension, Number, Gender, Case) the attributive ending (`_`: no Gender, the plural).
Declension = dict[tuple[str, str, str, str], str]


def load_adjective_declension() -> dict[str, Declension]:
    """Per UD code, the attributive adjective's ending in each declension (German strong, weak,
    mixed) and cell, from `mine/data/adjective_declension.tsv` (§4.3: a bad form of another
    declension's ending changes the declension, not the feature)."""
    table: dict[str, Declension] = {}
    for row in read_rows("adjective_declension.tsv"):
        cell = (row["declension"], row["number"], row["gender"], row["case"])
        table.setdefault(row["code"], {})[cell] = row["ending"]
    return table


def load_apocope() -> dict[str, dict[str, str]]:
    """Per UD code, each short (apocopated) form with its full form, from
    `mine/data/apocope.tsv`: Spanish *algún*, *buen* stand before the noun only, *alguno*,
    *bueno* after it or as a predicate (§4.1's surface the language writes)."""
    table: dict[str, dict[str, str]] = {}
    for row in read_rows("apocope.tsv"):
        table.setdefault(row["code"], {})[row["apocopated"]] = row["full"]
    return table


def load_spelling_variants() -> dict[str, dict[str, str]]:
    """Per UD code, the letters that vary between spellings of one form, each with its plain
    spelling (Russian *ё* printed *е*; Greek stress marks, learned *κτ* beside popular *χτ*), from
    `mine/data/spelling_variants.tsv`: two spellings that differ only so are one (§4.1's
    syncretism)."""
    table: dict[str, dict[str, str]] = {}
    for row in read_rows("spelling_variants.tsv"):
        table.setdefault(row["code"], {})[row["variant"]] = row["plain"]
    return table


def load_have_lemmas() -> dict[str, frozenset[str]]:
    """UD code → the lemmas of its *have* auxiliary (§1.7 subject-participle: *elle a travaillé*
    agrees with no subject), from `mine/data/have_auxiliaries.tsv`."""
    lemmas: dict[str, set[str]] = defaultdict(set)
    for row in read_rows("have_auxiliaries.tsv"):
        lemmas[row["code"].strip()].add(row["lemma"].strip())
    return {code: frozenset(found) for code, found in lemmas.items()}


def load_object_participle_lemmas() -> dict[str, frozenset[str]]:
    """UD code → the *have* lemmas whose participle agrees with an object placed before it
    (§1.7 object-verb (b): *les lettres qu'il a écrites*), from
    `mine/data/object_participle_auxiliaries.tsv`."""
    lemmas: dict[str, set[str]] = defaultdict(set)
    for row in read_rows("object_participle_auxiliaries.tsv"):
        lemmas[row["code"].strip()].add(row["lemma"].strip())
    return {code: frozenset(found) for code, found in lemmas.items()}


def load_ergative_markers() -> dict[str, frozenset[str]]:
    """UD code → the lemmas of its ergative case markers (§1.7 object-verb (b): Hindi, Urdu *ne*),
    from `mine/data/ergative_markers.tsv`."""
    lemmas: dict[str, set[str]] = defaultdict(set)
    for row in read_rows("ergative_markers.tsv"):
        lemmas[row["code"].strip()].add(row["lemma"].strip())
    return {code: frozenset(found) for code, found in lemmas.items()}


def load_participle_languages() -> frozenset[str]:
    """UD codes of the languages whose active participles agree with their subject (§1.1 verb
    forms: Czech *řekl*, *byl*), from `mine/data/participle_languages.tsv`."""
    return language_codes("participle_languages.tsv")


def conllu_files(folder: Path) -> list[Path]:
    """CoNLL-U files of a treebank folder, plain or compressed, sorted by name."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(CONLLU_SUFFIXES))


def find_treebanks(ud_dir: Path, languages: list[Language]) -> list[Treebank]:
    """Every `UD_*` folder with CoNLL-U files under ud_dir (or ud_dir itself if it is one)."""
    if not ud_dir.is_dir():
        raise UsageError(f"{ud_dir}: no such directory (--ud-dir)")
    folders = [ud_dir] if ud_dir.name.startswith("UD_") else sorted(ud_dir.glob("UD_*"))
    by_code = {lang.code: lang for lang in languages}
    by_name = {lang.name.lower(): lang for lang in languages}
    treebanks = []
    for folder in folders:
        if not folder.is_dir():
            continue
        files = conllu_files(folder)
        if not files:
            continue
        language_name, _, treebank_name = folder.name[3:].partition("-")
        code = files[0].name.split("_")[0]
        language = (
            by_code.get(code)
            or by_name.get(language_name.lower())
            or Language(
                code, language_name, code if len(code) == 2 else "", code if len(code) == 3 else ""
            )
        )
        treebanks.append(Treebank(folder, treebank_name or folder.name, language, files))
    return treebanks


def select(treebanks: list[Treebank], wanted: list[str] | None) -> dict[str, list[Treebank]]:
    """Treebanks grouped by language key, limited to `--lang` values (ISO 639-1, 639-3 or UD name)."""
    grouped: dict[str, list[Treebank]] = defaultdict(list)
    for treebank in treebanks:
        grouped[treebank.language.key].append(treebank)
    if not wanted:
        return dict(sorted(grouped.items()))
    chosen: dict[str, list[Treebank]] = {}
    for request in wanted:
        needle = request.lower()
        matches = [
            key
            for key, group in grouped.items()
            if needle
            in {
                group[0].language.code.lower(),
                group[0].language.iso1.lower(),
                group[0].language.iso3.lower(),
                group[0].language.name.lower(),
                group[0].language.name.lower().replace("_", " "),
            }
        ]
        if not matches:
            raise UsageError(f"--lang {request}: no treebank of that language under the UD folder")
        for key in matches:
            chosen[key] = grouped[key]
    return chosen


def load_optional_antecedent_agreement() -> dict[str, dict[str, dict[str, str]]]:
    """Per UD code, the relative pronouns whose verb agrees with the antecedent only optionally,
    taking a default value otherwise (Czech *ti, kdo chce / chtějí*), each with its defaults
    (feature → value), from `mine/data/optional_antecedent_agreement.tsv` (§4.2)."""
    listed: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for row in read_rows("optional_antecedent_agreement.tsv"):
        pairs = (item.split("=", 1) for item in row["default"].split(",") if "=" in item)
        defaults = {feature.strip(): value.strip() for feature, value in pairs}
        listed[row["code"].strip()][row["lemma"].strip()] = defaults
    return dict(listed)


def load_partitive_pronouns() -> tuple[tuple[str, str], ...]:
    """(UD code, lemma) of each pronoun after which an adjective may be a partitive genitive
    (§4.3), from `mine/data/partitive_pronouns.tsv`."""
    return tuple(
        (row["code"].strip(), row["lemma"].strip()) for row in read_rows("partitive_pronouns.tsv")
    )


def load_predicate_adverbs() -> tuple[tuple[str, str, str], ...]:
    """(UD code, lemma, adverb) of each adjective whose adverb, written as one of its forms, is a
    predicate of the copula (Greek *ψηλά*), from `mine/data/predicate_adverbs.tsv`."""
    return tuple(
        (row["code"].strip(), row["lemma"].strip(), row["adverb"].strip())
        for row in read_rows("predicate_adverbs.tsv")
    )


@dataclass(frozen=True)
class VerbContext:
    """A language's words for §4.3's context rules (`rules.verb_context`): its modals, the verbs
    a modal makes non-finite, its mandative heads, the kinship words of the plural of respect,
    its subjects of notional agreement, its nouns that name words, whether a possessive suffix
    hides a nominative's Number, the particles that open a clause as `mark` does and the
    `mark`s that do not (empty: the rule does not apply), and whether a participle with a
    reflexive and a direct object agrees with its subject."""

    modals: frozenset[str] = frozenset()
    chain_verbs: frozenset[str] = frozenset()
    mandative_heads: frozenset[str] = frozenset()
    respect_kin: frozenset[str] = frozenset()
    subordinators: frozenset[str] = frozenset()
    focus_particles: frozenset[str] = frozenset()
    notional_subjects: frozenset[str] = frozenset()
    # Nouns that name words (*término*, *mot*): a word quoted after one is mentioned, not used
    # (`mine/data/metalinguistic_nouns.tsv`).
    metalinguistic_nouns: frozenset[str] = frozenset()
    # True where a nominative noun with a possessive suffix shows no Number (Finnish *taloni*, my
    # house or houses; `mine/data/possessive_number_languages.tsv`).
    possessive_hides_number: bool = False
    # True where a participle with a reflexive clitic and a direct object agrees with that object,
    # not with its subject (French *les commissions que se sont partagées les partis*;
    # `mine/data/reflexive_object_languages.tsv`).
    reflexive_object: bool = False


def load_verb_contexts() -> dict[str, VerbContext]:
    """UD code → its VerbContext, from `mine/data/modal_chain.tsv`,
    `mine/data/mandative_heads.tsv`, `mine/data/respect_kinship.tsv`,
    `mine/data/subordinator_particles.tsv`, `mine/data/notional_subjects.tsv`,
    `mine/data/metalinguistic_nouns.tsv`, `mine/data/reflexive_object_languages.tsv` and
    `mine/data/possessive_number_languages.tsv`."""
    modals: dict[str, set[str]] = defaultdict(set)
    verbs: dict[str, set[str]] = defaultdict(set)
    heads: dict[str, set[str]] = defaultdict(set)
    kin: dict[str, set[str]] = defaultdict(set)
    notional: dict[str, set[str]] = defaultdict(set)
    naming: dict[str, set[str]] = defaultdict(set)
    particles: dict[str, set[str]] = defaultdict(set)
    focus: dict[str, set[str]] = defaultdict(set)
    for row in read_rows("modal_chain.tsv"):
        words = {w.strip() for w in row["lemmas"].split(",") if w.strip()}
        (modals if row["role"].strip() == "modal" else verbs)[row["code"].strip()] |= words
    for row in read_rows("mandative_heads.tsv"):
        heads[row["code"].strip()].add(row["lemma"].strip())
    for row in read_rows("respect_kinship.tsv"):
        kin[row["code"].strip()].add(row["lemma"].strip())
    for row in read_rows("subordinator_particles.tsv"):
        role = particles if row["role"].strip() == "subordinator" else focus
        role[row["code"].strip()].add(row["lemma"].strip())
    for row in read_rows("notional_subjects.tsv"):
        notional[row["code"].strip()].add(row["lemma"].strip())
    for row in read_rows("metalinguistic_nouns.tsv"):
        naming[row["code"].strip()].add(row["lemma"].strip().lower())
    reflexive = language_codes("reflexive_object_languages.tsv")
    hiding = language_codes("possessive_number_languages.tsv")
    return {
        code: VerbContext(
            modals=frozenset(modals[code]),
            chain_verbs=frozenset(verbs[code]),
            mandative_heads=frozenset(heads[code]),
            respect_kin=frozenset(kin[code]),
            subordinators=frozenset(particles[code]),
            focus_particles=frozenset(focus[code]),
            notional_subjects=frozenset(notional[code]),
            metalinguistic_nouns=frozenset(naming[code]),
            reflexive_object=code in reflexive,
            possessive_hides_number=code in hiding,
        )
        for code in {
            *modals,
            *verbs,
            *heads,
            *kin,
            *particles,
            *focus,
            *notional,
            *naming,
            *reflexive,
            *hiding,
        }
    }


def load_definite_types() -> dict[str, frozenset[str]]:
    """UD code → the types in which Definite joins F (§1.7: Swedish, Norwegian weak adjectives
    *det stora huset*, Arabic *al-bayt al-kabīr*), from `mine/data/definite_languages.tsv`."""
    return {
        row["code"].strip(): frozenset(t.strip() for t in row["types"].split(",") if t.strip())
        for row in read_rows("definite_languages.tsv")
    }


@lru_cache(maxsize=1)
def _definite_keys() -> frozenset[str]:
    """The language keys (`lang` column) of the languages whose Definite is in F."""
    codes = load_definite_types()
    return frozenset(language.key for language in load_languages() if language.code in codes)


def definite_in_f(lang: str) -> bool:
    """Whether Definite is in F for a language key (`lang` column): its lexicon and relations
    carry it in their `definite` columns, not in `feats`."""
    return lang in _definite_keys()

"""Arrow schemas of the miner's tables (DESIGN.md §3), declared once."""

from __future__ import annotations

import pyarrow as pa

# F (DESIGN.md §1): Definite is one of them only in the languages of
# `mine/data/definite_languages.tsv`; elsewhere its columns stay empty and it stays in `feats`.
FEATURES = ("Number", "Gender", "Case", "Person", "Definite")
TYPES = (
    "determiner",
    "attributive",
    "predicative",
    "subject-verb",
    "numeral",
    "subject-participle",
    "possessive",
    "object-verb",
    "indirect-object-verb",
    "ergative-verb",
    "possessor",
)
# §1.7: the layers of a target's features each layered type compares (the first the target
# carries), for the miner's rows and the evaluator's counts alike; object-verb (b) is plain.
TYPE_LAYERS = {
    "object-verb": ("abs", "obj"),
    "indirect-object-verb": ("dat",),
    "ergative-verb": ("erg",),
    "possessor": ("psor",),
}
ROLES = ("controller", "target")  # the two members of a relation
DROP_REASONS = ("typo", "disagree", "no-agreeing-feature", "invalid-type")

_str_list = pa.list_(pa.string())


def described(name: str, kind: pa.DataType, description: str) -> pa.Field:
    """A schema field that carries its description (the docs' column tables are generated from it)."""
    return pa.field(name, kind, metadata={"description": description})


def description(field: pa.Field) -> str:
    """The description a field carries."""
    return (field.metadata or {}).get(b"description", b"").decode()


RELATIONS = pa.schema(
    [
        described("lang", pa.string(), "language key: ISO 639-1 where one exists, else UD's code"),
        described(
            "treebank", pa.string(), "treebank name, the folder name after `UD_<Language>-` (`GSD`)"
        ),
        described("sent_id", pa.string(), "`# sent_id` of the sentence, else `<file stem>:<n>`"),
        described("type", pa.string(), "agreement type: " + ", ".join(TYPES)),
        described("target_id", pa.int32(), "CoNLL-U ID of the target"),
        described("controller_id", pa.int32(), "CoNLL-U ID of the controller"),
        described(
            "target_surface",
            pa.int32(),
            "0-based index of the surface word holding the target (a multiword token is one)",
        ),
        described(
            "controller_surface", pa.int32(), "0-based index of the controller's surface word"
        ),
        described("target_form", pa.string(), "the target's form"),
        described("controller_form", pa.string(), "the controller's form"),
        described("target_lemma", pa.string(), "the target's lemma"),
        described("controller_lemma", pa.string(), "the controller's lemma"),
        described("target_upos", pa.string(), "the target's UPOS"),
        described("controller_upos", pa.string(), "the controller's UPOS"),
        described("target_number", _str_list, "the target's values of Number (a set, sorted)"),
        described("target_gender", _str_list, "the target's values of Gender"),
        described("target_case", _str_list, "the target's values of Case"),
        described("target_person", _str_list, "the target's values of Person"),
        described(
            "target_definite",
            _str_list,
            "the target's values of Definite (empty outside the languages where it agrees)",
        ),
        described("controller_number", _str_list, "the controller's values of Number"),
        described("controller_gender", _str_list, "the controller's values of Gender"),
        described("controller_case", _str_list, "the controller's values of Case"),
        described("controller_person", _str_list, "the controller's values of Person"),
        described("controller_definite", _str_list, "the controller's values of Definite"),
        described("agreeing", _str_list, "agreeing features, sorted"),
        described("distance", pa.int32(), "|ID(target) − ID(controller)| in syntactic words"),
        described("order", pa.string(), "target-first or controller-first"),
        described(
            "intervening_nouns", pa.int32(), "NOUN words strictly between target and controller"
        ),
        described(
            "distractors",
            pa.int32(),
            "nouns anywhere whose value of an agreeing feature differs from the controller's",
        ),
        described("attractors", pa.int32(), "distractors strictly between target and controller"),
        described("in_mwt_target", pa.bool_(), "the target lies inside a multiword token"),
        described("in_mwt_controller", pa.bool_(), "the controller lies inside a multiword token"),
        described(
            "coordinated",
            pa.bool_(),
            "the controller has a `conj` dependent (it may agree as a coordination)",
        ),
    ]
)

# Relations as the engines return them: the written columns plus each member's FEATS string,
# which the pair builder reads (the other inflectional features a bad form must share).
RELATIONS_MINED = pa.schema(
    [
        *RELATIONS,
        described("target_feats", pa.string(), "the target's FEATS as written"),
        described("controller_feats", pa.string(), "the controller's FEATS as written"),
        described(
            "target_layer",
            pa.string(),
            "the layer of the target's features compared (`abs`, `erg`, `dat`, `psor`, `obj`) "
            "for a layered type; null for plain features",
        ),
        described(
            "target_mwt_offset",
            pa.int32(),
            "where the target begins in its multiword token when the token is its words run "
            "together (transparent: *is* in *isn't*); null otherwise",
        ),
        described("controller_mwt_offset", pa.int32(), "the same for the controller"),
        # §4.2, read by the pair rules only.
        described(
            "listed",
            pa.bool_(),
            "kept; false: a subject-verb candidate without an agreeing feature, for pairs",
        ),
        described(
            "antecedent_upos",
            pa.string(),
            "a PronType=Rel controller subject of an acl:relcl clause: its antecedent's UPOS; "
            "null otherwise",
        ),
        described("antecedent_number", _str_list, "the antecedent's Number (null: none)"),
        described("antecedent_gender", _str_list, "the antecedent's Gender"),
        described("antecedent_person", _str_list, "the antecedent's Person"),
        described(
            "controller_det_number",
            _str_list,
            "the one Number of the controller's det/amod dependents that do not disagree with it",
        ),
        described(
            "controller_determined",
            pa.bool_(),
            "the controller has Definite=Def, a det dependent with Definite=Def, Poss=Yes or "
            "PronType Dem/Ind/Tot, or a nummod dependent (its plural is not bare)",
        ),
        described(
            "controller_nominal_predicate",
            pa.bool_(),
            "the controller is a nominative noun subject of a noun predicate in an oblique case "
            "(not Nom or Ins) with a cop dependent: with a dropped subject it could be the "
            "predicate",
        ),
        described(
            "between_feats",
            _str_list,
            "attributive relations: the FEATS of each NOUN strictly between target and "
            "controller (another host a bad form could agree with); empty otherwise",
        ),
        described(
            "target_context",
            pa.string(),
            "what the words around the target say of it: `after-modal` (a finite be/have/do "
            "after a modal of its verb chain), `doubled-word` (a word beside it of its form, "
            "head and deprel), `mandative` (a verb heading a clause complement of a mandative "
            "head), `respect-plural` (the subject is a kinship word with a first- or "
            "second-person possessor, in a language with the plural of respect), "
            "`notional-subject` (the subject takes notional agreement: French *on*), "
            "`reflexive-object` (a participle with a reflexive and a direct object); null "
            "otherwise",
        ),
    ]
)

SENTENCES = pa.schema(
    [
        described("lang", pa.string(), "language key"),
        described("treebank", pa.string(), "treebank name"),
        described("sent_id", pa.string(), "sentence id"),
        described(
            "text",
            pa.string(),
            "the sentence rebuilt from its surface words, SpaceAfter=No and SpacesAfter=",
        ),
        described(
            "words",
            _str_list,
            "surface words (a multiword token is one word; empty nodes are none)",
        ),
        described(
            "space_after",
            pa.list_(pa.bool_()),
            "per surface word: false after `SpaceAfter=No` (to rebuild the text exactly)",
        ),
        described(
            "spaces_after",
            _str_list,
            "per surface word: the whitespace MISC `SpacesAfter=` gives after it (decoded: two "
            "spaces, a no-break space), null where `space_after` says it all (one space or none)",
        ),
        described("file", pa.string(), "CoNLL-U file, relative to --ud-dir"),
        described("line", pa.int64(), "line of the sentence's first line in that file"),
    ]
)

LEXICON = pa.schema(
    [
        described("lang", pa.string(), "language key"),
        described("form", pa.string(), "word form as written"),
        described("lemma", pa.string(), "its lemma (UniMorph: first column)"),
        described("upos", pa.string(), "UPOS (UniMorph POS mapped by mine/data/unimorph_map.tsv)"),
        described("number", _str_list, "values of Number"),
        described("gender", _str_list, "values of Gender"),
        described("case", _str_list, "values of Case"),
        described("person", _str_list, "values of Person"),
        described(
            "definite",
            _str_list,
            "values of Definite where the language's adjectives agree in it (else in `feats`)",
        ),
        described(
            "feats",
            pa.string(),
            "other FEATS, `Name=Value|…` sorted (layered features such as `Number[psor]` kept, no"
            " Typo); UniMorph: its tags"
            " mapped, completed from the treebank where a tag set is silent; null when unknown",
        ),
        described(
            "count", pa.int64(), "occurrences in the UD treebanks (0 for UniMorph-only rows)"
        ),
        described("source", pa.string(), "ud, unimorph or both"),
    ]
)

# Minimal pairs (§4): one row per pair; (lang, treebank, sent_id, target_id, controller_id) joins
# `relations`, and (varied, feature, bad_value) tells a relation's pairs apart.
PAIRS = pa.schema(
    [
        described("lang", pa.string(), "language key"),
        described("treebank", pa.string(), "treebank name"),
        described("sent_id", pa.string(), "sentence id"),
        described("type", pa.string(), "agreement type of the relation"),
        described(
            "target_id",
            pa.int32(),
            "CoNLL-U ID of the target (with controller_id: the join key to relations)",
        ),
        described("controller_id", pa.int32(), "CoNLL-U ID of the controller"),
        described("varied", pa.string(), "the member re-inflected: target or controller"),
        described("feature", pa.string(), "the agreeing feature changed"),
        described("good_value", pa.string(), "its value in the sentence"),
        described("bad_value", pa.string(), "its value in the bad sentence"),
        described("lemma", pa.string(), "lemma of the varied word"),
        described("upos", pa.string(), "UPOS of the varied word"),
        described("good_form", pa.string(), "the varied word as written"),
        described(
            "bad_form",
            pa.string(),
            "what is written in its place, with its capitalisation (a contraction or elided form "
            "where the language writes one: du, l')",
        ),
        described("bad_count", pa.int64(), "lexicon count of the bad form (spellings summed)"),
        described("bad_source", pa.string(), "where the bad form comes from: ud, unimorph or both"),
        described("sentence_good", pa.string(), "the sentence as written"),
        described("sentence_bad", pa.string(), "the same sentence with the bad form"),
        described(
            "start",
            pa.int32(),
            "character offset of what is replaced in both sentences: the varied word (with the "
            "word before for a contraction, de la → du)",
        ),
        described(
            "end_good",
            pa.int32(),
            "end offset of what is replaced in sentence_good (after the word, or after the "
            "whitespace that an elided bad form drops)",
        ),
        described("end_bad", pa.int32(), "end offset of the bad form in sentence_bad"),
        described(
            "also",
            pa.list_(pa.string()),
            "other `Feature=Value` contrasts the same bad sentence makes (one row per bad "
            "sentence: `feature`/`bad_value` are the first in Number, Gender, Case, Person, Definite order)",
        ),
        described(
            "derived",
            pa.list_(pa.string()),
            "what beyond the plain rule the pair needed (implicit-person, transparent-token, "
            "unimorph-form, antecedent, dependent-number, lexicon-features, unmarked-cell, "
            "backed-off, agreement-unmeasured), sorted",
        ),
        described(
            "variant",
            pa.string(),
            "original, or nonce-1 … nonce-K (content words replaced); part of the pair key",
        ),
    ]
)
# Why a (relation, varied role, feature, bad value) gives no pair, in the order they are checked
# (§4, then the additions this project made: see docs/choices.md).
SKIP_REASONS = (
    "multi-valued",
    "no-lemma",
    "in-mwt",
    "coordinated",
    "elision",
    "unagreement",
    "no-form",
    "syncretic",
    "syncretic-elsewhere",
    "ambiguous-controller",
    "ambiguous-target",
    "duplicate-sent-id",
    "missing-sentence",
    "no-nonce",
    "rare-value",
    "uncertain-agreement",
    "ambiguous-onset",
    "unattested-token",
    "genderless-plural",
    "declension-class",
    "contested-feats",
    "aspect-prefix",
    "predicate-nominal",
    "unattested-reading",
    "optional-antecedent-agreement",
    "apocope",
    "ambiguous-host",
    "other-word",
    "other-series",
    "instrumental-predicate",
    "not-possessive",
    "other-possessor",
    "adverb-reading",
    "optional-feminine",
    "after-modal",
    "doubled-word",
    "mandative",
    "clitic-form",
    "respect-plural",
    "third-person-possessor",
    "notional-subject",
    "reflexive-object",
    "partitive-genitive",
    "dislocated-subject",
    "mentioned-word",
    "hidden-number",
)

# Every skip of §4 and §9, one row per (relation, varied role, feature, bad value) that gave no
# pair: the pairs' key with the reason (`bad_value` null where the reason is decided before any
# bad value is tried); its counts per reason are the manifest's `pair_skips`.
PAIR_SKIPS = pa.schema(
    [
        *(PAIRS.field(name) for name in PAIRS.names[:8]),  # lang … varied, feature
        described(
            "bad_value",
            pa.string(),
            "the value tried; null when the reason applies before any value is tried "
            "(`multi-valued`, `no-lemma`, `in-mwt`, `coordinated`, `unagreement`, …)",
        ),
        PAIRS.field("variant"),
        described("reason", pa.string(), "why there is no pair (listed in docs/mining.md)"),
    ]
)

# Dropped candidates (§1.2), one row each with the first reason that applies: the manifest's
# `drops` counts row by row, so that a user (and `mine.compare`) can ask why a pair of words is
# no relation.
DROPS = pa.schema(
    [
        *(RELATIONS.field(name) for name in RELATIONS.names[:6]),  # lang … controller_id
        described("reason", pa.string(), "typo, disagree, no-agreeing-feature or invalid-type"),
    ]
)

# §4.1 Does agreement hold here? One row per (type, feature, controller value, configuration) at
# every level of the back-off (§4.3): the columns that a level drops are null.
AGREEMENT = pa.schema(
    [
        described("lang", pa.string(), "language key"),
        described("type", pa.string(), "agreement type"),
        described("feature", pa.string(), "the feature compared"),
        described(
            "controller_value",
            pa.string(),
            "the controller's value of the feature (several values `,`-joined; `3` for a noun "
            "subject's implicit Person); null where backed off",
        ),
        described(
            "controller_case",
            pa.string(),
            "the controller's Case (several values `,`-joined, `_` for none); null where "
            "backed off",
        ),
        described("target_upos", pa.string(), "the target's UPOS; null where backed off"),
        described(
            "target_verbform",
            pa.string(),
            "the target's VerbForm (`,`-joined, `_` for none); null where backed off",
        ),
        described("order", pa.string(), "target-first or controller-first; null where backed off"),
        described(
            "n",
            pa.int64(),
            "candidate relations (Typo words left out) whose members both carry the feature (a NOUN "
            "subject without Person counts as Person 3 against a verb with Person 3)",
        ),
        described(
            "agree",
            pa.int64(),
            "of those, the candidates whose values intersect, or whose target's form is also the"
            " usual form of the controller's value (a syncretic form tagged against it)",
        ),
        described("rate", pa.float64(), "agree / n"),
        described(
            "certain",
            pa.bool_(),
            "(agree + 1) / (n + 2) >= 0.90: pairs varying the feature are made here; null "
            "where n < 20 (the next level decides)",
        ),
    ]
)

# Join keys: a sentence, and a relation within it (its type follows from target and controller).
SENTENCE_KEY = ("lang", "treebank", "sent_id")
RELATION_KEY = (*SENTENCE_KEY, "target_id", "controller_id")
PAIR_KEY = (*RELATION_KEY, "varied", "feature", "bad_value")

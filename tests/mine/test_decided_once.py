"""Rules decided once per distinct set of what they read, then joined back, give what they give
row by row: §4.2's subject facts, a form's script and `derived`'s names, on a real treebank."""

from __future__ import annotations

import polars as pl
import pytest
from ud_agree.mine.attempts import DERIVED, derived_names
from ud_agree.mine.columnar import mine_file_columnar
from ud_agree.mine.extract import FileJob
from ud_agree.mine.paradigms import script_of
from ud_agree.mine.rules.subjects import SUBJECT_READ, SUBJECT_TYPES, _decided_once, _subject_facts

from tests.paths import UD, needs_ud
from ud_agree.schemas.corpus import TYPES


@pytest.fixture(scope="module")
def ewt_subjects() -> pl.DataFrame:
    path = UD / "UD_English-EWT" / "en_ewt-ud-test.conllu.xz"
    mined = mine_file_columnar(FileJob(path, path.name, "en", "EWT", frozenset(TYPES)))
    relations = pl.DataFrame(mined.relations).with_row_index("rel")
    return relations.filter(pl.col("type").is_in(SUBJECT_TYPES))


@needs_ud
@pytest.mark.parametrize(("unagreement", "pro_drop"), [(False, False), (True, True)])
def test_subject_facts_decided_once_are_those_decided_row_by_row(
    ewt_subjects, unagreement, pro_drop
):
    # The point of deciding once: what the rules read repeats (a few hundred distinct sets).
    distinct = ewt_subjects.select(SUBJECT_READ).n_unique()
    assert ewt_subjects.height > 1000 and distinct < ewt_subjects.height / 4
    once = _decided_once(ewt_subjects, unagreement, pro_drop)
    each = _subject_facts(ewt_subjects, unagreement, pro_drop)
    assert once.columns == each.columns
    assert once.sort("rel").equals(each.sort("rel"))
    # Not vacuous: the facts differ between relations (a dropped subject's language reads an
    # English relative pronoun, caseless, as no shown subject: it takes nothing there).
    assert once.get_column("unmarked").is_not_null().any()
    assert once.get_column("from_antecedent").any() == (not pro_drop)


def test_script_of_recurring_forms_is_each_forms_own():
    forms = ["menino", "χαρά", "menino", None, "2os", "мир", "χαρά", "menino", None, "o(s)"]
    alone = [script_of(pl.Series([form], dtype=pl.String)).item() for form in forms]
    assert script_of(pl.Series(forms, dtype=pl.String)).to_list() == alone
    assert alone[:3] == ["Latin", "Greek", "Latin"] and alone[3] is None


def test_derived_names_of_each_code_and_of_none():
    codes = pl.Series("derived", [0, 1, 5, 1, 1 << (len(DERIVED) - 1)], dtype=pl.UInt16)
    got = derived_names(codes).to_list()
    assert got[0] == [] and got[1] == got[3] == [DERIVED[0]]
    assert got[2] == sorted([DERIVED[0], DERIVED[2]]) and got[4] == [DERIVED[-1]]
    empty = derived_names(codes.clear())
    assert empty.dtype == pl.List(pl.String) and empty.len() == 0

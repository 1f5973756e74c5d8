"""ConvQuestions import: conversations stored as an imported run, evaluated and compared like
ours; a malformed file is one clear error naming where."""

from __future__ import annotations

import json

import pytest

from convkgyarn.convquestions import ImportError_, import_convquestions
from convkgyarn.conversations import current_runs

CONVQ = [
    {"conv_id": 7, "domain": "movies", "seed_entity": "https://www.wikidata.org/wiki/Q44578",
     "seed_entity_text": "Titanic",
     "questions": [
         {"turn": 0, "question": "who directed titanic?",
          "answer": "https://www.wikidata.org/wiki/Q42574", "answer_text": "James Cameron"},
         {"turn": 1, "question": "who starred in it?",
          "answer": "https://www.wikidata.org/wiki/Q38111;https://www.wikidata.org/wiki/Q202765",
          "answer_text": "Leonardo DiCaprio;Kate Winslet"},
         {"turn": 2, "question": "release year?", "answer": "1997", "answer_text": "1997"}]},
]


def test_import_keeps_turns_answers_and_ids(db, tmp_path):
    path = tmp_path / "cq.json"
    path.write_text(json.dumps(CONVQ))
    run, n = import_convquestions(db, path)
    assert n == 1
    turns = db.execute("SELECT turn, answer, answer_ids FROM turns ORDER BY turn").fetchall()
    assert turns == [(1, ["James Cameron"], ["Q42574"]),
                     (2, ["Leonardo DiCaprio", "Kate Winslet"], ["Q38111", "Q202765"]),
                     (3, ["1997"], [None])]
    assert import_convquestions(db, path)[1] == 1  # re-import replaces, no duplicates
    assert db.execute("SELECT count(*) FROM turns").fetchone()[0] == 3
    assert current_runs(db) == []  # a reference dataset is not one of our configurations
    assert current_runs(db, "imported") == [run]


@pytest.mark.parametrize("data,where", [
    ({"not": "a list"}, "expected a list"),
    ([{"questions": []}], "conversation 0: missing field 'seed_entity'"),
    ([{"seed_entity": "Q1", "questions": [{"question": "x"}]}], "question 1: needs"),
    ([{"seed_entity": "Q1", "questions": "x"}], "must be a list"),
    ([{"conv_id": 1, "seed_entity": "Q1", "questions": [{"question": "q", "answer": "a"}]}]
     * 2, "appears twice"),
    # found in review: these said "no conversations to evaluate; run generate first"
    ([], "holds no conversations"),
    ([{"seed_entity": "Q1", "questions": []}], "conversation 0: has no questions"),
    # found in review: each of these was "unexpected TypeError ... (a bug)", exit 1
    ([{"seed_entity": 5, "questions": []}], "'seed_entity' must be text, not int"),
    ([{"seed_entity": "Q1", "seed_entity_text": ["x"], "questions": []}],
     "'seed_entity_text' must be text"),
    ([{"seed_entity": "Q1", "domain": {"a": 1}, "questions": []}], "'domain' must be text"),
    ([{"seed_entity": "Q1", "questions": [{"question": {"q": 1}, "answer": "x"}]}],
     "question 1: 'question' must be text, not dict"),
])
def test_malformed_files_name_the_place(db, tmp_path, data, where):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ImportError_, match=where):
        import_convquestions(db, path)
    assert db.execute("SELECT count(*) FROM conversations").fetchone()[0] == 0


def test_the_readmes_example_is_the_format_we_import(db, tmp_path):
    """The README documents the import format with an example: it imports as written."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("**Another dataset: ConvQuestions' format.**", 1)[1]
    example = section.split("```json\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.json"
    path.write_text(example)
    run, n = import_convquestions(db, path)
    assert n == 1 and run.startswith("convquestions-")
    assert db.execute("SELECT answer, answer_ids FROM turns ORDER BY turn").fetchall()[1] == \
        (["Leonardo DiCaprio", "Kate Winslet"], ["Q38111", "Q202765"])

"""Psychometric rating, pairwise comparison with ConvQuestions, annotation agreement."""

from __future__ import annotations

import csv
import json
import re

from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.stages.rating import majority_agreement
from convkgyarn.store import connect
from tests.llm.scripted_server import ScriptedServer, json_reply

CONVQ = [
    {"domain": "movies", "conv_id": 7, "seed_entity": "https://www.wikidata.org/wiki/Q44578",
     "seed_entity_text": "Titanic", "questions": [
         {"turn": 0, "question": "who directed titanic?",
          "answer": "https://www.wikidata.org/wiki/Q42574", "answer_text": "James Cameron"},
         {"turn": 1, "question": "who starred in it?",
          "answer": "https://www.wikidata.org/wiki/Q38111;https://www.wikidata.org/wiki/Q202765",
          "answer_text": "Leonardo DiCaprio;Kate Winslet"},
         {"turn": 2, "question": "release year?", "answer": "1997", "answer_text": "1997"}]},
]


def test_rating_and_pairwise_comparison(tmp_path):
    db = str(tmp_path / "r.duckdb")
    r = CliRunner().invoke(app, ["generate", "--db", db, "--out", str(tmp_path / "o"),
                                 "--conversations", "3", "--turns", "3"])
    runner = CliRunner(env={"OPENAI_API_KEY": "k"})
    assert r.exit_code == 0, r.output
    path = tmp_path / "cq.json"
    path.write_text(json.dumps(CONVQ * 1))
    seen_orders = []

    def handler(body, n):
        prompt = body["messages"][-1]["content"]
        if "Conversation A" in prompt:
            a = prompt.split("Conversation A:")[1].split("Conversation B:")[0]
            seen_orders.append("titanic" in a)
            # the rater always prefers the ConvQuestions conversation, wherever it is shown
            pick = "A" if "titanic" in a else "B"
            return json_reply({d: pick for d in ("fluency", "relevance", "diversity", "grammar")})
        return json_reply({"fluency": 4, "relevance": 5, "diversity": 3, "grammar": 4})

    with ScriptedServer(handler) as server:
        r = runner.invoke(app, ["rate", "--db", db, "--base-url", server.base_url])
        assert r.exit_code == 0, r.output
        r = runner.invoke(app, ["compare", "--db", db, "--base-url", server.base_url,
                                "--dataset", str(path), "--config-name", "voice",
                                "--pairs", "1"])
        assert r.exit_code == 0, r.output
        again = runner.invoke(app, ["compare", "--db", db, "--base-url", server.base_url,
                                    "--dataset", str(path), "--config-name", "voice",
                                    "--pairs", "1"])
        assert again.exit_code == 0, again.output
    # a table per dimension (ours, reference, share preferred), not raw JSON
    rows = [line.replace("│", " ").split() for line in r.stdout.splitlines()]
    assert ["fluency", "0", "1", "0%"] in rows and "{" not in r.stdout, r.stdout
    con = connect(db)
    assert con.execute("SELECT count(*), avg(relevance) FROM conversation_ratings").fetchone() \
        == (3, 5.0)
    # compared twice, the pair's verdicts are there once (one per dimension), not twice
    assert con.execute("SELECT count(*) FROM conversation_comparisons").fetchone() == (4,)
    con.close()
    r = runner.invoke(app, ["report", "--db", db, "--out", str(tmp_path / "rep")])
    assert r.exit_code == 2  # no evaluation yet: a clear message, not a crash
    assert "no evaluation results" in r.output


def test_annotation_export_and_majority_agreement(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner = CliRunner()
    assert runner.invoke(app, ["generate", "--db", db, "--out", str(tmp_path / "o"),
                               "--conversations", "4"]).exit_code == 0
    sample = tmp_path / "sample.csv"
    r = runner.invoke(app, ["annotations", "export", "--db", db, "--sample", "3",
                            "--out", str(sample)])
    assert r.exit_code == 0
    rows = list(csv.DictReader(open(sample)))
    assert len(rows) == 3 and all(row["fluency"] == "" for row in rows)
    filled = []
    scores = [[5, 5, 4], [5, 4, 3], [2, 5, 1]]  # annotator x conversation, for fluency
    for k in range(3):
        f = tmp_path / f"ann{k}.csv"
        with open(f, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            for i, row in enumerate(rows):
                w.writerow({**row, "fluency": scores[k][i], "grammar": 4})
        filled.append(f)
    result = majority_agreement(filled)
    # conversation 1: 5,5,2 -> majority 5; 2: 5,4,5 -> 5; 3: 4,3,1 -> none
    assert result["fluency"] == {"items": 3, "majority_agreement": round(2 / 3, 4),
                                 "mean_majority_rating": 5.0}
    assert result["grammar"]["majority_agreement"] == 1.0
    bad = tmp_path / "bad.csv"
    bad.write_text(sample.read_text().replace(",,,,", ",9,,,", 1))
    r = runner.invoke(app, ["annotations", "agree", str(bad), str(filled[0])])
    assert r.exit_code == 2 and re.search(r"bad\.csv:\d+: fluency must be 1-5", r.output)
    # found in review: a sheet without the columns was "unexpected KeyError (a bug)", a
    # non-UTF-8 one did not say which file, and blank sheets gave all-null figures
    other = tmp_path / "other.csv"
    other.write_text("id,fluency\nx,3\n")
    huge = tmp_path / "huge.csv"  # a cell past csv's field limit was "unexpected Error"
    huge.write_text(sample.read_text() + '"' + "x" * 200_000 + '",1,1,1,1\n')
    latin = tmp_path / "latin.csv"
    latin.write_bytes(sample.read_bytes().replace(b"conversation", b"conversation\xff", 1))
    for files, needle in (([other, filled[0]], "other.csv:1: not an annotation sample (no "
                           "conversation_id, relevance"),
                          ([latin, filled[0]], "latin.csv: not UTF-8 text"),
                          ([sample, sample], "no ratings in"),
                          ([huge, filled[0]], "huge.csv:")):
        r = runner.invoke(app, ["annotations", "agree", *map(str, files)])
        assert r.exit_code == 2 and needle in " ".join(r.output.split()), r.output
        assert "Traceback" not in r.output
    bom = tmp_path / "bom.csv"  # a spreadsheet's "CSV UTF-8" starts with a BOM
    bom.write_bytes(b"\xef\xbb\xbf" + filled[1].read_bytes())
    assert majority_agreement([filled[0], bom])["grammar"]["majority_agreement"] == 1.0


def test_rating_through_the_batch_api_sends_nothing_directly(tmp_path):
    db = str(tmp_path / "r.duckdb")
    r = CliRunner().invoke(app, ["generate", "--db", db, "--out", str(tmp_path / "o"),
                                 "--conversations", "3", "--turns", "3"])
    assert r.exit_code == 0, r.output
    conf = tmp_path / "c.toml"
    conf.write_text("[llm]\nbatch_poll = 0.05\n")
    with ScriptedServer(lambda body, n: json_reply(
            {"fluency": 4, "relevance": 5, "diversity": 3, "grammar": 2})) as server:
        r = CliRunner(env={"OPENAI_API_KEY": "k"}).invoke(
            app, ["rate", "--db", db, "--base-url", server.base_url, "--batch", "--config",
                  str(conf)])
        assert r.exit_code == 0, r.output
        assert server.requests == [] and len(server.batches) == 1
    con = connect(db)
    assert con.execute("SELECT count(*), avg(grammar) FROM conversation_ratings").fetchone() \
        == (3, 2.0)
    con.close()

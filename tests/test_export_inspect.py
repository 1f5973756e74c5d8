"""`export --format inspect`: a task folder that `inspect eval` runs with only inspect-ai,
scoring exactly as `convkgyarn evaluate` does.

The end-to-end test runs both against the same scripted OpenAI-compatible server with the
same content-keyed replies (right answers, aliases, lists, NA, values the fact held
before, replies only the judge can decide, an unparsable reply, a judge that needs a
re-ask and one that never gives a usable reply) and holds them equal: the requests sent,
each turn's verdict, and the per-configuration metrics.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from convkgyarn.stages.evaluate import metrics
from convkgyarn.store import connect
from tests.helpers import cli
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply

REPO = Path(__file__).resolve().parent.parent
ENTITIES = ("Q145", "Q8877", "Q235020", "Q13133", "Q408")  # two facts with earlier values
KINDS = ("correct", "alias", "na", "list", "judge1", "judge0", "unparsable", "wrongdate",
         "judgefail", "correct", "lower")
MUT, JUDGE = "model-under-test", "gpt-4o"  # the judge: the judge stage's default model

# Runs Inspect's CLI with convkgyarn unimportable (the folder must not need it) and every
# connection to anything but this machine refused and recorded.
INSPECT = r"""
import socket, sys
sys.modules["convkgyarn"] = None
refused = open(sys.argv[1], "a")
def guard(connect):
    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else None
        if host is not None and host not in ("127.0.0.1", "::1", "localhost"):
            refused.write(repr(address) + "\n"); refused.flush()
            raise OSError(f"the test refuses a connection to {address!r}")
        return connect(self, address)
    return guarded
socket.socket.connect = guard(socket.socket.connect)
socket.socket.connect_ex = guard(socket.socket.connect_ex)
from inspect_ai._cli.main import main
sys.argv = ["inspect", *sys.argv[2:]]
sys.exit(main())
"""


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """Two configurations over the same facts, evaluated by `convkgyarn evaluate` against
    the scripted server; the plan of replies and the requests it received."""
    tmp = tmp_path_factory.mktemp("inspect")
    db = tmp / "p.duckdb"
    entity_args = [a for e in ENTITIES for a in ("--entity", e)]
    for interaction in ("voice", "text"):
        r = cli("generate", "--db", db, "--out", tmp / "out", "--interaction", interaction,
                # 8 turns: the heads of state and spouses, the facts with earlier values,
                # come after the facts these subjects are known for
                "--turns", "8", "--same-facts", "--kind", "count", "--kind", "verify",
                *entity_args)
        assert r.exit_code == 0, r.output
    plan = reply_plan(db)
    with ScriptedServer(handler_for(plan)) as server:
        r = cli("evaluate", "--db", db, "--model", MUT, "--base-url", server.base_url,
                env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        requests = list(server.requests)
    return tmp, db, plan, requests


def reply_plan(db: Path) -> dict[str, str]:
    """The scripted model's reply to each question, chosen so that every way a turn is
    decided occurs: kinds in turn, with a value the fact held before where there is one."""
    con = connect(db)
    rows = con.execute(
        "SELECT t.question, t.answer, t.answer_ids, t.outdated_answer FROM turns t JOIN "
        "conversations c USING (run_id, conversation_id) ORDER BY c.config_name, c.ordinal, "
        "t.turn").fetchall()
    aliases = dict(con.execute("SELECT id, aliases FROM entities").fetchall())
    con.close()
    plan = {}
    for k, (question, gold, ids, outdated) in enumerate(rows):
        kind = KINDS[k % len(KINDS)]
        alias = next((a for i in ids or [] if i for a in aliases.get(i) or []), None)
        if outdated:
            text = f"Answer: {outdated[0]}"
        elif kind == "alias" and alias:
            text = f"Answer: {alias}"
        elif kind == "na":
            text = "Answer: NA"
        elif kind == "list":
            text = "Answer: " + json.dumps(["Nobody In Particular", *gold])
        elif kind in ("judge1", "judge0", "judgefail"):
            text = f"Answer: WRONG-{kind.upper()}"
        elif kind == "unparsable":
            text = f"I am fairly sure it is {gold[0]}"
        elif kind == "wrongdate":
            text = "Answer: 1 January 1800"
        elif kind == "lower":
            text = f"answer: {gold[0].lower()}."
        else:
            text = f"Answer: {gold[0]}"
        plan[question] = text
    return plan


def handler_for(plan: dict[str, str]):
    """Replies keyed by content (requests arrive in any order): the answerer by the last
    question; the judge rates 1 only a candidate marked JUDGE1, answers a conversation
    with a JUDGEFAIL candidate with no JSON at all, and rates one turn too few the first
    time it is asked about two or more (convkgyarn re-asks)."""
    def handler(body, n):
        msgs = body["messages"]
        if msgs[0]["role"] == "system":
            return Reply(content=plan[msgs[-1]["content"]])
        prompt = msgs[0]["content"]
        block = prompt.split("<<<DATA\n", 1)[1].split("\nDATA>>>", 1)[0]
        candidates = [json.dumps(json.loads(line)["candidate"]) for line in block.splitlines()]
        if "JUDGEFAIL" in prompt:
            return Reply(content="I would rather not grade these.")
        ratings = [1 if "JUDGE1" in c else 0 for c in candidates]
        if len(candidates) >= 2 and len(msgs) == 1:
            ratings = ratings[:-1]
        return json_reply({"ratings": ratings})
    return handler


def run_inspect(task: Path, server: ScriptedServer, tmp: Path, *extra: str):
    refused = tmp / "refused.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "INSPECT"))}
    env.update({"LOCAL_BASE_URL": server.base_url, "LOCAL_API_KEY": "dummy",
                "INSPECT_LOG_DIR": str(tmp / "logs"), "HOME": str(tmp / "home"),
                "XDG_DATA_HOME": str(tmp / "home" / "data"), "NO_COLOR": "1"})
    run = subprocess.run(
        [sys.executable, "-c", INSPECT, str(refused), "eval", str(task.relative_to(tmp)),
         "--model", f"openai-api/local/{MUT}", "--model-role",
         f"grader=openai-api/local/{JUDGE}", "--display", "plain", *extra],
        cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert not refused.exists() or not refused.read_text(), refused.read_text()
    from inspect_ai.log import list_eval_logs, read_eval_log

    [log] = [read_eval_log(info) for info in list_eval_logs(str(tmp / "logs"))]
    assert log.status == "success", log.error
    return log


def canonical(body: dict) -> str:
    """A request as it matters for the reply: model, messages, sampling."""
    return json.dumps({k: body.get(k) for k in ("model", "messages", "temperature",
                                                "max_tokens")}, sort_keys=True)


@pytest.mark.slow
def test_the_exported_task_scores_as_evaluate_does(evaluated, tmp_path):
    tmp, db, plan, ours = evaluated
    task = tmp_path / "task"
    r = cli("export", "--db", db, "--format", "inspect", "--out", task)
    assert r.exit_code == 0 and "10 conversations" in r.output, r.output
    with ScriptedServer(handler_for(plan)) as server:
        log = run_inspect(task / "task.py", server, tmp_path,
                          "-T", "configs=voice-kinds-count-verify,text-kinds-count-verify")
        theirs = list(server.requests)

    # the same requests: every answer with its gold history, every judge call and re-ask
    # (a judge that never replies usably is asked the same re-ask again: count them too)
    assert Counter(map(canonical, theirs)) == Counter(map(canonical, ours))
    assert any(len(b["messages"]) == 2 and b["model"] == JUDGE for b in ours)  # a re-ask

    # the same verdict for every turn
    con = connect(db)
    rows = con.execute("SELECT conversation_id, turn, score, decided_by, outcome, na, "
                       "unparsable FROM eval_turns ORDER BY ALL").fetchall()
    expected_metrics = {m["config"]: m for m in metrics(con, bootstrap=10)}
    con.close()
    got = sorted((s.metadata["conversation_id"], t["turn"], t["score"], t["decided_by"],
                  t["outcome"], t["na"], t["unparsable"])
                 for s in log.samples for t in s.scores["convkgyarn_scorer"].metadata["turns"])
    assert got == rows
    decided = {row[3] for row in rows}
    outcomes = {row[4] for row in rows}
    assert decided == {"matcher", "judge", "undecided"}, decided
    assert outcomes == {"current", "outdated", "wrong", "na"}, outcomes
    assert any(row[6] for row in rows)  # an unparsable reply

    # the same metrics per configuration, and over all of them
    [score] = log.results.scores
    reported = {name: m.value for name, m in score.metrics.items()}
    for config, m in expected_metrics.items():
        assert reported[f"{config}/mean_turn"] == pytest.approx(m["mean_turn"], abs=1e-12)
        assert reported[f"{config}/mean_conversation"] == pytest.approx(
            m["mean_conversation"], abs=1e-12)
        assert reported[f"{config}/na_ratio"] == pytest.approx(m["na_ratio"], abs=1e-12)
        assert reported[f"{config}/outdated_share"] == pytest.approx(
            m["outdated_share"], abs=1e-12)
    assert set(expected_metrics) == {"voice-kinds-count-verify", "text-kinds-count-verify"}
    assert reported["all/mean_turn"] == pytest.approx(
        sum(row[2] or 0 for row in rows) / len(rows), abs=1e-12)
    assert 0 < reported["all/mean_turn"] < 1


def test_the_folder_needs_only_inspect_ai_and_its_options_work(evaluated, tmp_path):
    tmp, db, _, _ = evaluated
    task = tmp_path / "task"
    assert cli("export", "--db", db, "--format", "inspect", "--out", task).exit_code == 0
    settings = json.loads((task / "task.json").read_text())
    assert sorted(str(p.relative_to(task)) for p in task.rglob("*") if p.is_file()) == \
        settings["files"]
    assert settings["configurations"] == {"text-kinds-count-verify": 5,
                                          "voice-kinds-count-verify": 5}
    # the scoring code is convkgyarn's, byte for byte; it and the task import nothing but
    # the standard library, pydantic, inspect_ai and each other
    assert (task / "convkgyarn_scoring.py").read_bytes() == \
        (REPO / "convkgyarn" / "scoring.py").read_bytes()
    allowed = set(sys.stdlib_module_names) | {"pydantic", "inspect_ai", "convkgyarn_scoring"}
    for module in ("task.py", "convkgyarn_scoring.py"):
        tree = ast.parse((task / module).read_text())
        imported = {(n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0]
                    for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                    for a in n.names}
        assert imported <= allowed, (module, imported - allowed)
    # -T configs=... picks configurations; an unknown one is named
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import task; "
            "t = task.convkgyarn_recall(configs='voice-kinds-count-verify'); "
            "print(sorted({s.metadata['config'] for s in t.dataset}), len(t.dataset))\n"
            "t = task.convkgyarn_recall(configs=['text-kinds-count-verify', "
            "'voice-kinds-count-verify'])\n"
            "print(len(t.dataset))\n"
            "try:\n    task.convkgyarn_recall(configs='voice-nope')\n"
            "except ValueError as e:\n    print(e)")
    run = subprocess.run([sys.executable, "-c", code, str(task)], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == [
        "['voice-kinds-count-verify'] 5", "10",
        "no configuration voice-nope in this task; it has text-kinds-count-verify, "
        "voice-kinds-count-verify"]


def test_the_samples_hold_what_evaluate_matches_against(evaluated, tmp_path):
    """Gold answers with every alias, and the values the fact held before."""
    _, db, _, _ = evaluated
    task = tmp_path / "task"
    assert cli("export", "--db", db, "--format", "inspect", "--out", task).exit_code == 0
    samples = [json.loads(line) for line in (task / "conversations.jsonl").read_text()
               .splitlines()]
    assert len(samples) == 10 and len({s["id"] for s in samples}) == 10
    turns = [t for s in samples for t in s["turns"]]
    uk = next(t for s in samples
              if s["config"] == "voice-kinds-count-verify" and s["entity"]["id"] == "Q145"
              for t in s["turns"] if t["answer"] == ["Charles III"])
    assert uk["outdated_golds"][0][0] == "Elizabeth II"
    usa = next(t for t in turns if t["answer"] == ["United States of America"])
    assert {"USA", "United States"} <= set(usa["golds"][0])


def test_an_export_never_replaces_what_it_did_not_write(evaluated, tmp_path):
    _, db, _, _ = evaluated
    mine = tmp_path / "mine"
    (mine / "sub").mkdir(parents=True)
    (mine / "sub" / "notes.txt").write_text("keep me")
    r = cli("export", "--db", db, "--format", "inspect", "--out", mine)
    assert r.exit_code == 2 and "not an Inspect export of convkgyarn" in r.output, r.output
    assert (mine / "sub" / "notes.txt").read_text() == "keep me"
    afile = tmp_path / "afile"
    afile.write_text("x")
    r = cli("export", "--db", db, "--format", "inspect", "--out", afile)
    assert r.exit_code == 2 and "not a folder" in r.output and afile.read_text() == "x"

    task = tmp_path / "task"
    task.mkdir()  # an empty folder is fine
    assert cli("export", "--db", db, "--format", "inspect", "--out", task).exit_code == 0
    first = hashlib.sha256((task / "conversations.jsonl").read_bytes()).hexdigest()
    # run once (bytecode appears), then export again: replaced
    (task / "__pycache__").mkdir()
    (task / "__pycache__" / "convkgyarn_scoring.cpython-311.pyc").write_bytes(b"pyc")
    (task / "conversations.jsonl").write_text("edited\n")
    assert cli("export", "--db", db, "--format", "inspect", "--out", task).exit_code == 0
    assert hashlib.sha256((task / "conversations.jsonl").read_bytes()).hexdigest() == first
    assert not (task / "__pycache__").exists()
    # logs of a run inside it: the export refuses and keeps everything
    (task / "logs").mkdir()
    (task / "logs" / "run.eval").write_text("a log")
    r = cli("export", "--db", db, "--format", "inspect", "--out", task)
    assert r.exit_code == 2 and "logs/run.eval" in r.output, r.output
    assert (task / "logs" / "run.eval").read_text() == "a log"
    assert (task / "task.py").exists()
    (task / "logs" / "run.eval").unlink()
    (task / "logs").rmdir()
    # a link to the user's folder inside it (a reviewer's find: it was moved away)
    (task / "mylink").symlink_to(mine, target_is_directory=True)
    r = cli("export", "--db", db, "--format", "inspect", "--out", task)
    assert r.exit_code == 2 and "mylink" in r.output, r.output
    assert (task / "mylink").is_symlink() and (mine / "sub" / "notes.txt").exists()
    (task / "mylink").unlink()
    # nothing temporary left beside the folders
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "mine", "task"]


def test_an_interrupted_export_leaves_the_earlier_one_whole(evaluated, tmp_path, monkeypatch):
    from convkgyarn import export_inspect
    from tests.helpers import project

    _, db, _, _ = evaluated
    task = tmp_path / "task"
    assert cli("export", "--db", db, "--format", "inspect", "--out", task).exit_code == 0
    before = {p: p.read_bytes() for p in task.rglob("*") if p.is_file()}

    def interrupted(settings):
        raise KeyboardInterrupt

    monkeypatch.setattr(export_inspect, "_readme", interrupted)
    with project(db, write=False) as p, pytest.raises(KeyboardInterrupt):
        p.export("inspect", task)
    assert {p: p.read_bytes() for p in task.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["task"]


def test_the_task_reads_judge_replies_as_the_llm_client_does():
    """scoring.py keeps its own copy of the client's reply reading (the task folder has no
    convkgyarn): the two read every kind of reply alike."""
    from pydantic import ValidationError

    from convkgyarn import scoring
    from convkgyarn.llm import client

    model = scoring.ratings_model(2)
    for text in ('{"ratings": [1, 0]}', '```json\n{"ratings": [1, 0]}\n```',
                 '{"ratings": [1,\t"0"]}', '{"ratings": [1]}', '{"ratings": [1, 0, 1]}',
                 '{"ratings": "10"}', "no JSON", '```\n{"ratings": [0, 0]}```', ""):
        outcomes = []
        for parse, short in ((client.parse_json_reply, client._short_error),
                             (scoring.parse_json_reply, scoring.short_error)):
            try:
                outcomes.append(model.model_validate(parse(text)).ratings)
            except (ValueError, ValidationError) as exc:
                outcomes.append(short(exc))
        assert outcomes[0] == outcomes[1], (text, outcomes)


@pytest.mark.slow
def test_conversations_in_several_languages_score_in_inspect_as_in_evaluate(
        shared_data, tmp_path):
    """Parallel conversations in English, German and Japanese (real entities): the task asks
    each in its language, matches in the language's forms and judges with the language's
    note, exactly as `evaluate` does; its metrics are per configuration and language."""
    from convkgyarn.config import GenerateConfig
    from tests.helpers import project

    db = tmp_path / "p.duckdb"
    with project(db) as p:
        p.load([shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"],
               languages=["de", "ja"])
        p.generate([GenerateConfig(interaction="voice", deixis=True, conversations=4,
                                   turns=4, languages=["en", "de", "ja"])])
    con = connect(db)
    rows = con.execute(
        "SELECT c.language, t.question, t.answer, t.answer_ids FROM turns t JOIN conversations "
        "c USING (run_id, conversation_id) ORDER BY c.language, c.ordinal, t.turn").fetchall()
    aliases = dict(con.execute("SELECT id, aliases FROM entities").fetchall())
    con.close()
    kinds = ("correct", "alias", "na", "judge1", "judge0")
    plan = {}
    for k, (_, question, gold, ids) in enumerate(rows):
        kind = kinds[k % len(kinds)]
        alias = next((a for i in ids or [] if i for a in aliases.get(i) or []), None)
        plan[question] = {"correct": f"Answer: {gold[0]}", "na": "Answer: NA",
                          "alias": f"Answer: {alias or gold[0]}",
                          "judge1": "Answer: WRONG-JUDGE1", "judge0": "Answer: WRONG-JUDGE0"
                          }[kind]
    with ScriptedServer(handler_for(plan)) as server:
        r = cli("evaluate", "--db", db, "--model", MUT, "--base-url", server.base_url,
                env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        ours = list(server.requests)
    task = tmp_path / "task"
    r = cli("export", "--db", db, "--format", "inspect", "--out", task)
    assert r.exit_code == 0 and "12 conversations" in r.output, r.output
    samples = [json.loads(line) for line in (task / "conversations.jsonl").read_text()
               .splitlines()]
    assert {(s["language"], s["group"]) for s in samples} == {
        (code, f"voice-deixis-en-de-ja/{code}") for code in ("en", "de", "ja")}
    # a German gold: said in German, then its German aliases, English label and aliases
    ids_of = {question: ids for language, question, _, ids in rows if language == "de"}
    con = connect(db)
    english = dict(con.execute("SELECT id, label FROM entities").fetchall())
    con.close()
    checked = 0
    for t in (t for s in samples if s["language"] == "de" for t in s["turns"]):
        for golds, i in zip(t["golds"], ids_of[t["question"]] or []):
            if i in english:
                assert {english[i], *(aliases[i] or [])} <= set(golds), (golds, i)
                checked += any(a not in golds[:1] for a in aliases[i] or [])
    assert checked
    with ScriptedServer(handler_for(plan)) as server:
        log = run_inspect(task / "task.py", server, tmp_path)
        theirs = list(server.requests)
    assert Counter(map(canonical, theirs)) == Counter(map(canonical, ours))
    systems = {b["messages"][0]["content"] for b in ours if b["messages"][0]["role"] == "system"}
    assert len(systems) == 3  # English's, German's and Japanese's
    assert any(b["messages"][0]["content"].startswith("The conversation you grade here is in "
                                                       "German") for b in ours
               if b["messages"][0]["role"] == "user")

    con = connect(db)
    verdicts = con.execute("SELECT conversation_id, turn, score, decided_by, outcome, na, "
                           "unparsable FROM eval_turns ORDER BY ALL").fetchall()
    expected = {(m["config"], m["language"]): m for m in metrics(con, bootstrap=10)}
    con.close()
    got = sorted((s.metadata["conversation_id"], t["turn"], t["score"], t["decided_by"],
                  t["outcome"], t["na"], t["unparsable"])
                 for s in log.samples for t in s.scores["convkgyarn_scorer"].metadata["turns"])
    assert got == verdicts
    assert {row[3] for row in verdicts} == {"matcher", "judge"}
    [score] = log.results.scores
    reported = {name: m.value for name, m in score.metrics.items()}
    assert set(expected) == {("voice-deixis-en-de-ja", code) for code in ("en", "de", "ja")}
    for (config, language), m in expected.items():
        assert reported[f"{config}/{language}/mean_turn"] == pytest.approx(m["mean_turn"],
                                                                           abs=1e-12)
        assert reported[f"{config}/{language}/na_ratio"] == pytest.approx(m["na_ratio"],
                                                                          abs=1e-12)

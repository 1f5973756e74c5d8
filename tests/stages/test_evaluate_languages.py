"""Evaluation per language (issue #35) on the real entities, against the scripted server.

A project of parallel conversations in English, German, Japanese and Chinese over the same
plans; a scripted model that answers every English turn right, German turns right on the
first two turns and NA after, Japanese turns right on the first and the even turns and
wrong (for the judge) on the odd ones after the first, and Chinese turns right except the
second, NA. Its right replies in the other
languages are written another way than the gold answers: German dates as 11.3.1952, numbers
without separators and items by an English alias; Japanese dates in full-width digits and
numbers in myriads (570万7251); Chinese dates with 号 and numbers with 亿 and 万. The
recall per language, the paired effects against English and the report come out exactly as
scripted, every right reply decided by the matcher.
"""

from __future__ import annotations

import csv
import re
import json
import shutil
from collections import defaultdict

import pytest

from convkgyarn.config import GenerateConfig
from convkgyarn.resources import load_prompt
from convkgyarn.scoring import as_date, as_number
from convkgyarn.stages.evaluate import language_effects, mcnemar_p, metrics, paired_effects
from convkgyarn.store import connect
from tests.helpers import cli, project
from tests.llm.prompts import data_blocks
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply

LANGUAGES = ["en", "de", "ja", "zh"]
CONFIG, BASE = "voice-deixis-en-de-ja-zh", "voice-en-de-ja-zh"
MUT = "model-under-test"
WIDE = str.maketrans("0123456789", "０１２３４５６７８９")


def right_in(language: str, turn: int) -> str:
    """How the scripted model answers a turn: right, wrong (a reply only the judge can
    decide, which it rates 0) or NA."""
    if language == "de":
        return "right" if turn <= 2 else "na"
    if language == "ja":
        return "wrong" if turn % 2 and turn > 1 else "right"
    if language == "zh":
        return "na" if turn == 2 else "right"
    return "right"


def myriads(n: int, language: str) -> str:
    oku, rest = divmod(n, 10 ** 8)
    man, one = divmod(rest, 10 ** 4)
    big = "億" if language == "ja" else "亿"
    return (f"{oku}{big}" if oku else "") + (f"{man}万" if man else "") + (str(one) if one
                                                                          else "")


def another_way(said: str, value: dict, language: str, aliases: dict[str, list[str]]
                ) -> tuple[str, str | None]:
    """The value written as a person writing the language might, not as the gold says it:
    (the reply, what kind of other way it is, or None when it is said as the gold)."""
    if language == "en":
        return said, None
    if "time" in value:
        date = as_date(said, language)
        if date and date[2]:
            y, m, d = date
            return {"de": (f"{d}.{m}.{y}", "date"),
                    "ja": (f"{y}年{m}月{d}日".translate(WIDE), "date"),
                    "zh": (f"{y}年{m}月{d}号", "date")}[language]
    if "amount" in value and not value.get("unit"):
        amount = float(value["amount"])
        if amount.is_integer() and amount >= 10 ** 4 and as_number(said, language) == amount:
            if language == "de":
                return str(int(amount)), "number"
            return myriads(int(amount), language), "number"
    if value.get("id") and language == "de":
        alias = next((a for a in aliases.get(value["id"], []) if a.isascii()
                      and a.casefold() != said.casefold()), None)
        if alias:
            return alias, "alias"
    return said, None


@pytest.fixture(scope="module")
def languages_project(shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("eval-languages")
    db = tmp / "p.duckdb"
    with project(db) as p:
        p.load([shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"],
               languages=["de", "ja", "zh"])
        # (seven turns: since 0.8.19 a country's population follows its capital, head of
        # state, languages and currency, and a population is the numbers these tests read)
        p.generate([GenerateConfig(interaction="voice", deixis=deixis, conversations=10,
                                   turns=7, languages=LANGUAGES) for deixis in (True, False)])
    con = connect(db)
    aliases = {i: list(a or []) for i, a in con.execute(
        "SELECT id, aliases FROM entities").fetchall()}
    rows = con.execute(
        "SELECT c.config_name, c.language, c.conversation_id, c.fact_set_id, c.ordinal, "
        "t.turn, t.question, t.answer, t.answer_values FROM conversations c JOIN turns t "
        "USING (run_id, conversation_id) ORDER BY c.config_name, c.conversation_id, t.turn"
    ).fetchall()
    con.close()
    replies, expected, other_ways = {}, {}, defaultdict(list)
    questions: dict[str, list[str]] = defaultdict(list)
    for config, language, cid, fact_set, ordinal, turn, question, gold, values in rows:
        questions[cid].append(question)
        kind = right_in(language, turn)
        if kind == "right":
            said = [another_way(g, v, language, aliases)
                    for g, v in zip(gold, json.loads(values))]
            text = said[0][0] if len(said) == 1 else json.dumps([s for s, _ in said],
                                                                ensure_ascii=False)
            for _, way in said:
                if way:
                    other_ways[(language, way)].append((cid, turn))
        else:
            text = "NA" if kind == "na" else f"WRONG-{language}-{turn}"
        key = (language, tuple(questions[cid]))
        assert replies.get(key, f"Answer: {text}") == f"Answer: {text}"  # one reply a request
        replies[key] = f"Answer: {text}"
        expected[(config, cid, turn)] = (language, fact_set, ordinal, kind)
    return tmp, db, replies, expected, other_ways


def scripted_model(replies: dict, log: list):
    paragraphs = {code: load_prompt(f"answer_{code}.md").text.strip() for code in LANGUAGES[1:]}

    def handler(body, n):
        msgs = body["messages"]
        if msgs[0]["role"] == "system":  # the model under test, asked in the language
            system = msgs[0]["content"]
            language = next((code for code, text in paragraphs.items() if text in system),
                            "en")
            log.append(("answer", language, system))
            return Reply(content=replies[(language, tuple(m["content"] for m in msgs
                                                          if m["role"] == "user"))])
        prompt = msgs[-1]["content"]
        rows = data_blocks(prompt)[0]
        log.append(("judge", prompt, [row["candidate"] for row in rows]))
        return json_reply({"ratings": [0] * len(rows)})
    return handler


@pytest.fixture(scope="module")
def evaluated(languages_project):
    tmp, db, replies, expected, other_ways = languages_project
    log: list = []
    with ScriptedServer(scripted_model(replies, log)) as server:
        r = cli("evaluate", "--db", db, "--model", MUT, "--base-url", server.base_url,
                env={"OPENAI_API_KEY": "k"})
    assert r.exit_code == 0, r.output
    return tmp, db, expected, other_ways, log, r.output, replies


def test_each_language_is_asked_in_its_language_and_english_as_before(evaluated):
    _, _, _, _, log, _, replies = evaluated
    base = load_prompt("answer_system.md").text
    systems = defaultdict(set)
    for _, language, system in (e for e in log if e[0] == "answer"):
        systems[language].add(system)
    assert systems["en"] == {base}  # byte for byte the English prompt: its cache holds
    for code in LANGUAGES[1:]:
        assert systems[code] == {base.rstrip("\n") + "\n\n" +
                                 load_prompt(f"answer_{code}.md").text.strip() + "\n"}
    asked = defaultdict(int)
    for _, language, _ in (e for e in log if e[0] == "answer"):
        asked[language] += 1
    # every distinct request once (a first turn is the same with and without deixis)
    assert dict(asked) == {code: sum(1 for language, _ in replies if language == code)
                           for code in LANGUAGES}


def test_only_wrong_replies_reach_the_judge_which_is_told_the_language(evaluated):
    _, _, _, _, log, _, _ = evaluated
    judged = [(prompt, cands) for kind, prompt, cands in (e for e in log if e[0] == "judge")]
    assert judged
    for prompt, candidates in judged:
        assert all(c[0].startswith("WRONG-ja-") for c in candidates), candidates
        assert prompt.startswith("The conversation you grade here is in Japanese")


def test_recall_per_language_is_exactly_as_scripted(evaluated):
    _, db, expected, _, _, output, _ = evaluated
    con = connect(db)
    rows = {(m["config"], m["language"]): m for m in metrics(con, bootstrap=50)}
    verdicts = con.execute("SELECT config_name, conversation_id, turn, score, decided_by, na "
                           "FROM eval_turns").fetchall()
    con.close()
    assert set(rows) == {(c, code) for c in (CONFIG, BASE) for code in LANGUAGES}
    by_conv = defaultdict(list)
    for config, cid, turn, score, decided, na in verdicts:
        language, _, _, kind = expected[(config, cid, turn)]
        assert (score, na) == {"right": (1, False), "na": (0, True), "wrong": (0, False)}[kind]
        assert decided == ("judge" if kind == "wrong" else "matcher")
        by_conv[(config, language, cid)].append(score)
    for (config, language), m in rows.items():
        convs = [s for (c, code, _), s in by_conv.items() if (c, code) == (config, language)]
        turns = [x for s in convs for x in s]
        kinds = [v[3] for k, v in expected.items() if k[0] == config and v[0] == language]
        assert m["turns"] == len(turns) == len(kinds)
        assert m["mean_turn"] == pytest.approx(kinds.count("right") / len(kinds))
        assert m["na_ratio"] == pytest.approx(kinds.count("na") / len(kinds))
        assert m["mean_conversation"] == pytest.approx(
            sum(sum(s) / len(s) for s in convs) / len(convs))
    assert rows[(CONFIG, "en")]["mean_turn"] == 1
    assert 0 < rows[(CONFIG, "de")]["mean_turn"] < rows[(CONFIG, "zh")]["mean_turn"] < 1
    # the end of evaluate: a table per model, a row per language with the right turns,
    # their share, who decided, NA and unparsable replies
    assert f"Evaluated: {MUT}" in output
    table = [line.replace("│", " ").split() for line in output.splitlines()]
    for code in LANGUAGES:
        kinds = [v[3] for v in expected.values() if v[0] == code]
        right, judged = kinds.count("right"), kinds.count("wrong")
        assert [code, str(len(kinds)), str(right), f"{right / len(kinds):.3f}",
                str(len(kinds) - judged), str(judged), str(kinds.count("na")), "0"] in table, \
            output


def test_dates_numbers_and_english_aliases_in_the_languages_forms_are_matched(evaluated):
    """The scripted model's right replies written another way than their gold (11.3.1952,
    １９５２年３月１１日, 1952年3月11号; 5707251, 570万7251, 1亿2000万; an English alias
    for a German gold): each is decided right by the matcher, never sent to the judge."""
    _, db, _, other_ways, _, _, _ = evaluated
    con = connect(db)
    decided = {(cid, turn): (score, by) for cid, turn, score, by in con.execute(
        "SELECT conversation_id, turn, score, decided_by FROM eval_turns").fetchall()}
    con.close()
    for language, way in [("de", "date"), ("de", "number"), ("de", "alias"), ("ja", "date"),
                          ("ja", "number"), ("zh", "date"), ("zh", "number")]:
        turns = other_ways[(language, way)]
        assert turns, (language, way)
        assert {decided[t] for t in turns} == {(1, "matcher")}, (language, way)


def test_languages_against_english_over_the_same_plans(evaluated):
    """Each language's turns pair with English's by plan and turn: the effect is minus the
    share of paired turns the language got wrong, McNemar sees only English's side, and
    per conversation the mean over plans of the language's mean minus English's (1)."""
    _, db, expected, _, _, _, _ = evaluated
    con = connect(db)
    effects = {(e["config"], e["language"]): e for e in language_effects(con, bootstrap=200)}
    phenomena = paired_effects(con, bootstrap=50)
    con.close()
    assert set(effects) == {(c, code) for c in (CONFIG, BASE) for code in LANGUAGES[1:]}
    for (config, language), e in effects.items():
        plans = defaultdict(list)
        for (c, _, _), (code, fact_set, ordinal, kind) in expected.items():
            if c == config and code == language:
                plans[(fact_set, ordinal)].append(kind == "right")
        wrong = sum(not ok for turns in plans.values() for ok in turns)
        pairs = sum(len(t) for t in plans.values())
        assert (e["pairs"], e["base_mean"], e["base_language"]) == (pairs, 1.0, "en")
        assert e["effect"] == pytest.approx(-wrong / pairs)
        assert e["mean"] == pytest.approx(1 - wrong / pairs)
        assert (e["base_only_right"], e["language_only_right"]) == (wrong, 0)
        assert e["mcnemar_p"] == pytest.approx(mcnemar_p(wrong, 0))
        assert e["conversations"] == len(plans)
        assert e["conversation_effect"] == pytest.approx(
            sum(sum(t) / len(t) - 1 for t in plans.values()) / len(plans))
        lo, hi = e["effect_ci"]
        assert lo <= e["effect"] <= hi <= 0
        lo, hi = e["conversation_effect_ci"]
        assert lo <= e["conversation_effect"] <= hi <= 0
    # deixis against plain voice, each language against itself (the same scripted rule: 0)
    assert {(e["config"], e["base"], e["language"]) for e in phenomena} == {
        (CONFIG, BASE, code) for code in LANGUAGES}
    assert all(e["effect"] == 0 for e in phenomena if e["language"] in ("en", "de", "zh"))


def test_the_report_splits_by_language(evaluated):
    tmp, db, _, _, _, _, _ = evaluated
    out = tmp / "report"
    r = cli("report", "--db", db, "--out", out)
    assert r.exit_code == 0, r.output
    con = connect(db)
    want = {(m["config"], m["language"]): m for m in metrics(con, bootstrap=1000)}
    effects = {(e["config"], e["language"]): e for e in language_effects(con)}
    con.close()
    with open(out / "results.csv", newline="") as fh:
        results = list(csv.DictReader(fh))
    assert {(row["config"], row["language"]) for row in results} == set(want)
    for row in results:
        assert float(row["mean_turn"]) == pytest.approx(
            want[(row["config"], row["language"])]["mean_turn"])
    with open(out / "language_effects.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert {(row["config"], row["language"]) for row in table} == set(effects)
    for row in table:
        e = effects[(row["config"], row["language"])]
        assert float(row["effect"]) == pytest.approx(e["effect"])
        assert float(row["conversation_effect"]) == pytest.approx(e["conversation_effect"])
        assert int(row["base_only_right"]) == e["base_only_right"]
    md = (out / "report.md").read_text()
    assert "## Languages against English (paired, same plans)" in md
    de = effects[(CONFIG, "de")]
    assert f"| {MUT} | {CONFIG} | de | {de['pairs']} | 1.000 | {de['mean']:.3f} | " in md
    assert f"| {CONFIG} | ja | " in md and "| configuration | language |" in md
    for name in ("recall.png", "effects.png", "language_effects.png"):
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
    # what report prints: recall per configuration and language, then each language
    # against English (the model and configuration columns wrap in a narrow terminal)
    m = want[(CONFIG, "de")]
    assert has_cells(r.output, ["de", f"{m['turns']:,}", f"{m['mean_turn']:.3f}",
                                f"{m['mean_conversation']:.3f}", f"{m['na_ratio']:.3f}"])
    assert "Against English, over the same plans" in r.output
    for code in LANGUAGES[1:]:
        e = effects[(BASE, code)]
        assert has_cells(r.output, [code, str(e["pairs"]), f"{e['effect']:+.3f}",
                                    f"{e['conversation_effect']:+.3f}"]), r.output


def has_cells(output: str, cells: list[str]) -> bool:
    """Whether a line of a printed table holds these cells side by side."""
    for line in output.splitlines():
        row = [c.strip() for c in line.split("│")]
        if any(row[i:i + len(cells)] == cells for i in range(len(row))):
            return True
    return False


def test_a_rerun_asks_nothing_and_a_batch_gives_the_same_scores(evaluated, tmp_path):
    tmp, db, _, _, _, _, replies = evaluated
    log: list = []
    with ScriptedServer(scripted_model(replies, log)) as server:
        r = cli("evaluate", "--db", db, "--model", MUT, "--base-url", server.base_url,
                env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        assert server.requests == []
    batched = tmp_path / "b.duckdb"
    shutil.copy(db, batched)
    con = connect(batched)
    for table in ("llm_cache", "llm_failures", "eval_turns", "llm_batches"):
        con.execute(f"DELETE FROM {table}")
    con.close()
    conf = tmp_path / "convkgyarn.toml"
    conf.write_text("[llm]\nbatch_poll = 0.05\n")
    with ScriptedServer(scripted_model(replies, [])) as server:
        r = cli("evaluate", "--db", batched, "--model", MUT, "--base-url", server.base_url,
                "--batch", "--config", conf, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        assert server.requests == []
        # English's answers, the other languages' answers, the other languages' judge
        assert len(server.batches) == 3

    def scores(path):
        c = connect(path)
        try:
            return sorted(c.execute("SELECT config_name, conversation_id, turn, score, "
                                    "decided_by FROM eval_turns").fetchall())
        finally:
            c.close()

    assert scores(batched) == scores(db)


def test_every_date_and_number_said_in_a_language_reads_back_as_its_value(languages_project):
    """The gold answers the language layer says (11. März 1952, 1952年3月11日, 5.707.251,
    1,699,154,132米ドル) are what the matcher compares replies with: each reads back as the
    turn's exact value, at the precision it was said. Dates before the common era and
    centuries are no dates to the matcher in any language (the judge decides them)."""
    _, db, _, _, _ = languages_project
    con = connect(db)
    rows = con.execute(
        "SELECT c.language, t.answer, t.answer_values FROM turns t JOIN conversations c "
        "USING (run_id, conversation_id) WHERE c.language <> 'en'").fetchall()
    con.close()
    read = defaultdict(int)
    for language, said, values in rows:
        for text, value in zip(said, json.loads(values)):
            if "amount" in value:
                assert as_number(text, language) == pytest.approx(float(value["amount"])), \
                    (language, text, value)
                read[(language, "number")] += 1
            elif "time" in value:
                m = re.fullmatch(r"(\d{3,4})(?:-(\d\d))?(?:-(\d\d))?", value["time"])
                if not m:  # BCE, a century, a two-digit year
                    assert as_date(text, language) is None or len(value["time"]) <= 4, text
                    continue
                got = as_date(text, language)
                assert got is not None and got[0] == int(m[1]), (language, text, value)
                assert all(g in (None, int(w)) for g, w in zip(got[1:], m.groups()[1:]) if w)
                read[(language, "date")] += 1
    assert {key for key, n in read.items() if n} == {
        (code, kind) for code in LANGUAGES[1:] for kind in ("date", "number")}


def test_a_phenomenon_is_measured_against_its_base_in_the_same_languages():
    from convkgyarn.stages.evaluate import base_config, config_languages

    assert base_config("voice-deixis") == "voice" and base_config("voice") is None
    assert base_config("voice-deixis-en-de-ja-zh") == "voice-en-de-ja-zh"
    assert base_config("text-typos-en-de") == "text-en-de"
    assert base_config("voice-en-de") is None  # a base itself
    assert base_config("voice-related-en-de") is None and base_config("convquestions") is None
    assert base_config("voice-changes-2024-01-01") == "voice"
    assert config_languages("voice-deixis-en-de") == ["en", "de"]
    assert config_languages("voice-changes-2024-01-01") == []


def test_a_turn_whose_conversation_is_gone_keeps_the_language_its_name_says():
    from convkgyarn.stages.evaluate import _language

    assert _language("ja", "voice-en-ja") == "ja"
    assert _language(None, "voice") == "en"
    assert _language(None, "voice-de") == "de"
    assert _language(None, "voice-en-de") == "unknown"

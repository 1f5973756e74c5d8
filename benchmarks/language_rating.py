"""A blind rating per language (issue #35): the same plans' conversations in English,
German, Japanese and Chinese, each read by a rater of that language who never sees the key,
scored, and recorded here over time.

    python benchmarks/language_rating.py build LABEL [--file real-entities-dev.ndjson.bz2]
        loads the real file with its German, Japanese and Chinese labels (and the property
        list and preferred labels), generates voice-deixis in en, de, ja and zh
        (100 plans, 5 turns, rules path), picks 30 plans (seeded) and writes, for each
        language, benchmarks/.work/lang-rating-LABEL/set-CODE/ with brief.md (a copy of
        benchmarks/ratings/brief_language.md) and single.json (that language's
        conversations of those plans, shuffled, anonymised); the key (which plan each id
        is) goes to benchmarks/.work/lang-rating-LABEL/key.json.
    (a rater who reads the language rates only its folder and writes ratings.json there)
    python benchmarks/language_rating.py score LABEL [--rater "who rated"]
        Likert means per language, and each language's difference from English on the same
        plans; appended to benchmarks/ratings/language_ratings.jsonl.

The target (issue #35): each language's fluency and grammar within 0.5 of English's on the
same plans.
"""

from __future__ import annotations

import json
import random
import statistics as st
import sys
import tempfile
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks import blind_rating  # noqa: E402  (the loop this one follows)
from benchmarks.blind_rating import LABEL_FILES, SHARED, WORK, commit  # noqa: E402

RECORD = REPO / "benchmarks" / "ratings" / "language_ratings.jsonl"
BRIEF = REPO / "benchmarks" / "ratings" / "brief_language.md"
LANGUAGES = ["en", "de", "ja", "zh"]
NAMES = {"en": "English", "de": "German", "ja": "Japanese", "zh": "Chinese"}
PLANS, SAMPLE, TURNS = 100, 30, 5


def build(label: str, file: str, seed: int) -> None:
    from convkgyarn.config import GenerateConfig
    from tests.helpers import project

    here = WORK / f"lang-rating-{label}"
    if here.exists():
        sys.exit(f"{here} exists: pick another label")
    here.mkdir(parents=True)
    data = SHARED / "data"
    with tempfile.TemporaryDirectory() as tmp, project(Path(tmp) / "p.duckdb") as p:
        p.load([data / "wikidata" / file], labels=LABEL_FILES,
               languages=[c for c in LANGUAGES if c != "en"])
        result = p.generate([GenerateConfig(interaction="voice", deixis=True,
                                            conversations=PLANS, turns=TURNS, seed=seed,
                                            languages=LANGUAGES)])
        records = p.records(result.runs)
    plans: dict[str, dict[str, dict]] = {}
    for r in records:
        plans.setdefault(r["plan_id"], {})[r["language"]] = r  # two plans may share facts
    rng = random.Random(2035)
    chosen = rng.sample(sorted(plans), min(SAMPLE, len(plans)))
    key = {}
    for code in LANGUAGES:
        folder = here / f"set-{code}"
        folder.mkdir()
        items = [(plan, plans[plan][code]) for plan in chosen]
        rng.shuffle(items)
        single = []
        for i, (plan, r) in enumerate(items):
            cid = f"{code.upper()}{i:03d}"
            key[cid] = plan
            single.append({"id": cid, "turns": [{"q": t["question"], "a": t["answer"]}
                                                for t in r["turns"]]})
        (folder / "single.json").write_text(json.dumps(single, ensure_ascii=False, indent=1),
                                            encoding="utf-8")
        brief = BRIEF.read_text(encoding="utf-8").replace("{LANGUAGE}", NAMES[code])
        (folder / "brief.md").write_text(brief, encoding="utf-8")
    (here / "key.json").write_text(json.dumps(key))
    (here / "settings.json").write_text(json.dumps(
        {"file": file, "seed": seed, "plans": PLANS, "rated_plans": len(chosen),
         "turns": TURNS, "commit": commit()}))
    print(f"sets: {', '.join(str(here / f'set-{c}') for c in LANGUAGES)} (give each rater "
          f"only its folder; key: {here / 'key.json'})")


def score(label: str, rater: str) -> None:
    here = WORK / f"lang-rating-{label}"
    means = {}
    for code in LANGUAGES:
        ratings = json.loads((here / f"set-{code}" / "ratings.json").read_text())
        means[code] = {d: round(st.mean(v[d] for v in ratings.values()), 2) for d in "FG"}
    gaps = {code: {d: round(means[code][d] - means["en"][d], 2) for d in "FG"}
            for code in LANGUAGES if code != "en"}
    record = {"date": date.today().isoformat(), "label": label, "rater": rater,
              **json.loads((here / "settings.json").read_text()),
              "means": means, "difference_from_english": gaps}
    with open(RECORD, "a") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(json.dumps(record, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    blind_rating.main(__doc__, build, score, single_set=False)

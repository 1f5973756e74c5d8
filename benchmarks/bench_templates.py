"""Template generation against the scripted server: LLM calls and tokens per type, and the
share of variants accepted on the first try, on the bundled sample.

The scripted templater answers like a fair model: valid variants, except that one variant
in ten breaks a rule (names the subject in a deixis question, or forgets the filler)."""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from convkgyarn.resources import bundled_sample  # noqa: E402
from convkgyarn.stages.templates import GenerateTemplates  # noqa: E402
from tests.helpers import context, llm, project  # noqa: E402
from tests.llm.prompts import is_text_prompt, template_facts  # noqa: E402
from tests.llm.scripted_server import Reply, ScriptedServer, last_user_message  # noqa: E402

import json  # noqa: E402

calls_by_type: Counter = Counter()
tokens_by_type: Counter = Counter()


def templater(body, n):
    prompt = last_user_message(body)
    text = is_text_prompt(prompt)
    out, k = {}, 0
    for fact in template_facts(prompt):
        num, subj, prop, qual = str(fact["n"]), fact["subject"], fact["property"], "qualifier" in fact
        a = " [a]" if qual else ""
        def bad(i, good, broken):
            nonlocal k
            k += 1
            return broken if (n * 7 + k) % 10 == 0 else good
        turn = {"original": [f"tell me {prop} of {subj}{a} {i}" for i in range(3)],
                "deixis": [bad(i, f"tell me {prop} of [him]{a} {i}", f"{prop} of {subj} {i}")
                           for i in range(3)],
                "answer": "[b]" if qual else "[a]"}
        if not text:
            turn["disfluencies"] = [bad(i, f"um, tell me {prop} of {subj}{a} {i}",
                                        f"tell me {prop} of {subj}{a} {i}") for i in range(3)]
            turn["deixis_disfluencies"] = [f"uh, {prop} of [him]{a} {i}" for i in range(3)]
        out[num] = turn
    reply = json.dumps(out)
    types = {f["subject"] for f in template_facts(prompt)}
    for t in types:
        calls_by_type[t] += 1 / len(types)
        tokens_by_type[t] += (len(prompt) // 4 + len(reply) // 4) / len(types)
    return Reply(content=reply, usage=(len(prompt) // 4, len(reply) // 4))


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    p = project(tmp / "t.duckdb")
    p.load([bundled_sample()], kind="sample")
    p.extract_predicates()
    p.select_predicates()
    with ScriptedServer(templater) as server:
        ctx = context(p.con, **llm(server))
        stats = GenerateTemplates(ctx).run().stats
    u = ctx.meter.usage["templater"]
    p.close()
    print(f"facts: {stats['facts']}, LLM calls: {u.calls} ({u.prompt_tokens:,} prompt + "
          f"{u.completion_tokens:,} completion tokens), variants accepted on the first try: "
          f"{stats['accepted_first_try']}/{stats['llm_variants']} first-round variants "
          f"({stats['accepted_first_try'] / max(1, stats['llm_variants']):.0%} of all returned), "
          f"rules fallback templates: {stats['fallback_templates']}")
    print("per type (subject placeholder): calls, tokens")
    for t, c in sorted(calls_by_type.items(), key=lambda x: -x[1]):
        print(f"  {t:<28} {c:5.1f} calls  {tokens_by_type[t]:8,.0f} tokens")


if __name__ == "__main__":
    main()

"""A healthy scripted LLM for the whole main job: selectors that pick what they are offered
and a templater that writes valid variants."""

from __future__ import annotations

from tests.llm.prompts import data_blocks, is_text_prompt, template_facts
from tests.llm.scripted_server import json_reply, last_user_message


def healthy(body, n):
    prompt = last_user_message(body)
    if "describes one entity type" in prompt:  # the type selector: every type offered
        return json_reply({"selected": [row[0] for row in data_blocks(prompt)[0]]})
    if prompt.startswith("You help build a dataset"):
        return json_reply({"selected": [row[0] for row in data_blocks(prompt)[0][1:]]})
    text = is_text_prompt(prompt)
    out = {}
    for fact in template_facts(prompt):
        subj, a = fact["subject"], " [a]" if "qualifier" in fact else ""
        turn = {"original": [f"tell me about {subj}{a} {k}" for k in "xyz"],
                "deixis": [f"tell me about [him]{a} {k}" for k in "xyz"],
                "answer": fact["answer"]}
        if not text:
            turn["disfluencies"] = [f"um tell me about {subj}{a} {k}" for k in "xyz"]
            turn["deixis_disfluencies"] = [f"uh tell me about [him]{a} {k}" for k in "xyz"]
        out[str(fact["n"])] = turn
    return json_reply(out)

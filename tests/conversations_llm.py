"""A healthy scripted LLM for the whole main job: selectors that pick what they are offered
and a templater that writes valid variants."""

from __future__ import annotations

from tests.llm.prompts import data_blocks, is_text_prompt, template_facts, template_language
from tests.llm.scripted_server import json_reply, last_user_message


def healthy(body, n):
    prompt = last_user_message(body)
    if "describes one entity type" in prompt:  # the type selector: every type offered
        return json_reply({"selected": [row[0] for row in data_blocks(prompt)[0]]})
    if prompt.startswith("You help build a dataset"):
        return json_reply({"selected": [row[0] for row in data_blocks(prompt)[0][1:]]})
    text = is_text_prompt(prompt)
    code = template_language(prompt)
    if code != "en":
        return json_reply({str(f["n"]): local_turn(code, f, text)
                           for f in template_facts(prompt)})
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


# valid templates in each language's own placeholders: (original, deixis, filler) and the
# placeholder of a qualifier's statement value; three variants by a number word
LOCAL = {
    "de": ("Was weißt du über [S:akk]{a}, Frage {k}?", "Und was weißt du über [S:akk]{a}, "
           "Frage {k}?", "Ähm, ", " [mit:a]", ("eins", "zwei", "drei"),
           "[S:kw]{a} Info {k}", "[S's:n.nom:Profil]{a} Teil {k}"),
    "ja": ("[S:について]{a}質問{k}ですか？", "では、[S:について]{a}質問{k}ですか？", "えっと、",
           "[a:と]", ("一", "二", "三"), "[S:の]{a}情報{k}", "[S:の]{a}詳細{k}"),
    "zh": ("[S]{a}的问题{k}是什么？", "那[S]{a}的问题{k}是什么？", "嗯，", "和[a]",
           ("一", "二", "三"), "[S]{a}资料{k}", "[S的]{a}详情{k}"),
}


def local_turn(code: str, fact: dict, text: bool) -> dict:
    """A turn of valid variants in ``code``'s placeholders for one fact of a prompt."""
    original, deixis, filler, value, numbers, typed, typed_deixis = LOCAL[code]
    a = value if "qualifier" in fact else ""
    if text:
        return {"original": [typed.format(a=a, k=k) for k in numbers],
                "deixis": [typed_deixis.format(a=a, k=k) for k in numbers]}
    return {"original": [original.format(a=a, k=k) for k in numbers],
            "deixis": [deixis.format(a=a, k=k) for k in numbers],
            "disfluencies": [filler + original.format(a=a, k=k) for k in numbers],
            "deixis_disfluencies": [filler + deixis.format(a=a, k=k) for k in numbers]}

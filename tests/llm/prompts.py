"""Reading our own prompts back in scripted servers: the facts of a template prompt."""

from __future__ import annotations

import json


def data_blocks(prompt: str) -> list[list]:
    """Each <<<DATA ... DATA>>> block as a list of JSON values."""
    out = []
    for part in prompt.split("<<<DATA\n")[1:]:
        block = part.split("\nDATA>>>", 1)[0]
        out.append([json.loads(line) for line in block.splitlines() if line.strip()])
    return out


def template_facts(prompt: str) -> list[dict]:
    """The facts a template prompt asks about (its last data block)."""
    return data_blocks(prompt)[-1]


def is_text_prompt(prompt: str) -> bool:
    return "search-engine" in prompt[:120]


LANGUAGE_NAMES = {"German": "de", "Japanese": "ja", "Chinese": "zh"}


def template_language(prompt: str) -> str:
    """The language a template prompt asks for: "en", or the code of the language named in
    its first sentence ("You write question templates in German ...")."""
    head = prompt[:80]
    for name, code in LANGUAGE_NAMES.items():
        if f"templates in {name} " in head:
            return code
    return "en"

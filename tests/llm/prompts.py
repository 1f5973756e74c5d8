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

"""`export --format inspect`: the conversations as a self-contained Inspect task folder.

The folder runs with only ``inspect-ai`` installed (``inspect eval DIR/task.py --model
...``): ``task.py`` is ``convkgyarn/inspect_task.py`` and ``convkgyarn_scoring.py`` is
``convkgyarn/scoring.py``, both copied verbatim, so the task parses, matches and judges
with the very code `convkgyarn evaluate` runs (one implementation; scoring.py imports only
the standard library and pydantic, which inspect-ai brings). The data are what
`evaluate` reads: the same conversations (``load_conversations``) and the same gold
variants (labels and Wikidata aliases, ``gold_variants``), resolved at export time, so the
task needs no database; the prompts and the answerer's and judge's sampling settings are
the project's. A conversation in another language than English carries its language and
its gold variants in that language (with the English ones), and the task asks and judges it
with the language prompts `evaluate` uses; its metrics are per configuration and language.

Safe output: the folder is written as a temporary sibling and renamed into place. An
existing ``--out`` is replaced only when it is empty or an earlier Inspect export holding
nothing but the files that export listed in its ``task.json`` (and Python's bytecode of its
modules); anything else is refused, and nothing of it is deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import orjson

from convkgyarn import __version__
from convkgyarn.config import LLMConfig
from convkgyarn.conversations import load_conversations
from convkgyarn.errors import UserError
from convkgyarn.resources import load_prompt
from convkgyarn.scoring import gold_lists

FORMAT = "convkgyarn-inspect-task"
SETTINGS_FILE = "task.json"
MODULES = {"task.py": "inspect_task.py", "convkgyarn_scoring.py": "scoring.py"}
PROMPTS = {"answer": "answer_system.md", "judge": "judge.md",
           "judge_language": "judge_language.md"}
CONVERSATIONS_FILE = "conversations.jsonl"


def write_inspect_task(con: duckdb.DuckDBPyConnection, runs: list[str], folder: Path,
                       llm: LLMConfig, entities: dict[str, dict] | None = None) -> int:
    """Write the task folder for the conversations of ``runs``; returns how many
    conversations it holds. ``entities`` (conversation id -> {id, label}) is shown in each
    sample's metadata."""
    from convkgyarn.stages.evaluate import ANSWER_LANGUAGE_PROMPTS, gold_variants

    folder = Path(folder)
    previous = _replaceable(folder)
    convs = load_conversations(con, runs)
    if not convs:
        raise UserError("no conversations to export; run `convkgyarn generate` first")
    languages = sorted({c.language for c in convs})
    variants = {code: gold_variants(con, [c for c in convs if c.language == code], code)
                for code in languages}
    # metrics per configuration, and per language where a configuration has several
    # ("voice-en-de/de"); a configuration in English alone keeps its name
    local = {c.config_name for c in convs if c.language != "en"}
    ids = Counter(c.conversation_id for c in convs)
    lines = []
    for c in convs:
        sample_id = c.conversation_id if ids[c.conversation_id] == 1 else \
            f"{c.conversation_id}-{c.run_id}"
        v = variants[c.language]
        lines.append(orjson.dumps({
            "id": sample_id, "config": c.config_name, "language": c.language,
            "group": f"{c.config_name}/{c.language}" if c.config_name in local
            else c.config_name,
            "conversation_id": c.conversation_id,
            "run_id": c.run_id, "entity": (entities or {}).get(c.conversation_id),
            "turns": [{"turn": t["turn"], "question": t["question"], "answer": t["answer"],
                       "golds": gold_lists(t["answer"], t["answer_ids"], v,
                                           t.get("amounts")),
                       "outdated_golds": gold_lists(t["outdated"], t["outdated_ids"], v,
                                                    t.get("outdated_amounts"))}
                      for t in c.turns]}))
    names = {**PROMPTS, **{f"answer_{code}": name
                           for code, name in ANSWER_LANGUAGE_PROMPTS.items()}}
    prompts = {role: load_prompt(name) for role, name in names.items()}
    stages = llm.stages
    files = [*MODULES, *(f"prompts/{p}" for p in names.values()), CONVERSATIONS_FILE,
             "README.md", SETTINGS_FILE]
    settings = {
        "format": FORMAT, "format_version": 1, "made_by": f"convkgyarn {__version__}",
        "conversations": CONVERSATIONS_FILE,
        "configurations": dict(sorted(Counter(c.config_name for c in convs).items())),
        "languages": dict(sorted(Counter(c.language for c in convs).items())),
        "turns": sum(len(c.turns) for c in convs),
        "prompts": {role: f"prompts/{name}" for role, name in PROMPTS.items()},
        "answer_language_prompts": {code: f"prompts/{name}"
                                    for code, name in ANSWER_LANGUAGE_PROMPTS.items()},
        "prompt_hashes": {role: p.hash for role, p in prompts.items()},
        "answerer": {"temperature": stages.answerer.temperature,
                     "max_tokens": stages.answerer.max_tokens},
        "judge": {"temperature": stages.judge.temperature,
                  "max_tokens": stages.judge.max_tokens,
                  "attempts": llm.validation_attempts,
                  "convkgyarn_model": stages.judge.model},
        "files": sorted(files),
    }
    package = Path(__file__).resolve().parent
    with _new_folder(folder, previous) as tmp:
        for target, source in MODULES.items():
            shutil.copyfile(package / source, tmp / target)
        (tmp / "prompts").mkdir()
        for role, name in names.items():
            (tmp / "prompts" / name).write_text(prompts[role].text, encoding="utf-8")
        (tmp / CONVERSATIONS_FILE).write_bytes(b"\n".join(lines) + b"\n")
        (tmp / "README.md").write_text(_readme(settings), encoding="utf-8")
        (tmp / SETTINGS_FILE).write_text(json.dumps(settings, indent=2) + "\n",
                                         encoding="utf-8")
    return len(convs)


# -- safe output ----------------------------------------------------------------------------

def _ours(folder: Path) -> list[Path] | None:
    """The files of an earlier Inspect export in ``folder`` (by its task.json), or None
    when the folder is not one."""
    try:
        settings = json.loads((folder / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(settings, dict) or settings.get("format") != FORMAT:
        return None
    listed = settings.get("files")
    if not isinstance(listed, list) or not all(isinstance(f, str) for f in listed):
        return None
    return [folder / f for f in listed]


def _replaceable(folder: Path) -> list[Path] | None:
    """Refuse an ``--out`` this export may not replace; return the files of an earlier
    export there (to remove once the new folder is in place), else None."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise UserError(f"{folder}: exists and is not a folder; choose another --out "
                        "(nothing was written)")
    if not folder.exists():
        return None
    # a link to a folder is something of the user's, never a folder of ours to look into
    present = sorted(p for p in folder.rglob("*") if p.is_symlink() or not p.is_dir())
    if not present and not any(folder.iterdir()):
        return []
    ours = _ours(folder)
    if ours is None:
        raise UserError(f"{folder}: not empty and not an Inspect export of convkgyarn; "
                        "choose another --out (nothing was written)")
    stems = {Path(f).stem for f in MODULES}
    known = set(ours)
    extra = [p for p in present if p not in known and not (
        p.parent.name == "__pycache__" and p.suffix == ".pyc" and p.name.split(".")[0] in stems)]
    # an empty folder is the user's (ours always hold files): never removed with the rest
    extra += sorted(d for d in folder.rglob("*") if d.is_dir() and not d.is_symlink()
                    and d.name != "__pycache__" and not any(d.iterdir()))
    if extra:
        raise UserError(f"{folder}: an earlier Inspect export that now holds other files too "
                        f"({extra[0].relative_to(folder)}"
                        f"{f' and {len(extra) - 1} more' if len(extra) > 1 else ''}); move them "
                        "or choose another --out (nothing was written)")
    return [p for p in present if p.exists()]


class _new_folder:
    """A temporary sibling of ``folder`` to write into, renamed to ``folder`` when the block
    completes; an earlier export there is moved aside first and then removed file by file
    (only its own files: a file that appeared meanwhile is kept, with the folder it is in)."""

    def __init__(self, folder: Path, previous: list[Path] | None) -> None:
        self.folder, self.previous = folder, previous

    def __enter__(self) -> Path:
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.folder.name}.", dir=self.folder.parent))
        return self.tmp

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            return
        os.chmod(self.tmp, 0o777 & ~_umask())  # mkdtemp makes it 0700
        if not self.previous:  # absent or empty: rename onto it
            os.replace(self.tmp, self.folder)
            return
        aside = Path(tempfile.mkdtemp(prefix=f".{self.folder.name}.old.", dir=self.folder.parent))
        old = aside / self.folder.name
        os.replace(self.folder, old)
        os.replace(self.tmp, self.folder)
        for path in self.previous:
            moved = old / path.relative_to(self.folder)
            moved.unlink(missing_ok=True)
        for d in sorted((p for p in old.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            _rmdir_if_empty(d)
        _rmdir_if_empty(old)
        _rmdir_if_empty(aside)


def _rmdir_if_empty(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _readme(settings: dict[str, Any]) -> str:
    configs = "\n".join(f"| {name} | {n} |" for name, n in settings["configurations"].items())
    return f"""# convkgyarn conversations as an Inspect task

Fact recall over multi-turn conversations made by {settings["made_by"]} from Wikidata.
Needs only `inspect-ai` and the SDK of your model provider (`pip install inspect-ai
openai` for OpenAI and OpenAI-compatible servers). Run it with any Inspect model:

```bash
inspect eval task.py --model openai/gpt-4o-mini --model-role grader=openai/gpt-4o
# a local OpenAI-compatible server (vLLM, llama.cpp, Ollama ...):
LOCAL_BASE_URL=http://127.0.0.1:8080/v1 LOCAL_API_KEY=none \\
  inspect eval task.py --model openai-api/local/MODEL
```

(With Inspect 0.3.285 on Python 3.11, give the path to `task.py` relative to the working
folder, or append `@convkgyarn_recall` to an absolute path.)

Each conversation is a sample. Each turn is asked with the gold history (the earlier
questions with their gold answers); replies are read as `Answer: x`, `Answer: ["x", "y"]`
or `Answer: NA`; convkgyarn's matcher decides clear cases and the `grader` model (by
default the model under test; convkgyarn's own judge was `{settings["judge"]["convkgyarn_model"]}`)
judges the rest, one call per conversation. Metrics per configuration: `mean_turn`,
`mean_conversation`, `na_ratio`, `outdated_share` (and `all/...`); a configuration made in
several languages has them per language (`voice-en-de/de/mean_turn`), and each of its
conversations is asked in its own language (the answer prompt with that language's
paragraph) and judged with a note naming it. These are the scores `convkgyarn evaluate`
gives on the same replies. `-T configs=voice,text` runs only some configurations.

| configuration | conversations |
|---|---|
{configs}

Files: `task.py` (the task), `convkgyarn_scoring.py` (convkgyarn's scoring code),
`prompts/` (the answerer's system prompt, its paragraph for each language besides English,
the judge prompt and its language note), `conversations.jsonl` (one
conversation a line: its turns with the gold answers, every accepted way to say them, and
the values the fact held before), `task.json` (sampling settings and this folder's file
list: `convkgyarn export --format inspect` replaces this folder only while it holds
nothing else).
"""

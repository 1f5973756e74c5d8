"""Re-run every exported turn's SPARQL query against an endpoint and report drift.

A turn is ``same`` when the endpoint's answer values equal the turn's ``answer_values``,
``changed`` when they differ (old and new values are written), ``gone`` when the query
finds nothing (the statement or the fact went away). Each distinct query is sent once,
one at a time (the public Wikidata Query Service asks for that), with the client's retries
(``kg.sparql.SparqlClient``: Retry-After honoured up to a cap, dropped connections and
malformed replies retried, then exit 4). Results are cached per endpoint and query in a file
beside the report, one JSON line each as it arrives, so a stopped run resumes where it
stopped.

An input file is data, not a list of commands: every query in it is parsed (rdflib's SPARQL
parser) before anything is sent, and the file is refused, naming the line, unless each is a
SELECT or ASK query that names no other dataset (``FROM``) and calls no other service
(``SERVICE``). Updates never parse as queries; SPARQLWrapper would have sent a ``DELETE
WHERE`` as an update, and an endpoint that accepts updates emptied itself.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from convkgyarn.errors import DriftFound  # noqa: F401  (defined in errors.py)
from convkgyarn.errors import UserError
from convkgyarn.kg.queries import canonical, values_of
from convkgyarn.kg.sparql import Malformed, result_rows


@dataclass
class VerifyReport:
    path: Path
    summary: dict[str, Any]
    turns: list[dict] = field(default_factory=list)

    @property
    def drifted(self) -> int:
        return self.summary["changed"] + self.summary["gone"]


def read_export(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, record) of a JSONL export; a bad line is a one-line error naming it."""
    if not path.is_file():
        raise UserError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}, line {n}: not JSON ({exc.msg})") from None
            if not isinstance(record, dict) or not isinstance(record.get("turns"), list):
                raise UserError(f"{path}, line {n}: not a convkgyarn conversation record "
                                "(no 'turns' list)")
            yield n, record


SENDABLE_FORMS = {"SelectQuery": "SELECT", "AskQuery": "ASK"}
_DIGITS = re.compile(r"[0-9]+")


def _parse_names(query: str) -> tuple[str, set[str]]:
    """(the query form, the name of every construct in it), by rdflib's SPARQL parser;
    ``ValueError`` for text that is no SPARQL query (an update included)."""
    from pyparsing import ParseBaseException, ParseResults
    from rdflib.plugins.sparql.parser import parseQuery
    from rdflib.plugins.sparql.parserutils import CompValue

    try:
        parsed = parseQuery(query)
    except (ParseBaseException, ValueError) as exc:
        raise ValueError(" ".join(str(exc).split())[:160]) from None
    names: set[str] = set()
    todo = [parsed]
    while todo:
        node = todo.pop()
        if isinstance(node, CompValue):
            names.add(node.name)
            todo.extend(node.values())
        elif isinstance(node, (ParseResults, list, tuple)):
            todo.extend(node)
    return parsed[1].name, names


def _verdict(query: str) -> str | None:
    try:
        form, names = _parse_names(query)
    except ValueError as exc:
        return f"not a SPARQL SELECT or ASK query ({exc})"
    if form not in SENDABLE_FORMS:
        return f"a {form.removesuffix('Query').upper()} query (only SELECT and ASK are sent)"
    if "ServiceGraphPattern" in names:
        return "it calls another service (SERVICE)"
    if "DatasetClause" in names:
        return "it names another dataset (FROM)"
    return None


class QueryGuard:
    """Whether a query from an input file may be sent (see the module notes).

    Parsing with rdflib takes ~25 ms a query, and an export holds hundreds of distinct
    queries of a few dozen shapes (the same query about other ids). So a query without
    ``\\`` or ``%`` is parsed once per shape: its digit runs replaced by 0. That replacement
    cannot change what is checked: digits form no keyword, quote, bracket or other token
    boundary, so the form and every SERVICE and FROM stay where they were; only escapes
    (``\\u0022``) and percent-encodings (``%20``) count their digits, hence the exclusion.
    A shape that does not parse (``SHA1`` becomes ``SHA0``) is settled by parsing the query
    itself."""

    def __init__(self) -> None:
        self._by_shape: dict[str, str | None] = {}

    def problem(self, query: str) -> str | None:
        """Why the query must not be sent, or None."""
        if "\\" in query or "%" in query:
            return _verdict(query)
        shape = _DIGITS.sub("0", query)
        if shape not in self._by_shape:
            verdict = _verdict(shape)
            if verdict is not None and verdict.startswith("not a SPARQL"):
                return _verdict(query)
            self._by_shape[shape] = verdict
        return self._by_shape[shape]


class QueryCache:
    """Result rows per (endpoint, query), kept in a JSONL file written as results arrive."""

    def __init__(self, path: Path, endpoint: str) -> None:
        self.path, self.endpoint = path, endpoint
        self.rows: dict[str, list[dict]] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                    if entry.get("endpoint") == endpoint:
                        self.rows[entry["key"]] = result_rows(
                            {"results": {"bindings": entry["rows"]}})
                except (json.JSONDecodeError, AttributeError, KeyError, TypeError, Malformed):
                    continue  # a line cut short by a killed run, or not ours: asked again

    @staticmethod
    def key(query: str) -> str:
        return hashlib.sha256(query.encode()).hexdigest()[:24]

    def get(self, query: str) -> list[dict] | None:
        return self.rows.get(self.key(query))

    def put(self, query: str, rows: list[dict]) -> None:
        key = self.key(query)
        self.rows[key] = rows
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"endpoint": self.endpoint, "key": key, "rows": rows}) + "\n")
            fh.flush()


def verify(export: Path, endpoint: str, out: Path, select: Callable[[str], list[dict]],
           progress: Callable[[int, int], None] | None = None) -> VerifyReport:
    """Check every turn of ``export`` against ``endpoint`` (``select`` runs one query and
    returns its SPARQL JSON bindings); write the report to ``out``."""
    turns = []
    for n, record in read_export(export):
        config = record.get("config") or {}
        for t in record["turns"]:
            if not isinstance(t, dict) or not isinstance(t.get("sparql"), (str, type(None))) \
                    or not _values(t.get("answer_values")):
                raise UserError(f"{export}, line {n}: a turn that is not a convkgyarn turn "
                                "(sparql must be text, answer_values a list of values)")
            turns.append({"line": n, "conversation_id": record.get("conversation_id"),
                          "config": config.get("name") if isinstance(config, dict) else None,
                          "turn": t.get("turn"), "subject_id": t.get("subject_id"),
                          "property_id": t.get("property_id"),
                          "qualifier_property_id": t.get("qualifier_property_id"),
                          "sparql": t.get("sparql"), "gold": t.get("answer_values")})
    cache = QueryCache(out.with_name(out.name + ".cache.jsonl"), endpoint)
    first_line: dict[str, int] = {}
    for t in turns:
        if t["sparql"]:
            first_line.setdefault(t["sparql"], t["line"])
    queries = list(first_line)
    guard = QueryGuard()
    for query, n in first_line.items():  # all of them before anything is sent
        if (problem := guard.problem(query)) is not None:
            raise UserError(f"{export}, line {n}: refusing to send its query: {problem}")
    asked = 0
    for i, query in enumerate(queries):
        if cache.get(query) is None:
            cache.put(query, select(query))
            asked += 1
        if progress:
            progress(i + 1, len(queries))
    counts: Counter = Counter()
    by_config: dict[str, Counter] = {}
    results = []
    for t in turns:
        entry = {k: t[k] for k in ("conversation_id", "config", "turn", "subject_id",
                                   "property_id", "qualifier_property_id")}
        if not t["sparql"] or t["gold"] is None:
            status = "no_query"
        else:
            new = values_of(cache.get(t["sparql"]) or [])
            old = canonical(t["gold"])
            status = "same" if new == old else ("gone" if not new else "changed")
            if status != "same":
                entry |= {"old": old, "new": new}
        entry["status"] = status
        counts[status] += 1
        by_config.setdefault(t["config"] or "", Counter())[status] += 1
        results.append(entry)
    summary = {"turns": len(turns), **{s: counts.get(s, 0) for s in
                                       ("same", "changed", "gone", "no_query")},
               "queries": len(queries), "queries_sent": asked,
               "by_config": {k: dict(v) for k, v in sorted(by_config.items())}}
    report = {"endpoint": endpoint, "input": str(export),
              "checked_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "summary": summary, "turns": results}
    _write_json(report, out)
    return VerifyReport(out, summary, results)


def _values(values: Any) -> bool:
    return values is None or (isinstance(values, list)
                              and all(isinstance(v, dict) for v in values))


def _write_json(data: Any, path: Path) -> None:
    """The drift report, by the output rule every command keeps (``convkgyarn.outputs``):
    written whole beside its target, replacing only an earlier drift report, a link at
    --out followed."""
    from convkgyarn.outputs import DRIFT_JSON, replacing_file

    with replacing_file(path, DRIFT_JSON) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
            fh.write("\n")

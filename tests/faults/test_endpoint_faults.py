"""Whatever a SPARQL endpoint does, `verify` (and `kg load --sparql`, which shares the client)
ends with one line and a documented exit code: it waited as long as any Retry-After said
(100,000 s: silent until killed), crashed (exit 1) on a Retry-After given as a date, a dropped
connection or a reply of the wrong shape, and printed an endpoint's multi-line error page.
Now waits are capped and announced, dropped connections and malformed replies are retried a
bounded number of times with backoff, and an endpoint that keeps failing is exit 4."""

from __future__ import annotations

import email.utils
import http.server
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.helpers import cli

OK = {"head": {"vars": ["answer"]}, "results": {"bindings": [
    {"answer": {"type": "uri", "value": "http://www.wikidata.org/entity/Q1"}}]}}
ERROR_PAGE = b"<html>\n<body>\nQuery timeout\n  at line 3\n</body>\n</html>\n"


@contextmanager
def endpoint(*script: str) -> Iterator[tuple[str, list[float]]]:
    """An endpoint on 127.0.0.1 acting out ``script``, one step per request (the last step
    repeats): ``ok``, ``drop`` (closes the connection unanswered), ``429 <Retry-After>``,
    ``400`` or ``500`` (a multi-line error page), ``json <body>`` (200 with that body).
    Yields its URL and the times requests came in."""
    times: list[float] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            times.append(time.monotonic())
            step = script[min(len(times), len(script)) - 1]
            kind, _, arg = step.partition(" ")
            if kind == "drop":
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if kind == "429":
                self.send_response(429)
                self.send_header("Retry-After", arg)
                self.end_headers()
                return
            if kind in ("400", "500"):
                self.send_response(int(kind))
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(ERROR_PAGE)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.end_headers()
            self.wfile.write(arg.encode() if kind == "json" else json.dumps(OK).encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/sparql", times
    finally:
        server.shutdown()
        server.server_close()


def export(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"conversation_id": "c", "config": {"name": "voice"}, "turns": [
        {"turn": 1, "sparql": "SELECT ?answer WHERE { ?s ?p ?answer }",
         "answer_values": [{"id": "Q1"}]}]}) + "\n")
    return path


def verify(tmp_path: Path, url: str):
    return cli("verify", "--endpoint", url, "--input", export(tmp_path), "--out",
               tmp_path / "d.json")


def one_error_line(r, code: int) -> str:
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    return lines[0]


def client(url: str, **config):
    from convkgyarn.config import SparqlConfig
    from convkgyarn.kg.sparql import SparqlClient

    return SparqlClient(SparqlConfig(endpoint=url, backoff_max=0.05, **config))


def test_a_retry_after_date_is_honoured(tmp_path):
    soon = email.utils.format_datetime(datetime.now(timezone.utc) + timedelta(seconds=2),
                                       usegmt=True)
    with endpoint(f"429 {soon}", "ok") as (url, times):
        r = verify(tmp_path, url)
    assert r.exit_code == 0, r.output  # a ValueError before
    assert len(times) == 2 and 0.5 <= times[1] - times[0] <= 5


def test_a_dropped_connection_is_retried(tmp_path):
    with endpoint("drop", "drop", "ok") as (url, times):
        r = verify(tmp_path, url)
    assert r.exit_code == 0, r.output  # exit 1 (RemoteDisconnected) before
    assert len(times) == 3
    assert json.loads((tmp_path / "d.json").read_text())["summary"]["same"] == 1


def test_an_endpoint_that_keeps_dropping_the_connection_is_exit_4(tmp_path):
    with endpoint("drop") as (url, times):
        r = verify(tmp_path, url)
    line = one_error_line(r, 4)
    assert url in line and "connection" in line and len(times) == 5


@pytest.mark.parametrize("body", ['{"results": []}', "[1, 2]",
                                  '{"results": {"bindings": [1]}}',
                                  '{"results": {"bindings": [{"answer": "Q1"}]}}',
                                  '{"head": {}}', "<html>not json</html>"])
def test_a_reply_of_the_wrong_shape_is_retried_then_exit_4(tmp_path, body):
    from convkgyarn.kg.sparql import SparqlError

    with endpoint(f"json {body}", "ok") as (url, times):
        assert client(url).select("SELECT ?answer WHERE { ?s ?p ?answer }",
                                  prefixes=False) == OK["results"]["bindings"]
    with endpoint(f"json {body}") as (url, times), pytest.raises(SparqlError) as info:
        client(url, max_attempts=3).select("SELECT ?answer WHERE { ?s ?p ?answer }")
    assert info.value.exit_code == 4 and len(times) == 3
    assert "\n" not in str(info.value) and "malformed reply" in str(info.value)


def test_a_malformed_reply_through_the_cli_is_one_line_and_exit_4(tmp_path):
    with endpoint('json {"results": {"bindings": [1]}}') as (url, _):
        r = verify(tmp_path, url)
    assert "malformed reply" in one_error_line(r, 4)  # AttributeError, exit 1, before


def test_an_error_page_is_one_line(tmp_path):
    with endpoint("400") as (url, times):
        line = one_error_line(verify(tmp_path, url), 4)
    assert "refused the query (HTTP 400: <html> <body> Query timeout" in line
    assert len(times) == 1  # a refusal is not retried
    with endpoint("500") as (url, times):
        line = one_error_line(verify(tmp_path, url), 4)
    assert "gave up after 5 attempts (HTTP 500: <html> <body> Query timeout" in line
    assert len(times) == 5


def test_a_long_retry_after_is_capped_and_announced(caplog):
    with endpoint("429 100000", "ok") as (url, times), caplog.at_level(logging.WARNING):
        rows = client(url, retry_after_max=0.5).select("SELECT ?answer WHERE { ?s ?p ?answer }")
    assert rows == OK["results"]["bindings"]
    assert len(times) == 2 and 0.4 <= times[1] - times[0] <= 3
    assert any("asked to wait 100000 s" in m and "waiting 0 s" not in m
               for m in caplog.messages), caplog.messages

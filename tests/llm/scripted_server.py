"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests: chosen replies and faults.

Each test gives a handler ``(body, n) -> Reply`` (n counts requests from 0) or a list of
replies served in order. The server records every request body and the most requests
it ever had in flight at once. It also implements the Files and Batch endpoints the
OpenAI SDK uses (upload, create, retrieve, download): a batch's lines go through the same
handler, and the batch completes after ``polls_until_done`` status checks.

Faults a reply can carry: an HTTP status, a delay before the headers, a raw body (broken
JSON), a body cut off after ``cut_after`` bytes (the connection drops), a ``stall`` after
the headers (and after ``cut_after`` bytes, if given), a body sent in ``chunk``-byte pieces,
and ``huge_reply``: a server that ignores max_tokens. ``output_fault`` applies the same to
the batch output file's download.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web


@dataclass
class Reply:
    content: str = "ok"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    raw_body: bytes | None = None  # sent as is (truncated or non-JSON bodies)
    usage: tuple[int, int] = (10, 5)
    model: str | None = None  # the model the server says served it (default: the asked one)
    cut_after: int | None = None  # send this many bytes of the body, then drop the connection
    stall: float = 0.0  # after the headers (and cut_after bytes), send nothing for this long
    chunk: int = 0  # send the body in pieces of this many bytes (0: at once)
    chunk_delay: float = 0.0  # between pieces (a body that trickles in)

    @property
    def streamed(self) -> bool:
        return (self.cut_after is not None or self.stall > 0 or self.chunk > 0
                or self.chunk_delay > 0)


Handler = Callable[[dict, int], Reply]


class ScriptedServer:
    def __init__(self, handler: Handler | list[Reply] | None = None) -> None:
        self.handler = handler if handler is not None else (lambda body, n: Reply())
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.batch_bodies: list[dict] = []
        self.polls_until_done = 1
        self.output_fault: list[Reply] = []  # served in turn for batch output downloads
        self.sent_bytes: list[int] = []  # body bytes written per streamed reply

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _reply_for(self, body: dict, n: int) -> Reply:
        if isinstance(self.handler, list):
            return self.handler[n] if n < len(self.handler) else self.handler[-1]
        return self.handler(body, n)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            n = len(self.requests)
            self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self._reply_for(body, n)
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.streamed:
                data = reply.raw_body if reply.raw_body is not None else \
                    json.dumps(self._completion(body, n, reply)).encode()
                return await self._stream(request, reply, data)
            if reply.raw_body is not None:
                return web.Response(status=reply.status, body=reply.raw_body,
                                    headers={"Content-Type": "application/json", **reply.headers})
            if reply.status != 200:
                err = {"error": {"message": f"scripted error {reply.status}", "type": "test"}}
                return web.json_response(err, status=reply.status, headers=reply.headers)
            return web.json_response(self._completion(body, n, reply), headers=reply.headers)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _stream(self, request: web.Request, reply: Reply, data: bytes
                      ) -> web.StreamResponse:
        """Headers (with the whole body's length), then the body as the reply's fault says."""
        resp = web.StreamResponse(status=reply.status, headers={
            "Content-Type": "application/json", **reply.headers})
        resp.content_length = len(data)
        await resp.prepare(request)
        end = len(data) if reply.cut_after is None else min(reply.cut_after, len(data))
        step = reply.chunk or max(end, 1)
        sent = 0
        try:
            if end == 0:
                await resp.write(b"")  # the headers go now
            for i in range(0, end, step):
                if _closing(request):
                    break
                if i and reply.chunk_delay:
                    await asyncio.sleep(reply.chunk_delay)
                await resp.write(data[i:i + step])
                sent = i + len(data[i:i + step])
            waited = 0.0
            while waited < reply.stall and not _closing(request):
                await asyncio.sleep(0.02)
                waited += 0.02
            if reply.cut_after is not None or _closing(request):
                if request.transport is not None:
                    request.transport.close()
                return resp
            await resp.write_eof()
        except (ConnectionError, RuntimeError):
            pass  # the client stopped reading (a cap), as it may
        finally:
            with self._lock:
                self.sent_bytes.append(sent)
        return resp

    def _completion(self, body: dict, n: int, reply: Reply) -> dict:
        p, c = reply.usage
        return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                "model": reply.model or body.get("model", "scripted"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.content}}],
                "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}}

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        field = form["file"]
        data = field.file.read() if hasattr(field, "file") else bytes(field)
        file_id = f"file-{len(self.files)}"
        self.files[file_id] = data
        return web.json_response({"id": file_id, "object": "file", "bytes": len(data),
                                  "created_at": 0, "filename": getattr(field, "filename", "x"),
                                  "purpose": form.get("purpose", "batch"), "status": "processed"})

    def _batch_object(self, batch: dict) -> dict:
        return {"id": batch["id"], "object": "batch", "endpoint": "/v1/chat/completions",
                "errors": None, "input_file_id": batch["input_file_id"],
                "completion_window": "24h", "status": batch["status"],
                "output_file_id": batch.get("output_file_id"), "error_file_id": None,
                "created_at": 0, "in_progress_at": None, "expires_at": None,
                "finalizing_at": None, "completed_at": None, "failed_at": None,
                "expired_at": None, "cancelling_at": None, "cancelled_at": None,
                "request_counts": {"total": batch["total"], "failed": 0,
                                   "completed": batch["total"] if batch["status"] == "completed"
                                   else 0},
                "metadata": batch.get("metadata")}

    async def _create_batch(self, request: web.Request) -> web.Response:
        body = await request.json()
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].decode()
                 .splitlines() if line.strip()]
        batch = {"id": f"batch_{len(self.batches)}", "input_file_id": body["input_file_id"],
                 "status": "validating", "total": len(lines), "lines": lines, "polls": 0,
                 "metadata": body.get("metadata")}
        self.batches[batch["id"]] = batch
        return web.json_response(self._batch_object(batch))

    async def _get_batch(self, request: web.Request) -> web.Response:
        batch = self.batches[request.match_info["batch_id"]]
        batch["polls"] += 1
        if batch["status"] != "completed":
            if batch["polls"] >= self.polls_until_done:
                out = []
                for line in batch["lines"]:
                    with self._lock:
                        n = len(self.requests) + len(self.batch_bodies)
                        self.batch_bodies.append(line["body"])
                    reply = self._reply_for(line["body"], n)
                    if reply.status != 200:
                        response = {"status_code": reply.status, "request_id": f"r{n}",
                                    "body": {"error": {"message": "scripted error"}}}
                    else:
                        response = {"status_code": 200, "request_id": f"r{n}",
                                    "body": self._completion(line["body"], n, reply)}
                    out.append({"id": f"br{n}", "custom_id": line["custom_id"],
                                "response": response, "error": None})
                file_id = f"file-{len(self.files)}"
                self.files[file_id] = ("\n".join(map(json.dumps, out)) + "\n").encode()
                batch["status"], batch["output_file_id"] = "completed", file_id
            else:
                batch["status"] = "in_progress"
        return web.json_response(self._batch_object(batch))

    async def _file_content(self, request: web.Request) -> web.StreamResponse:
        data = self.files[request.match_info["file_id"]]
        if self.output_fault:
            return await self._stream(request, self.output_fault.pop(0), data)
        return web.Response(body=data, content_type="application/octet-stream")

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list",
                                  "data": [{"id": "scripted", "object": "model"}]})

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/files", self._upload)
        app.router.add_post("/v1/batches", self._create_batch)
        app.router.add_get("/v1/batches/{batch_id}", self._get_batch)
        app.router.add_get("/v1/files/{file_id}/content", self._file_content)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    def start(self) -> "ScriptedServer":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def stop(self) -> None:
        if self._runner:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def __enter__(self) -> "ScriptedServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _closing(request: web.Request) -> bool:
    return request.transport is None or request.transport.is_closing()


def stalled(after: int = 0, seconds: float = 5.0) -> Reply:
    """Headers (and ``after`` bytes of the body), then nothing for ``seconds``."""
    return Reply(content="late", cut_after=after, stall=seconds)


def huge_reply(nbytes: int = 2 << 20, chunk: int = 16 << 10) -> Reply:
    """A server that ignores max_tokens: ``nbytes`` of reply text, sent in pieces, with its
    usage reported honestly (4 bytes a token)."""
    return Reply(content="x" * nbytes, usage=(10, nbytes // 4), chunk=chunk)


def last_user_message(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def json_reply(obj) -> Reply:
    return Reply(content=json.dumps(obj))

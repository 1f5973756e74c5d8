"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests: chosen replies and faults.

Each test gives a handler ``(body, n) -> Reply`` (n counts requests from 0) or a list of
replies served in order. The server records every request body and the most requests
it ever had in flight at once. It also implements the Files and Batch endpoints the
OpenAI SDK uses (upload, create, retrieve, download): a batch's lines go through the same
handler, and the batch completes after ``polls_until_done`` status checks.
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

    async def _file_content(self, request: web.Request) -> web.Response:
        return web.Response(body=self.files[request.match_info["file_id"]],
                            content_type="application/octet-stream")

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

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


def last_user_message(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def json_reply(obj) -> Reply:
    return Reply(content=json.dumps(obj))

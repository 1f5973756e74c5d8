"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests: chosen replies and faults.

Each test gives a handler ``(body, n) -> Reply`` (n counts requests from 0) or a list of
replies served in order. The server records every request body and the most requests
it ever had in flight at once.
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
            p, c = reply.usage
            return web.json_response({
                "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.content}}],
                "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
            }, headers=reply.headers)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
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

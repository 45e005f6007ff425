"""A page of another origin may not open a session on ``ditto-tui serve``: browsers let
any page open a websocket to 127.0.0.1, so the server checks the ``Origin``."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from ditto_tui.cli.serve import allowed_origins


def test_the_allowed_origins():
    assert allowed_origins("http://127.0.0.1:8000", "127.0.0.1", 8000) == {
        "http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"}
    assert allowed_origins("https://Review.Example.org", "0.0.0.0", 8000) == {
        "https://review.example.org"}


def test_a_page_elsewhere_is_refused_and_the_served_page_is_not(serve):
    served = serve()
    socket_url = served.url.replace("http://", "ws://") + "ws?width=100&height=30"
    own = served.url.rstrip("/")

    async def run() -> int:
        async with aiohttp.ClientSession() as session:
            for origin in ("http://evil.example", "http://evil.example:" + own.rsplit(":", 1)[1],
                           "null"):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(socket_url, headers={"Origin": origin})
                assert refused.value.status == 403
            ws = await session.ws_connect(socket_url, headers={"Origin": own})
            received = 0
            try:
                while received < 1000:  # the app draws its first screen
                    message = await asyncio.wait_for(ws.receive(), timeout=30)
                    assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)
                    if message.type == aiohttp.WSMsgType.BINARY:
                        received += len(message.data)
            finally:
                await ws.close()
            return received

    assert asyncio.run(run()) >= 1000

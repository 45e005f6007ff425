"""Stopping ``ditto-tui serve`` (Ctrl+C) ends the open sessions with it, at once."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import aiohttp


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


async def read_to_the_end(ws: aiohttp.ClientWebSocketResponse) -> None:
    async for _message in ws:
        pass


def test_ctrl_c_ends_the_server_and_every_session(serve):
    served = serve()
    socket_url = served.url.replace("http://", "ws://") + "ws?width=100&height=30"

    async def run() -> float:
        async with aiohttp.ClientSession() as session:
            tabs = [await session.ws_connect(socket_url, headers={"Origin": served.url[:-1]})
                    for _ in range(2)]
            for ws in tabs:  # each session's app has drawn
                while (await asyncio.wait_for(ws.receive(), 30)).type != aiohttp.WSMsgType.BINARY:
                    pass
            # as a browser does, read on (and so answer the server's closing of the tab)
            readers = [asyncio.create_task(read_to_the_end(ws)) for ws in tabs]
            start = time.monotonic()
            served.process.send_signal(signal.SIGINT)
            while served.process.poll() is None:
                assert time.monotonic() - start < 15, "the server is still running"
                await asyncio.sleep(0.05)
            took = time.monotonic() - start
            await asyncio.wait_for(asyncio.gather(*readers), 10)
            return took

    took = asyncio.run(run())
    assert served.process.returncode == 0 and took < 5
    deadline = time.monotonic() + 10
    while group_alive(served.process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_alive(served.process.pid), "a session's explorer outlived the server"

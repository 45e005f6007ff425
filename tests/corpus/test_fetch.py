"""fetch_url against a throwaway HTTP server bound to 127.0.0.1."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ditto_tui.corpus.fetch import FetchError, fetch_url, is_url

PAGE = b"<html><body><p class='x'>hello</p></body></html>"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path == "/page":
            self._send(200, PAGE, {"Content-Type": "text/html"})
        elif self.path == "/agent":
            self._send(200, self.headers.get("User-Agent", "").encode())
        elif self.path == "/big":
            self._send(200, b"x" * 5000)
        elif self.path == "/big-unannounced":
            self.send_response(200)
            self.end_headers()  # no Content-Length: read until the connection closes
            self.wfile.write(b"y" * 5000)
            self.close_connection = True
        elif self.path == "/slow":
            time.sleep(1.5)
            self._send(200, PAGE)
        elif self.path == "/moved":
            self._send(302, b"", {"Location": "/page"})
        elif self.path == "/drip":  # every byte in time, the whole far too late
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self._drip(b"z" * 100)
        elif self.path == "/drip-headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            self._drip(b"X-Slow: " + b"s" * 100 + b"\r\n\r\n")
        elif self.path.startswith("/to-ftp/"):
            self._send(302, b"", {"Location": f"ftp://127.0.0.1:{self.path[8:]}/x"})
        else:
            self._send(404, b"nothing here")


    def _drip(self, data: bytes) -> None:
        try:
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass  # the client gave up: that is the point


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # (a client gave up early:
            super().handle_error(request, client_address)  # some tests do, on purpose)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_a_page_comes_back_byte_for_byte(server: str) -> None:
    assert fetch_url(f"{server}/page") == PAGE


def test_the_user_agent_is_sent(server: str) -> None:
    assert fetch_url(f"{server}/agent", user_agent="probe/1") == b"probe/1"


def test_a_redirect_is_followed(server: str) -> None:
    assert fetch_url(f"{server}/moved") == PAGE


def test_a_missing_page_names_the_status_and_url(server: str) -> None:
    with pytest.raises(FetchError) as caught:
        fetch_url(f"{server}/nope")
    assert str(caught.value) == f"HTTP 404 Not Found for {server}/nope"


@pytest.mark.parametrize("path", ["/big", "/big-unannounced"])
def test_a_page_over_the_size_limit_is_refused(server: str, path: str) -> None:
    with pytest.raises(FetchError, match="larger than 1000 bytes"):
        fetch_url(f"{server}{path}", max_bytes=1000)
    assert len(fetch_url(f"{server}{path}", max_bytes=5000)) == 5000


def test_a_slow_server_times_out(server: str) -> None:
    with pytest.raises(FetchError, match=r"timed out after 0.3 s"):
        fetch_url(f"{server}/slow", timeout=0.3)


def test_a_refused_connection_is_reported() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(FetchError, match="connection refused"):
        fetch_url(f"http://127.0.0.1:{port}/", timeout=2)


def test_an_unresolvable_host_is_reported() -> None:
    with pytest.raises(FetchError, match="cannot resolve host 'no-such-host.invalid'"):
        fetch_url("http://no-such-host.invalid/", timeout=5)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "example.com"])
def test_only_http_urls_are_fetched(url: str) -> None:
    with pytest.raises(FetchError, match="not an http"):
        fetch_url(url)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://example.com", True),
        ("HTTPS://example.com/a?b=c", True),
        ("https://", False),
        ("example.com/index.html", False),
        ("docs/index.html", False),
        ("file:///tmp/x.html", False),
        ("http://[::1", False),
    ],
)
def test_is_url(text: str, expected: bool) -> None:
    assert is_url(text) is expected


@pytest.mark.parametrize("path", ["/drip", "/drip-headers"])
def test_timeout_bounds_the_whole_fetch(server: str, path: str) -> None:
    """A server that answers each read in time but never finishes is cut at --timeout."""
    start = time.monotonic()
    with pytest.raises(FetchError, match=r"timed out after 0.5 s"):
        fetch_url(f"{server}{path}", timeout=0.5)
    assert time.monotonic() - start < 5  # the drip lasts 10 s


def test_a_redirect_to_ftp_is_refused_before_connecting(server: str) -> None:
    with socket.socket() as ftp:
        ftp.bind(("127.0.0.1", 0))
        ftp.listen(1)
        ftp.setblocking(False)
        port = ftp.getsockname()[1]
        with pytest.raises(FetchError, match=f"redirected to a non-http\\(s\\) URL: ftp://127.0.0.1:{port}/x"):
            fetch_url(f"{server}/to-ftp/{port}", timeout=3)
        with pytest.raises(BlockingIOError):
            ftp.accept()  # nobody ever connected

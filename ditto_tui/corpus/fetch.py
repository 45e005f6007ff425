"""Fetch a web page's bytes for the html-distance comparison ("compare pages by URL").

``fetch_url`` is a small, strict wrapper around ``urllib.request``: only http and https
(a redirect elsewhere is refused before any connection to it), redirects followed (urllib's
default limit), the body read up to ``max_bytes``, the whole fetch bounded by ``timeout``
(a server that drips bytes cannot hold it longer), and every failure raised as
``FetchError`` with a one-line message fit to show a user as is.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_USER_AGENT", "FetchError", "fetch_url", "is_url"]

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
DEFAULT_USER_AGENT = "ditto-tui/0.1 (+html-distance)"
_SCHEMES = ("http", "https")
_CHUNK = 64 * 1024


class FetchError(Exception):
    """A page could not be fetched; ``str(error)`` is a one-line message naming the URL."""


def is_url(text: str) -> bool:
    """True when ``text`` looks like an http(s) URL with a host (``http://x/...``)."""
    try:
        parts = urllib.parse.urlsplit(text.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in _SCHEMES and bool(parts.netloc)


def fetch_url(
    url: str,
    *,
    timeout: float = 15.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    user_agent: str = DEFAULT_USER_AGENT,
) -> bytes:
    """GET ``url`` and return the response body (after redirects), at most ``max_bytes``.

    Raises ``FetchError`` for: a scheme other than http/https (also as a redirect target,
    refused before connecting), a host name that does not resolve, a refused or failed
    connection, a fetch not done within ``timeout`` seconds (the whole of it: connecting,
    redirects, headers and body), an HTTP error status ("HTTP 404 Not
    Found for <url>"), and a body larger than ``max_bytes``. The body is returned as
    sent (no decompression, no charset decoding).
    """
    if not is_url(url):
        raise FetchError(f"not an http(s) URL: {url}")
    request = urllib.request.Request(
        url, headers={"User-Agent": user_agent, "Accept-Encoding": "identity"}
    )
    deadline = _Deadline(timeout)
    opener = urllib.request.OpenerDirector()
    for handler in (
        _DeadlineHTTPHandler(deadline),
        _DeadlineHTTPSHandler(deadline),
        _HTTPOnlyRedirectHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    try:
        with opener.open(request, timeout=timeout) as response:
            final = response.geturl()
            if urllib.parse.urlsplit(final).scheme.lower() not in _SCHEMES:
                raise FetchError(f"redirected to a non-http(s) URL: {final}")
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                raise FetchError(_too_large(url, max_bytes))
            return _read_limited(response, url, max_bytes, deadline)
    except FetchError:
        raise
    except urllib.error.HTTPError as error:
        reason = error.reason or http.client.responses.get(error.code, "")
        raise FetchError(f"HTTP {error.code} {reason} for {url}".replace("  ", " ")) from None
    except urllib.error.URLError as error:
        if deadline.expired:
            raise FetchError(f"timed out after {timeout:g} s fetching {url}") from None
        raise FetchError(_describe(error.reason, url, timeout)) from None
    except (OSError, http.client.HTTPException, ValueError) as error:
        if deadline.expired or isinstance(error, TimeoutError):
            raise FetchError(f"timed out after {timeout:g} s fetching {url}") from None
        raise FetchError(f"fetching {url} failed: {_one_line(error)}") from None
    finally:
        deadline.cancel()


class _Deadline:
    """One fetch's overall time limit: when it passes, every socket of the fetch is shut
    down, which ends any read or connect blocked on it at once."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if not self.expired:
                return
        self._shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


def _deadline_connection(base: type[http.client.HTTPConnection], deadline: _Deadline) -> Any:
    class Connection(base):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            if deadline.expired:
                raise TimeoutError("the fetch timed out")
            super().connect()
            deadline.add(self.sock)

    return Connection


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._connection = _deadline_connection(http.client.HTTPConnection, deadline)

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._connection, req)


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._connection = _deadline_connection(http.client.HTTPSConnection, deadline)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._connection, req, context=self._context)  # type: ignore[attr-defined]


class _HTTPOnlyRedirectHandler(urllib.request.HTTPRedirectHandler):
    """urllib's redirects, refusing any target that is not http(s) before connecting."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        target = urllib.parse.urljoin(req.full_url, newurl)
        if urllib.parse.urlsplit(target).scheme.lower() not in _SCHEMES:
            raise FetchError(f"redirected to a non-http(s) URL: {target}")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _read_limited(
    response: http.client.HTTPResponse, url: str, max_bytes: int, deadline: _Deadline
) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        if deadline.expired:
            raise TimeoutError("the fetch timed out")
        chunk = response.read1(_CHUNK)
        if not chunk:
            if deadline.expired:  # the end was the deadline shutting the socket
                raise TimeoutError("the fetch timed out")
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(_too_large(url, max_bytes))
        chunks.append(chunk)


def _too_large(url: str, max_bytes: int) -> str:
    return f"page larger than {max_bytes} bytes: {url}"


def _describe(reason: object, url: str, timeout: float) -> str:
    host = urllib.parse.urlsplit(url).hostname or url
    if isinstance(reason, socket.gaierror):
        return f"cannot resolve host {host!r} for {url}"
    if isinstance(reason, ConnectionRefusedError):
        return f"connection refused by {host} for {url}"
    if isinstance(reason, TimeoutError):
        return f"timed out after {timeout:g} s fetching {url}"
    if isinstance(reason, str) and "timed out" in reason:
        return f"timed out after {timeout:g} s fetching {url}"
    return f"fetching {url} failed: {_one_line(reason)}"


def _one_line(reason: object) -> str:
    text = str(reason).strip() or type(reason).__name__
    return " ".join(text.split())

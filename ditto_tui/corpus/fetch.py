"""Fetch a web page's bytes for the html-distance comparison ("compare pages by URL").

``fetch_url`` is a small, strict wrapper around ``urllib.request``: only http and https,
redirects followed (urllib's default limit), the body read up to ``max_bytes``, and every
failure raised as ``FetchError`` with a one-line message fit to show a user as is.
"""

from __future__ import annotations

import http.client
import socket
import urllib.error
import urllib.parse
import urllib.request

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

    Raises ``FetchError`` for: a scheme other than http/https (also after a redirect),
    a host name that does not resolve, a refused or failed connection, no answer within
    ``timeout`` seconds (per blocking operation), an HTTP error status ("HTTP 404 Not
    Found for <url>"), and a body larger than ``max_bytes``. The body is returned as
    sent (no decompression, no charset decoding).
    """
    if not is_url(url):
        raise FetchError(f"not an http(s) URL: {url}")
    request = urllib.request.Request(
        url, headers={"User-Agent": user_agent, "Accept-Encoding": "identity"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            final = response.geturl()
            if urllib.parse.urlsplit(final).scheme.lower() not in _SCHEMES:
                raise FetchError(f"redirected to a non-http(s) URL: {final}")
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                raise FetchError(_too_large(url, max_bytes))
            return _read_limited(response, url, max_bytes)
    except FetchError:
        raise
    except urllib.error.HTTPError as error:
        reason = error.reason or http.client.responses.get(error.code, "")
        raise FetchError(f"HTTP {error.code} {reason} for {url}".replace("  ", " ")) from None
    except urllib.error.URLError as error:
        raise FetchError(_describe(error.reason, url, timeout)) from None
    except TimeoutError:
        raise FetchError(f"timed out after {timeout:g} s fetching {url}") from None
    except (OSError, http.client.HTTPException, ValueError) as error:
        raise FetchError(f"fetching {url} failed: {_one_line(error)}") from None


def _read_limited(response: http.client.HTTPResponse, url: str, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = response.read(_CHUNK)
        if not chunk:
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

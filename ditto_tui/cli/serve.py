"""``serve``: the explorer in a browser tab, served by textual-serve.

``ditto-tui serve PATH [--host H] [--port P] [explore options]`` listens on ``H:P``
(127.0.0.1:8000 by default) and runs, for every browser tab that opens the page, a process
of its own: ``python -m ditto_tui explore PATH [explore options]`` with Textual's web
driver (:func:`child_command`). The tabs share the folder, its fingerprint cache and its
review store, each a SQLite database that one process writes at a time (see
:mod:`ditto_tui.corpus.review`): what one tab decides shows in the others within about a
second, and of two decisions on the same document the later one stays.

Binding an address other than a loopback one takes an explicit ``--host`` and prints one
warning line: whoever reaches the port can act on the files (``--read-only`` lets them
only look). A session's websocket is refused to a page of another origin
(:func:`allowed_origins`): browsers let any web page open a websocket to 127.0.0.1, and a
page elsewhere (or a name of its own made to resolve to this machine) must not type keys
into the explorer. The review store is created (and with ``--fresh`` set aside) once, here,
before the first tab opens; the tabs never get ``--fresh``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

from ditto_tui.cli.argtypes import integer
from ditto_tui.cli.errors import CommandError, UsageError
from ditto_tui.cli.explore import add_explore_options
from ditto_tui.cli.options import Parser
from ditto_tui.cli.output import PROG, Output, warn
from ditto_tui.core.text.display import escape_controls

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = [
    "add_parsers",
    "allowed_origins",
    "child_command",
    "cmd_serve",
    "explore_argv",
    "is_loopback",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: The options of ``serve`` itself, never handed to the tabs' explorers.
_SERVER_ONLY = ("fresh",)


def add_parsers(sub: Subcommands) -> None:
    """Add ``serve``."""
    p = sub.add_parser(
        "serve", help="serve the explorer to web browsers (one session per tab)",
        description="Serve the explorer on PATH as a web page: every browser tab gets its "
        "own session on the same folder, fingerprint cache and review store.")
    p.add_argument("path", metavar="PATH", help="folder to explore")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}: this machine only; "
                   "any other lets whoever reaches the port act on the files)")
    p.add_argument("--port", type=integer, default=DEFAULT_PORT,
                   help=f"port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--public-url", default=None, metavar="URL",
                   help="the address browsers use to reach the server (behind a proxy; "
                   "default http://HOST:PORT)")
    add_explore_options(p)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def explore_argv(args: argparse.Namespace) -> list[str]:
    """The explore options of ``args`` as command-line words (those not at their default,
    less :data:`_SERVER_ONLY`), for the tabs' ``explore`` command."""
    parser = Parser(add_help=False)
    add_explore_options(parser)
    words: list[str] = []
    for action in parser._actions:  # argparse has no public listing of its options
        if not action.option_strings or action.dest in _SERVER_ONLY:
            continue
        value = vars(args)[action.dest]
        if value == action.default:
            continue
        flag = max(action.option_strings, key=len)  # the long spelling
        if isinstance(action, argparse._StoreTrueAction):
            words.append(flag)
        elif isinstance(value, list):
            for item in value:
                words += [flag, str(item)]
        else:
            words += [flag, str(value)]
    return words


def child_command(root: str, options: list[str]) -> str:
    """The shell command textual-serve runs for each tab: this Python, this package's
    ``explore`` on ``root`` (absolute) with ``options``; every word quoted."""
    return shlex.join([sys.executable, "-m", "ditto_tui", "explore", *options, "--", root])


def allowed_origins(public_url: str, host: str, port: int) -> frozenset[str]:
    """The ``Origin`` values whose pages may open a session: the public URL's, and on a
    loopback address its other loopback spellings (``localhost``, ``127.0.0.1``,
    ``[::1]``) at the same port."""
    from urllib.parse import urlsplit

    parts = urlsplit(public_url)
    origins = {f"{parts.scheme}://{parts.netloc}".lower()}
    if is_loopback(host):
        origins |= {f"http://{name}:{port}" for name in ("localhost", "127.0.0.1", "[::1]")}
    return frozenset(origins)


def _public_url(host: str, port: int) -> str:
    import socket

    if host in ("0.0.0.0", "::", ""):  # every address: name the machine, not the wildcard
        host = socket.gethostname()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def _prepare_review(root: str, args: argparse.Namespace) -> None:
    """Create the review store once (and set it aside with ``--fresh``) before any tab
    opens it; notices go to stderr. A cache folder inside the corpus is refused here, as
    ``explore`` refuses it; a store that cannot be written is the tabs' to say."""
    from ditto_tui.corpus.review import ReviewStore

    notices: list[str] = []
    try:
        ReviewStore.for_root(root, cache_dir=args.cache, fresh=args.fresh,
                             notices=notices).close()
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    except OSError:
        return
    for notice in notices:
        warn(notice)


def cmd_serve(args: argparse.Namespace, out: Output) -> int:
    if not os.path.isdir(args.path):
        raise CommandError(f"{args.path}: not a folder")
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is out of range: 1..65535")
    if args.read_only and args.fresh:
        raise CommandError("--fresh sets the review aside: not in a --read-only session")
    if args.screenshots is not None:
        args.screenshots = os.path.abspath(args.screenshots)
    root = os.path.abspath(args.path)
    if not is_loopback(args.host):
        if args.read_only:
            warn(f"warning: serving on {args.host}: anyone who can reach port {args.port} "
                 f"can read the documents in {root}")
        else:
            warn(f"warning: serving on {args.host}: anyone who can reach port {args.port} "
                 f"can act on the files in {root} (trash, move, link); --read-only prevents it")
    _prepare_review(root, args)
    command = child_command(root, explore_argv(args))
    public_url = args.public_url or _public_url(args.host, args.port)
    try:
        _serve(command, args.host, args.port, public_url, root=root, read_only=args.read_only,
               origins=allowed_origins(public_url, args.host, args.port))
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: "
                           f"{exc.strerror or exc}") from None
    return 0


def _serve(command: str, host: str, port: int, public_url: str, *, root: str,
           read_only: bool, origins: frozenset[str]) -> None:
    # here, not at the top: every command imports this module, and asyncio brings
    # concurrent.futures, which a command without worker processes never loads
    import asyncio
    import logging

    from aiohttp import web
    from textual_serve.server import Server

    sessions: set[asyncio.Task[Any]] = set()

    class _Server(Server):
        """textual-serve's server, with one line of our own at start instead of its
        banner (which would show the whole command), and without a log line for every
        request (each page load is four); errors are still logged. Stopping it ends the
        sessions at once (textual-serve left them running until the browser let go)."""

        def initialize_logging(self) -> None:
            super().initialize_logging()
            logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """A session for a page of an allowed origin (a client that is no browser
            sends none, and gets one)."""
            origin = request.headers.get("Origin")
            if origin is not None and origin.lower() not in origins:
                raise web.HTTPForbidden(text="ditto-tui: a page of another origin may not "
                                        "open a session")
            task = asyncio.current_task()
            if task is not None:
                sessions.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                sessions.discard(task)

        async def on_shutdown(self, app: web.Application) -> None:
            """Ctrl+C: end every session (its explorer quits and saves its view)."""
            running = list(sessions)
            for task in running:
                task.cancel()
            if running:
                await asyncio.wait(running, timeout=10)

        async def on_startup(self, app: Any) -> None:
            mode = " (read-only)" if read_only else ""
            print(f"{PROG}: serving {escape_controls(root)}{mode} at {self.public_url} "
                  "(one session per browser tab; Ctrl+C stops)", flush=True)

    _Server(command, host=host, port=port, title=PROG, public_url=public_url).serve()

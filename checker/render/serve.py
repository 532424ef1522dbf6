"""`driftboard serve`: preview a built site on http://127.0.0.1:PORT/ (loopback only)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path

import click

from checker.format.errors import UsageError


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        click.echo(f"{self.address_string()} {format % args}", err=True)


def make_server(out: Path, port: int) -> http.server.ThreadingHTTPServer:
    """An HTTP server for `out` bound to 127.0.0.1 (port 0 picks a free port).

    Raises:
        UsageError: the site has not been built, or the port is taken.
    """
    if not (out / "index.html").is_file():
        raise UsageError(f"{out}: no built site here; run `driftboard build --out {out}` first")
    handler = functools.partial(_QuietHandler, directory=str(out))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror})") from None


def serve_site(out: Path, port: int) -> int:
    """Serve `out` until interrupted; returns 0."""
    server = make_server(out, port)
    click.echo(f"Serving {out} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl+C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("Stopped.")
    finally:
        server.server_close()
    return 0

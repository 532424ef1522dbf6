"""Run logs stored outside the repository by content address: fetched, bounded, checked, kept once per machine.

A manifest entry under `blobs:` names a log of `files:` by the SHA-256 and size of its **stored
bytes** (the file as uploaded: compressed when its name ends `.jsonl.zst` / `.jsonl.gz`) and a
URL. The digest results and citations name (`log_sha256`) stays that of the decompressed lines,
as for a committed log: for a plain `.jsonl` the two are the same number; for a compressed one
the manifest's digest pins the exact uploaded bytes and `log_sha256` is computed from them after
the check, so a blob that is replaced after the pull request was checked is a finding, never a
silently different figure.

What a fetch may cost is bounded before a byte is read as a log:

* the URL is `https://` (the default, and the only scheme in production: a GitHub release asset,
  a Git LFS object through `media.githubusercontent.com`, Zenodo, any static host), and its
  certificate is checked against the system's certificate authorities (Python's default context);
* an `https://` host must be public: a literal address or a name that resolves to a loopback,
  private, link-local (cloud metadata), reserved or multicast address is refused, and the
  connection goes to the address that was checked (a name that resolves differently between the
  check and the connection cannot redirect the request inward);
* two switches for tests, benchmarks and an operator's own machine, read from the environment of
  the process (which a submission cannot set; the publish and pull-request workflows set neither,
  and `tests/test_blobs.py` checks that no workflow names them):
  `DRIFTBOARD_ALLOW_LOOPBACK_HTTP=1` takes a **loopback** host (`127.0.0.1`, `::1`, `localhost`;
  a name only when every address it resolves to is loopback) over `http://` or `https://`: the
  tests and `driftboard bench scale` serve blobs from a server they start on the loopback
  interface. Loopback traffic never leaves the machine and the digest is checked whatever the
  transport, so the switch weakens nothing a submission controls; private, link-local and every
  other inward address stay refused with it. Without it a manifest naming `http://127.0.0.1:...`
  or `https://127.0.0.1:...` is refused outright (no request to the runner's own services).
  `DRIFTBOARD_BLOB_CA_FILE=<PEM file>` trusts the certificate authorities in that file for blob
  fetches, besides the system's (a test's self-signed authority, an operator's mirror); nothing
  else in the process is affected;
* a redirect is followed only to a URL with the same scheme that passes the same rule (at most
  `MAX_REDIRECTS`): never from https to http, never to another scheme;
* connect and each read time out after `READ_TIMEOUT_S`, and the whole fetch after `DEADLINE_S`;
* at most the declared size plus one byte is read (the extra byte detects an overrun); a
  `Content-Length` above the declared size refuses the blob before its body is read;
* the bytes go to a temporary file in the store, hashed as they come; only a blob whose size and
  SHA-256 are the declared ones is renamed into the store.

The store is `<cache folder>/blobs/sha256/<hex><suffix>` (`$DRIFTBOARD_CACHE_DIR` honoured, the
verification cache's folder), so the same blob is fetched once per machine. A stored blob is never
taken on trust: its size and SHA-256 are checked again each time it is used (a corrupt or edited
one is fetched again).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.client
import ipaddress
import os
import socket
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from checker.format.logio import file_sha256
from checker.format.schema.manifest import BlobRef

READ_TIMEOUT_S = 20.0
"""Longest wait to connect, and for any one read (seconds)."""
DEADLINE_S = 600.0
"""Longest one blob's fetch may take in all, redirects included (seconds)."""
MAX_REDIRECTS = 5
CHUNK = 1 << 20
LOOPBACK_ENV = "DRIFTBOARD_ALLOW_LOOPBACK_HTTP"
"""Set to `1` to take `http://` and `https://` URLs to a loopback host (tests, benchmarks; see the module docstring)."""
CA_FILE_ENV = "DRIFTBOARD_BLOB_CA_FILE"
"""A PEM file of certificate authorities trusted for blob fetches besides the system's (see the module docstring)."""
LOOPBACK_NAMES = ("localhost",)


class BlobError(Exception):
    """A referenced log that could not be fetched or is not the declared bytes (the message says what to do)."""


@dataclass(frozen=True)
class Limits:
    """How long a fetch may wait (tests shorten them)."""

    read_timeout_s: float = READ_TIMEOUT_S
    deadline_s: float = DEADLINE_S


def _loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _loopback_allowed() -> bool:
    return os.environ.get(LOOPBACK_ENV) == "1"


def _inward(address: str) -> bool:
    """An address a submission must not make the checker reach (anything but a global unicast address)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return not ip.is_global or ip.is_multicast


def public_address(host: str, port: int) -> str:
    """The address to connect to for `host`: its first resolved address, when every one is public.

    Raises:
        BlobError: the host does not resolve, or resolves (or is) an inward address.
    """
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise BlobError(f"{host} does not resolve ({exc}); check the URL") from None
    addresses = [str(info[4][0]) for info in found]
    if addresses and _loopback_allowed() and all(_loopback(a.split("%", 1)[0]) for a in addresses):
        return addresses[0]  # the loopback switch (module docstring): only a name that is loopback alone
    inward = [a for a in addresses if _inward(a)]
    if not addresses or inward:
        raise BlobError(f"{host} resolves to {', '.join(inward) or 'nothing'}, not a public address: a blob is "
                        "fetched from a public https:// host only")
    return addresses[0]


def url_problem(url: str) -> str | None:
    """Why a blob URL is refused (None: it may be fetched)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port  # a malformed port raises here
    except ValueError:
        return "is not a valid URL"
    if parts.username or parts.password:
        return "carries credentials: a blob URL must be public"
    if not host:
        return "has no host"
    if parts.scheme == "https":
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            return None  # a name: checked when it is resolved, just before the connection
        if _inward(host) and not (_loopback(host) and _loopback_allowed()):
            return f"names the address {literal}, not a public host"
        return None
    if parts.scheme == "http" and _loopback(host) and _loopback_allowed():
        return None
    if parts.scheme == "http":
        return "is http://: blobs are fetched over https:// only (upload the log where it is served over HTTPS)"
    return f"has the scheme {parts.scheme!r}: blobs are fetched over https:// only"


class BlobStore:
    """The content-addressed store of fetched blobs under `root` (`<cache>/blobs`)."""

    def __init__(self, root: Path, limits: Limits | None = None) -> None:
        self.root = root
        self.limits = limits or Limits(READ_TIMEOUT_S, DEADLINE_S)  # the module's, as they are now
        self.fetched = 0
        """Blobs downloaded by this store (a warm store downloads none)."""

    def path(self, ref: BlobRef, suffix: str) -> Path:
        """Where a blob with this digest and storage suffix is kept."""
        return self.root / "sha256" / f"{ref.sha256}{suffix}"

    def get(self, ref: BlobRef, suffix: str) -> Path:
        """The stored blob, fetched first when absent (or when the stored copy is not the declared bytes).

        Raises:
            BlobError: unreachable, too slow, too large or small, or not the declared digest.
        """
        target = self.path(ref, suffix)
        if target.is_file() and _matches(target, ref):
            return target
        problem = url_problem(ref.url)
        if problem is not None:
            raise BlobError(f"its url {problem}")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
        try:
            size, digest = self._download(ref, tmp)
            if size != ref.size:
                raise BlobError(f"the download from {ref.url} is {size:,} bytes, not the declared {ref.size:,}"
                                f"{' (truncated)' if size < ref.size else ' (more than declared: not read further)'}: "
                                "upload the log again, or correct `size` in blobs:")
            if digest != ref.sha256:
                raise BlobError(f"the bytes at {ref.url} have SHA-256 {digest[:12]}…, not the declared "
                                f"{ref.sha256[:12]}…: the blob changed after it was declared (or the digest is wrong); "
                                "restore the uploaded file, or run again and declare a new log")
            os.replace(tmp, target)
            self.fetched += 1
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
        return target

    def _download(self, ref: BlobRef, out: Path) -> tuple[int, str]:
        """(bytes written, their SHA-256): at most the declared size + 1, within the deadline."""
        deadline = time.monotonic() + self.limits.deadline_s
        url = ref.url
        for _hop in range(MAX_REDIRECTS + 1):
            conn, sock, response = self._request(url, deadline)
            try:
                if response.status in (301, 302, 303, 307, 308):
                    url = self._redirect(url, response.getheader("Location"))
                    continue
                if response.status != 200:
                    raise BlobError(f"{ref.url} answered HTTP {response.status} {response.reason}: the blob is not "
                                    "reachable there; upload it again or correct its url")
                length = response.getheader("Content-Length")
                if length is not None and length.isdigit() and int(length) > ref.size:
                    raise BlobError(f"{ref.url} announces {int(length):,} bytes, more than the declared {ref.size:,}: "
                                    "not downloaded; correct `size` in blobs:, or upload the right file")
                return self._body(response, sock, ref.size + 1, out, deadline, ref.url)
            finally:
                response.close()
                conn.close()
        raise BlobError(f"{ref.url}: more than {MAX_REDIRECTS} redirects; give the blob's final URL")

    def _redirect(self, url: str, location: str | None) -> str:
        if not location:
            raise BlobError(f"{url} redirects without a Location")
        nxt = urljoin(url, location)
        if urlsplit(nxt).scheme != urlsplit(url).scheme:
            raise BlobError(f"{url} redirects to {nxt}: a redirect to another scheme is never followed "
                            "(blobs are fetched over https:// only)")
        problem = url_problem(nxt)
        if problem is not None:
            raise BlobError(f"{url} redirects to {nxt}, which {problem}")
        return nxt

    def _request(self, url: str, deadline: float
                 ) -> tuple[http.client.HTTPConnection, socket.socket | None, http.client.HTTPResponse]:
        """(the connection, its socket, the response to a GET of `url`); the socket outlives a closing connection."""
        parts = urlsplit(url)
        timeout = self._timeout(deadline, url)
        conn: http.client.HTTPConnection
        if parts.scheme == "https":
            host, port = parts.hostname or "", parts.port or 443
            address = public_address(host, port)
            conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=tls_context())
            # connect to the address checked above; the certificate is still checked against the host name
            conn._create_connection = (  # type: ignore[attr-defined]
                lambda _addr, wait=None, source=None: socket.create_connection((address, port), wait, source))
        else:
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
        path = parts.path or "/"
        if parts.query:
            path += f"?{parts.query}"
        try:
            conn.request("GET", path, headers={"Accept-Encoding": "identity", "User-Agent": "driftboard-checker"})
            sock = conn.sock  # (an HTTP/1.0 answer closes the connection object, not the socket the body is read from)
            return conn, sock, conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise BlobError(_network_message(url, exc)) from None

    def _timeout(self, deadline: float, url: str) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BlobError(self._late(url))
        return min(self.limits.read_timeout_s, left)

    def _late(self, url: str) -> str:
        return (f"{url}: the fetch took longer than {self.limits.deadline_s:g} s in all; try again later, "
                "or host the blob where it downloads faster")

    def _body(self, response: http.client.HTTPResponse, sock: socket.socket | None, most: int, out: Path,
              deadline: float, shown: str) -> tuple[int, str]:
        sha = hashlib.sha256()
        got = 0
        with out.open("wb") as fh:
            while got < most:
                left = self._timeout(deadline, shown)  # raises past the deadline
                if sock is not None:
                    sock.settimeout(left)
                try:
                    chunk = response.read1(min(CHUNK, most - got))  # one receive: the deadline is checked between
                except (OSError, http.client.HTTPException) as exc:
                    if isinstance(exc, TimeoutError) and time.monotonic() >= deadline - 0.01:
                        raise BlobError(self._late(shown)) from None  # the read's timeout was the deadline's rest
                    raise BlobError(_network_message(shown, exc)) from None
                if not chunk:
                    break
                got += len(chunk)
                sha.update(chunk)
                fh.write(chunk)
        return got, sha.hexdigest()


def tls_context() -> ssl.SSLContext:
    """The TLS context of blob fetches: the system's authorities, and those of `CA_FILE_ENV`'s file when it is set.

    Raises:
        BlobError: `CA_FILE_ENV` names no readable PEM file of certificates.
    """
    ca_file = os.environ.get(CA_FILE_ENV)
    if not ca_file:
        return _context(None)
    try:
        return _context(Path(ca_file).read_text(encoding="ascii"))
    except (OSError, UnicodeError, ssl.SSLError) as exc:
        raise BlobError(f"{CA_FILE_ENV}={ca_file} is not a readable PEM file of certificate authorities "
                        f"({exc}); point it at one, or unset it") from None


@functools.lru_cache(maxsize=4)
def _context(extra_pem: str | None) -> ssl.SSLContext:
    """A context made once per process and set of extra authorities.

    Loading the system's authorities takes about 0.1 s: once per blob, it would dominate fetching a thousand small blobs.
    """
    context = ssl.create_default_context()
    if extra_pem is not None:
        context.load_verify_locations(cadata=extra_pem)
    return context


def _network_message(url: str, exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"{url}: the host's TLS certificate is not trusted ({exc.verify_message or exc}); a blob must be "
                "served over HTTPS with a valid certificate for its host name: upload it to a host that has one")
    if isinstance(exc, TimeoutError | socket.timeout):
        return f"{url}: no answer within the time limit ({exc or 'timed out'}); try again later, or host the blob elsewhere"
    if isinstance(exc, http.client.IncompleteRead):
        return f"{url}: the connection closed before the whole blob arrived (truncated download); try again"
    return f"{url}: unreachable ({exc.__class__.__name__}: {exc}); check the url, or try again later"


def _matches(path: Path, ref: BlobRef) -> bool:
    """A stored blob is still the declared bytes (size, then SHA-256)."""
    try:
        if path.stat().st_size != ref.size:
            return False
        return file_sha256(path) == ref.sha256
    except OSError:
        return False


def default_store(cache_dir: Path) -> BlobStore:
    """The store under a verification cache folder."""
    return BlobStore(cache_dir / "blobs")


__all__ = ["CA_FILE_ENV", "DEADLINE_S", "LOOPBACK_ENV", "READ_TIMEOUT_S", "BlobError", "BlobStore", "Limits", "default_store",
           "tls_context", "url_problem"]

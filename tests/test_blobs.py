"""Run logs stored outside the repository by content address (`blobs:`, `checker.stages.fetch`).

Every test serves blobs from an `http.server` it starts on 127.0.0.1 (no outside network), with
`DRIFTBOARD_ALLOW_LOOPBACK_HTTP=1` (the only way a loopback host is taken) and its own blob store
under tmp_path (`DRIFTBOARD_CACHE_DIR`); plain http, except the TLS tests, which serve over real
TLS with a certificate authority made in the test (`trustme`), trusted through
`DRIFTBOARD_BLOB_CA_FILE`.

* A shipped submission whose logs are moved out by `driftboard reference` (plain, and compressed
  first) verifies to byte-identical results apart from the manifest's recorded `blobs:`, and
  `validate` reads the referenced logs too.
* The store fetches a blob once per machine; a stored copy is checked again before each use.
* Each way a blob can be wrong is one finding, the run UNVERIFIED, exit 1, no traceback, in bounded
  time: changed after the check, wrong size, wrong digest, truncated, a slow server, an unreachable
  host, an http URL without the switch, a redirect to another scheme, a certificate not trusted;
  a redirect within the allowed scheme is followed.
* Over TLS the blob verifies when its certificate authority is trusted; no workflow sets either switch.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trustme
import yaml
from conftest import REPO

from checker.stages import fetch
from checker.stages.fetch import BlobError, public_address, url_problem

EXAMPLES = REPO / "submissions" / "drift-bench-examples"
PROBLEMS = REPO / "problems" / "drift-bench-v1"

Route = Callable[[http.server.BaseHTTPRequestHandler], None]


class Server:
    """Files and behaviours served on 127.0.0.1 (path -> bytes, or a function answering the request)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.files: dict[str, bytes | Route] = {}
        self.hits: dict[str, int] = {}
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.hits[self.path] = owner.hits.get(self.path, 0) + 1
                what = owner.files.get(self.path)
                if what is None:
                    self.send_error(404)
                elif callable(what):
                    what(self)
                else:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(what)))
                    self.end_headers()
                    self.wfile.write(what)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:  # the handshake happens in the handler's thread (a failed one ends that request only)
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True, do_handshake_on_connect=False)
            self.httpd.handle_error = lambda *_: None  # type: ignore[method-assign]  # a refused handshake is expected
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Server]:
    monkeypatch.setenv(fetch.LOOPBACK_ENV, "1")
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "cache"))
    s = Server()
    try:
        yield s
    finally:
        s.close()


def _verify(run_line, folder: Path, out: Path, *extra: str):
    return run_line(["verify", str(folder), "--problems", str(PROBLEMS), "--out", str(out), "--format", "json",
                     *extra])


def _referenced(run_line, tmp_path: Path, server: Server, compress: str | None = None) -> Path:
    """A copy of the shipped examples whose logs are moved out by `driftboard reference` and served by `server`."""
    folder = tmp_path / "ref" / "drift-bench-examples"
    shutil.copytree(EXAMPLES, folder)
    if compress:
        assert run_line(["compress", str(folder), "--format", compress]).exit_code == 0
    upload = tmp_path / "upload"
    res = run_line(["reference", str(folder), "--url-base", server.base, "--upload-dir", str(upload)])
    assert res.exit_code == 0, res.output
    assert not list((folder / "runs").iterdir())
    for f in sorted(upload.iterdir()):
        server.files[f"/{f.name}"] = f.read_bytes()
    return folder


def _results(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _manifest(folder: Path) -> dict:
    return yaml.safe_load((folder / "submission.yaml").read_text(encoding="utf-8"))


def _write_manifest(folder: Path, doc: dict) -> None:
    (folder / "submission.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize("compress", [None, "zstd"])
def test_a_referenced_submission_verifies_publishes_and_cites_as_the_committed_one(
        run_line, tmp_path: Path, server: Server, compress: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain" / "drift-bench-examples"
    shutil.copytree(EXAMPLES, plain)
    if compress:
        assert run_line(["compress", str(plain), "--format", compress]).exit_code == 0
    committed = {p.name: p.read_bytes() for p in (plain / "runs").iterdir()}
    ref = _referenced(run_line, tmp_path, server, compress)
    blobs = _manifest(ref)["blobs"]
    assert len(blobs) == 4
    for rel, entry in blobs.items():  # the manifest names the stored bytes: the committed file's digest and size
        stored = committed[Path(rel).name]
        assert entry["sha256"] == hashlib.sha256(stored).hexdigest() and entry["size"] == len(stored)
    # each verified as `drift-bench-examples` from its parent folder: the same paths in both results
    monkeypatch.chdir(plain.parent)
    a = _verify(run_line, Path(plain.name), tmp_path / "ra")
    monkeypatch.chdir(ref.parent)
    b = _verify(run_line, Path(ref.name), tmp_path / "rb")
    assert a.exit_code == b.exit_code == 0, b.output
    ra, rb = _results(tmp_path / "ra" / "drift-bench-examples.json"), _results(tmp_path / "rb" / "drift-bench-examples.json")
    # the recorded storage form (the manifest's blobs:) is the only difference
    assert rb["manifest"].pop("blobs") == blobs
    diff = {k for k in ra.keys() | rb.keys() if ra.get(k) != rb.get(k)}
    assert diff <= {"digest", "results_sha256", "manifest_sha256", "inputs"}, diff
    assert ra["runs"] == rb["runs"]
    # log_sha256 (cited) is of the decompressed lines, as for committed logs: the shipped plain files' digests
    shipped = {hashlib.sha256(p.read_bytes()).hexdigest() for p in (EXAMPLES / "runs").iterdir()}
    assert {r["log_sha256"] for r in rb["runs"]} == shipped
    # validate reads the referenced logs too (from the store)
    v = run_line(["validate", str(ref)])
    assert v.exit_code == 0, v.output
    assert "4 run" in v.output or "runs: 4" in v.output or '"runs": 4' in v.output, v.output


def test_the_store_fetches_a_blob_once_and_checks_it_before_each_use(run_line, tmp_path: Path, server: Server) -> None:
    ref = _referenced(run_line, tmp_path, server)
    for out in ("r1", "r2"):
        assert _verify(run_line, ref, tmp_path / out, "--no-cache").exit_code == 0
    assert sorted(server.hits.values()) == [1, 1, 1, 1]  # the second verify fetched nothing
    stored = sorted((tmp_path / "cache" / "blobs" / "sha256").iterdir())
    assert len(stored) == 4
    stored[0].write_bytes(stored[0].read_bytes()[:-1] + b"X")  # a corrupted stored copy is fetched again
    assert _verify(run_line, ref, tmp_path / "r3", "--no-cache").exit_code == 0
    assert sorted(server.hits.values()) == [1, 1, 1, 2]


def _one_finding(run_line, ref: Path, out: Path, expected: str, most_s: float = 30.0) -> dict:
    t0 = time.monotonic()
    res = _verify(run_line, ref, out, "--no-cache")
    took = time.monotonic() - t0
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output
    assert took < most_s, took
    doc = json.loads(res.output)
    problems = [p for p in doc["problems"] if "stored by reference" in p["message"]]
    assert len(problems) == 1, doc["problems"]
    assert expected in problems[0]["message"], problems[0]["message"]
    results = _results(out / "drift-bench-examples.json")
    verdicts = {r["path"].rsplit("/", 1)[-1]: r["verdict"] for r in results["runs"]}
    assert len(verdicts) == 4  # the run stays reported, as UNVERIFIED (counted worst), never dropped
    assert sorted(verdicts.values()).count("UNVERIFIED") == 1, verdicts
    return problems[0]


def _first(server: Server) -> str:
    return sorted(server.files)[0]


def test_a_blob_changed_after_the_check_is_a_finding_not_different_figures(
        run_line, tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    ref = _referenced(run_line, tmp_path, server)
    assert _verify(run_line, ref, tmp_path / "pr").exit_code == 0  # the pull-request check
    path = _first(server)
    body = server.files[path]
    assert isinstance(body, bytes)
    server.files[path] = body.replace(b'"answer_correct": true', b'"answer_correct": false', 1)[:len(body)]
    # the same machine: its store holds the declared bytes; the changed blob is never read
    assert _verify(run_line, ref, tmp_path / "again").exit_code == 0
    assert _results(tmp_path / "again" / "drift-bench-examples.json")["runs"] == \
        _results(tmp_path / "pr" / "drift-bench-examples.json")["runs"]
    # another machine (the publish job: an empty store) fetches the changed bytes: a finding
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "other-machine"))
    server.files[path] = body[:-2] + b"X\n"  # same size, other bytes
    _one_finding(run_line, ref, tmp_path / "publish", "the blob changed after it was declared")


@pytest.mark.parametrize(("edit", "expected"), [
    ("size+", "(truncated)"),
    ("size-", "more than the declared"),
    ("digest", "not the declared"),
])
def test_a_wrong_declared_size_or_digest_is_one_finding(run_line, tmp_path: Path, server: Server, edit: str,
                                                       expected: str) -> None:
    ref = _referenced(run_line, tmp_path, server)
    doc = _manifest(ref)
    entry = doc["blobs"][sorted(doc["blobs"])[0]]
    if edit == "size+":
        entry["size"] += 10
    elif edit == "size-":
        entry["size"] -= 10
    else:
        entry["sha256"] = "0" * 64
    _write_manifest(ref, doc)
    _one_finding(run_line, ref, tmp_path / "r", expected)


def test_a_truncated_download_is_one_finding(run_line, tmp_path: Path, server: Server) -> None:
    ref = _referenced(run_line, tmp_path, server)
    path = _first(server)
    body = server.files[path]
    assert isinstance(body, bytes)

    def truncated(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body[: len(body) // 2])
        h.wfile.flush()
        h.close_connection = True
        h.connection.shutdown(socket.SHUT_RDWR)

    server.files[path] = truncated
    _one_finding(run_line, ref, tmp_path / "r", "truncated")


def test_a_slow_server_times_out_in_bounded_time(run_line, tmp_path: Path, server: Server,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ref = _referenced(run_line, tmp_path, server)
    monkeypatch.setattr(fetch, "READ_TIMEOUT_S", 1.0)
    monkeypatch.setattr(fetch, "DEADLINE_S", 2.0)
    path = _first(server)
    body = server.files[path]
    assert isinstance(body, bytes)
    stop = threading.Event()

    def trickle(h: http.server.BaseHTTPRequestHandler) -> None:  # a byte every 0.3 s: never a read timeout
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        for i in range(len(body)):
            if stop.wait(0.3):
                return
            try:
                h.wfile.write(body[i:i + 1])
                h.wfile.flush()
            except OSError:
                return

    server.files[path] = trickle
    try:
        _one_finding(run_line, ref, tmp_path / "r", "longer than 2 s in all", most_s=15)
    finally:
        stop.set()


def test_a_server_that_never_answers_times_out(run_line, tmp_path: Path, server: Server,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ref = _referenced(run_line, tmp_path, server)
    monkeypatch.setattr(fetch, "READ_TIMEOUT_S", 1.0)
    stop = threading.Event()
    server.files[_first(server)] = lambda h: stop.wait(30)
    try:
        _one_finding(run_line, ref, tmp_path / "r", "no answer within the time limit", most_s=15)
    finally:
        stop.set()


def test_an_unreachable_host_is_one_finding(run_line, tmp_path: Path, server: Server) -> None:
    ref = _referenced(run_line, tmp_path, server)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    doc = _manifest(ref)
    rel = sorted(doc["blobs"])[0]
    doc["blobs"][rel]["url"] = f"http://127.0.0.1:{port}/gone.jsonl"
    _write_manifest(ref, doc)
    _one_finding(run_line, ref, tmp_path / "r", "unreachable")


def _redirect(to: str) -> Route:
    def answer(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(302)
        h.send_header("Location", to)
        h.send_header("Content-Length", "0")
        h.end_headers()
    return answer


def test_a_redirect_is_followed_within_the_scheme_and_never_to_another(run_line, tmp_path: Path,
                                                                      server: Server) -> None:
    ref = _referenced(run_line, tmp_path, server)
    path = _first(server)
    server.files["/moved" + path] = server.files[path]
    server.files[path] = _redirect("/moved" + path)
    assert _verify(run_line, ref, tmp_path / "ok", "--no-cache").exit_code == 0
    assert server.hits["/moved" + path] == 1
    for i, target in enumerate(("ftp://127.0.0.1/x.jsonl", "http://example.org/x.jsonl")):
        shutil.rmtree(tmp_path / "cache", ignore_errors=True)
        server.files[path] = _redirect(target)
        _one_finding(run_line, ref, tmp_path / f"r{i}", "redirects to")


def test_http_is_refused_without_the_loopback_switch(run_line, tmp_path: Path, server: Server,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ref = _referenced(run_line, tmp_path, server)
    monkeypatch.delenv(fetch.LOOPBACK_ENV)
    res = _verify(run_line, ref, tmp_path / "r", "--no-cache")
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert sum("https:// only" in p["message"] for p in json.loads(res.output)["problems"]) == 4
    assert not server.hits  # nothing was requested


@pytest.mark.parametrize(("url", "allowed"), [
    ("https://github.com/o/r/releases/download/t/a.jsonl.zst", True),
    ("http://github.com/o/r/a.jsonl", False),
    ("http://127.0.0.1:8000/a.jsonl", True),  # with the switch (set by the fixture)
    ("https://127.0.0.1:8443/a.jsonl", True),  # with the switch: loopback over https too
    ("https://[::1]/a.jsonl", True),
    ("http://10.0.0.1/a.jsonl", False),
    ("file:///etc/passwd", False),
    ("ftp://127.0.0.1/a.jsonl", False),
    ("https://user:pw@example.org/a.jsonl", False),
    ("https://[::1/a", False),
    # https to an inward address other than loopback is refused whatever the switch (cloud metadata, private)
    ("https://169.254.169.254/latest/meta-data/", False),
    ("https://10.0.0.1/a.jsonl", False),
    ("https://[fd00::1]/a.jsonl", False),
    ("https://192.168.1.1/a.jsonl", False),
    ("https://8.8.8.8/a.jsonl", True),
])
def test_url_rule(server: Server, url: str, allowed: bool) -> None:
    assert (url_problem(url) is None) is allowed


@pytest.mark.parametrize("url", ["https://127.0.0.1:8443/a.jsonl", "https://[::1]/a.jsonl", "http://127.0.0.1/a.jsonl",
                                 "http://localhost/a.jsonl"])
def test_loopback_is_refused_without_the_switch(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fetch.LOOPBACK_ENV, raising=False)
    assert url_problem(url) is not None


def test_a_blob_listed_and_committed_or_not_listed_is_a_finding(run_line, tmp_path: Path, server: Server) -> None:
    ref = _referenced(run_line, tmp_path, server)
    doc = _manifest(ref)
    rel = sorted(doc["blobs"])[0]
    (ref / rel).write_bytes(server.files["/" + Path(rel).name])  # type: ignore[arg-type]
    doc["blobs"]["runs/extra.jsonl"] = dict(doc["blobs"][rel])
    _write_manifest(ref, doc)
    res = run_line(["validate", str(ref)])
    assert res.exit_code == 1
    assert "is committed and also stored by reference" in res.output
    assert "'runs/extra.jsonl' is not one of `files`" in res.output


def _readme_commands() -> list[list[str]]:
    """The `driftboard` commands of the README's "Submitting a large run", in order (argv after `driftboard`)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Submitting a large run", 1)[1].split("\n## ", 1)[0]
    return [line.strip().split()[1:] for line in section.splitlines() if line.strip().startswith(".venv/bin/driftboard ")]


def test_the_readme_large_run_commands_run_as_written(run_line, tmp_path: Path, server: Server,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    commands = _readme_commands()
    assert [c[0] for c in commands] == ["compress", "compress", "reference", "verify"]
    # the README's placeholder id is `mylab-toy`: here the shipped examples, in a project folder of tmp_path
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES, project / "submissions" / "drift-bench-examples")
    monkeypatch.chdir(project)
    args = [[a.replace("mylab-toy", "drift-bench-examples").replace("../drift-bench-examples-upload",
                                                                     str(tmp_path / "upload")) for a in c]
            for c in commands[1:]]
    for argv in args[:2]:  # compress, reference: exactly as written (no network)
        res = run_line(argv)
        assert res.exit_code == 0, res.output
    folder = project / "submissions" / "drift-bench-examples"
    doc = _manifest(folder)
    assert all(e["url"].startswith("https://github.com/YOU/driftboard/releases/download/") for e in doc["blobs"].values())
    # the upload (gh release create) is served here by the local server, at the same file names
    for f in sorted((tmp_path / "upload").iterdir()):
        server.files[f"/{f.name}"] = f.read_bytes()
    for entry in doc["blobs"].values():
        entry["url"] = server.base + entry["url"].rsplit("/", 1)[1]
    _write_manifest(folder, doc)
    res = run_line([*args[2], "--problems", str(PROBLEMS)])
    assert res.exit_code == 0, res.output
    assert len(server.hits) == 4


def _git(repo: Path, *args: str) -> None:
    import subprocess

    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org",
                    "-c", "commit.gpgsign=false", *args], check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(("prereg_first", "expected"), [(True, "ok"), (False, "violated")])
def test_a_referenced_log_arrives_with_the_commit_that_declares_it(
        run_line, tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch, prereg_first: bool,
        expected: str) -> None:
    """The commit-order check: plain and referenced logs committed the same way have the same order status."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    statuses = {}
    for form in ("plain", "ref"):
        repo = tmp_path / form
        folder = repo / "submissions" / "drift-bench-examples"
        shutil.copytree(EXAMPLES, folder)
        if form == "ref":
            res = run_line(["reference", str(folder), "--url-base", server.base, "--upload-dir", str(tmp_path / "up")])
            assert res.exit_code == 0, res.output
            for f in sorted((tmp_path / "up").iterdir()):
                server.files[f"/{f.name}"] = f.read_bytes()
        _git(repo, "init", "-q")
        first = ["submissions/drift-bench-examples/prereg.yaml"]
        if not prereg_first:  # the runs (or their declaration) first, the pre-registration after
            first = [p.relative_to(repo).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != "prereg.yaml"]
        _git(repo, "add", *first)
        _git(repo, "commit", "-qm", "first")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "second")
        monkeypatch.chdir(repo)
        res = _verify(run_line, Path("submissions/drift-bench-examples"), tmp_path / f"out-{form}", "--no-cache")
        statuses[form] = json.loads(res.output)["submissions"][0]["prereg_check"]["commit_order"]["status"]
    assert statuses == {"plain": expected, "ref": expected}


def test_a_recorded_lines_digest_is_checked_on_a_referenced_log(run_line, tmp_path: Path, server: Server) -> None:
    """logs_sha256 (of the lines) and blobs: (of the stored bytes) both given: they must agree with the fetched log."""
    ref = _referenced(run_line, tmp_path, server, "zstd")
    doc = _manifest(ref)
    rel = sorted(doc["blobs"])[0]
    plain = EXAMPLES / "runs" / Path(rel).name.removesuffix(".zst")
    doc["logs_sha256"] = {rel: hashlib.sha256(plain.read_bytes()).hexdigest()}
    _write_manifest(ref, doc)
    assert run_line(["validate", str(ref)]).exit_code == 0
    doc["logs_sha256"] = {rel: "1" * 64}
    _write_manifest(ref, doc)
    res = run_line(["validate", str(ref)])
    assert res.exit_code == 1 and "the log changed after it was written" in res.output, res.output


def test_a_name_that_resolves_inward_is_refused_before_any_connection() -> None:
    """`localhost` (and any name resolving to a loopback, private or link-local address) is never connected to."""
    with pytest.raises(BlobError, match="not a public address"):
        public_address("localhost", 443)
    with pytest.raises(BlobError, match="does not resolve"):
        public_address("no-such-host.invalid", 443)


# -- over real TLS --------------------------------------------------------------------------------
@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def tls_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ca: trustme.CA) -> Iterator[Server]:
    """Blobs served over TLS on 127.0.0.1, with a certificate for that address from a CA made here."""
    monkeypatch.setenv(fetch.LOOPBACK_ENV, "1")
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "cache"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    s = Server(tls=context)
    try:
        yield s
    finally:
        s.close()


def test_a_blob_served_over_tls_verifies_when_its_authority_is_trusted(
        run_line, tmp_path: Path, tls_server: Server, ca: trustme.CA, monkeypatch: pytest.MonkeyPatch) -> None:
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    monkeypatch.setenv(fetch.CA_FILE_ENV, str(ca_file))
    ref = _referenced(run_line, tmp_path, tls_server, "zstd")
    assert all(b["url"].startswith("https://127.0.0.1:") for b in _manifest(ref)["blobs"].values())
    res = _verify(run_line, ref, tmp_path / "r", "--no-cache")
    assert res.exit_code == 0, res.output
    assert sorted(tls_server.hits.values()) == [1, 1, 1, 1]
    assert {r["verdict"] for r in _results(tmp_path / "r" / "drift-bench-examples.json")["runs"]} == {"VALID"}


def test_a_certificate_not_trusted_is_one_finding(run_line, tmp_path: Path, tls_server: Server,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other-ca.pem"  # an authority, but not the one that signed the server's certificate
    trustme.CA().cert_pem.write_to_path(str(other))
    monkeypatch.setenv(fetch.CA_FILE_ENV, str(other))
    ref = _referenced(run_line, tmp_path, tls_server)
    doc = _manifest(ref)
    for rel in sorted(doc["blobs"])[1:]:  # one referenced log (the others committed again): one finding
        (ref / rel).write_bytes(tls_server.files["/" + Path(rel).name])  # type: ignore[arg-type]
        del doc["blobs"][rel]
    _write_manifest(ref, doc)
    _one_finding(run_line, ref, tmp_path / "r", "TLS certificate is not trusted")
    assert not tls_server.hits  # the handshake failed: no request was made


def test_an_unreadable_ca_file_is_one_finding(run_line, tmp_path: Path, tls_server: Server,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fetch.CA_FILE_ENV, str(tmp_path / "absent.pem"))
    ref = _referenced(run_line, tmp_path, tls_server)
    doc = _manifest(ref)
    for rel in sorted(doc["blobs"])[1:]:
        (ref / rel).write_bytes(tls_server.files["/" + Path(rel).name])  # type: ignore[arg-type]
        del doc["blobs"][rel]
    _write_manifest(ref, doc)
    _one_finding(run_line, ref, tmp_path / "r", "DRIFTBOARD_BLOB_CA_FILE=")


def test_no_workflow_sets_a_fetch_switch() -> None:
    """The loopback switch and the extra certificate authorities are for tests, benchmarks and operators only."""
    for wf in sorted((REPO / ".github" / "workflows").glob("*.yml")):
        text = wf.read_text(encoding="utf-8")
        assert fetch.LOOPBACK_ENV not in text and fetch.CA_FILE_ENV not in text, wf.name

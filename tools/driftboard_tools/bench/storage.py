"""`driftboard bench scale`'s storage stage (issue 32, item 4): each half's logs stored four ways.

Each generated half (the agent half: 1,000 runs of ~10^4 events; the constraint half: 50
DRIFT-Bench-size submissions) is laid out four times under `<workdir>/storage/<half>/`:
**plain** (`.jsonl`: the generated submissions themselves), **gzip** and **zstd** (`driftboard
compress`, levels 9 and 19, one submission per worker over `--jobs` processes), and **reference**
(a copy of zstd's, then `driftboard reference`: the logs moved out, each one served by an `http.server` this
stage starts on 127.0.0.1 and named under `blobs:`; the verify children get
`DRIFTBOARD_ALLOW_LOOPBACK_HTTP=1`). The server speaks HTTPS, as a real blob host does, when
`trustme` is installed (the test extra): a certificate authority made for the run, trusted
through `DRIFTBOARD_BLOB_CA_FILE`; plain HTTP otherwise (`transport=` says which).

The gzip and zstd copies are kept with a stamp (the half's generation digest and the levels) and
reused while intact, like the generated halves: `zstd -19` of the full halves takes about an hour
of CPU, paid once by a submitter and once per workdir here. Measured, in the same run, per half:

* bytes in the repository per form (every file of the submission folders: logs and manifests);
  the compression's wall and CPU time (the submitter's, once; not part of any verify);
* `verify --jobs N` with a cold results cache for each form (for reference: with a cold blob store,
  so the fetch is in it, and with a warm one), wall and CPU time, peak RSS (largest process and
  process tree), and the ratio plain / form (1.0: as fast as plain; the goal for zstd is >= 0.8).
  Each form's files are read once just before its pass, so every pass starts from the page cache;
* the fetch alone, in this process: every blob into an empty store (cold: download, hash, rename)
  and again (warm: the stored copy's size and SHA-256 checked, nothing downloaded);
* that every form gives the same runs (run id, verdict, `log_sha256`): the storage form changes no figure.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import json
import os
import resource
import shutil
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker.cli.compress import compress_command
from checker.cli.reference import reference_command
from checker.format import storage
from checker.format.errors import DriftboardError
from checker.format.schema.manifest import Submission
from checker.stages.fetch import CA_FILE_ENV, LOOPBACK_ENV, BlobStore
from checker.stages.manifest_yaml import parse_yaml
from driftboard_tools.generate.leaderboards import Half, _digest, _pool_map, _reusable, _stamp

if TYPE_CHECKING:
    from driftboard_tools.bench.scale import Bench

FORMS = ("plain", "gzip", "zstd", "reference")
KEPT_VERSION = "1"
"""Bumped when the kept compressed copies must be made again."""
LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")


def _bytes(folders: list[Path]) -> int:
    return sum(p.stat().st_size for f in folders for p in f.rglob("*") if p.is_file())


def _read_through(folders: list[Path]) -> None:
    """Read every file once (the next pass then starts from the page cache, as plain's does)."""
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                with p.open("rb") as fh:
                    while fh.read(1 << 20):
                        pass


def _quiet(fn: Callable[..., Any], *args: Any) -> None:
    """Run a command function with its click output discarded (the bench prints its own figures)."""
    with contextlib.redirect_stdout(io.StringIO()):
        fn(*args)


def _compress_one(task: tuple[str, str, int]) -> None:
    folder, form, level = task
    shipped = storage.ZSTD_LEVEL
    if form == "zstd":  # the bench's `--zstd-level` (the module global `compress` reads for each file)
        storage.ZSTD_LEVEL = level
    try:
        _quiet(compress_command, Path(folder), form)
    finally:
        storage.ZSTD_LEVEL = shipped


def _linked_copy(src: Path, dst: Path) -> None:
    """A copy of a submission folder whose run logs are hard links, for `driftboard compress` to replace.

    The checker refuses a hard-linked log, so every link is gone once each log is compressed
    (compress writes a new file and unlinks the plain name); the manifest is a real copy (rewritten in place).
    """
    for p in sorted(src.rglob("*")):
        target = dst / p.relative_to(src)
        if p.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if p.name.endswith(LOG_SUFFIXES):
            os.link(p, target)
        else:
            shutil.copy2(p, target)


class _Server:
    """A folder served on 127.0.0.1 (a thread of this process): over HTTPS when `trustme` is installed.

    Over HTTPS the authority's certificate is written to `ca_file` (for `DRIFTBOARD_BLOB_CA_FILE`).
    """

    def __init__(self, folder: Path, ca_file: Path) -> None:
        handler = functools.partial(_Quiet, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.ca_file: Path | None = None
        try:
            import trustme
        except ImportError:
            scheme = "http"
        else:
            ca = trustme.CA()
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ca.issue_cert("127.0.0.1").configure_cert(context)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True, do_handshake_on_connect=False)
            ca.cert_pem.write_to_path(str(ca_file))
            self.ca_file, scheme = ca_file, "https"
        self.transport = scheme
        self.base = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _runs(results: Path) -> list[tuple[str, str, str]]:
    out = []
    for f in sorted(results.glob("*.json")):
        doc = json.loads(f.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and isinstance(doc.get("runs"), list):
            out += [(r.get("run_id"), r.get("verdict"), r.get("log_sha256")) for r in doc["runs"]]
    return sorted(out)


def _compressed(root: Path, half: Half, form: str, jobs: int, level: int, name: str | None = None,
                subs_from: list[Path] | None = None) -> tuple[list[Path], dict[str, Any]]:
    """The half's submissions (or `subs_from`) compressed as `form` under `root/<name>` (kept and reused while intact).

    Returns the folders and the stamp: `compress_s` (wall) and `compress_cpu_s` of the run that made them.
    """
    folder = root / (name or form)
    sources = half.submissions if subs_from is None else subs_from
    generated = json.loads((half.root / "stamp.json").read_text(encoding="utf-8"))["digest"]
    params = {"kept": KEPT_VERSION, "half": generated, "form": form, "level": level, "subs": [s.name for s in sources]}
    digest = _digest(params)
    subs = [folder / s.name for s in sources]
    stamp = _reusable(folder, digest)
    if stamp is not None:
        return subs, {**stamp, "reused": True}
    shutil.rmtree(folder, ignore_errors=True)
    for src, dst in zip(sources, subs, strict=True):
        _linked_copy(src, dst)
    t0, c0 = time.perf_counter(), time.process_time()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    _pool_map(_compress_one, [(str(s), form, level) for s in subs], jobs)  # the pool's workers are reaped when it closes
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - c0 + (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    stamp = _stamp(folder, digest, params, {"compress_s": time.perf_counter() - t0, "compress_cpu_s": cpu,
                                            "compress_jobs": jobs})
    return subs, {**stamp, "reused": False}


def storage_stage(bench: Bench, half: Half) -> None:
    """Every figure of one half's storage stage (see the module docstring); `key=value` lines via `bench.emit`."""
    root = bench.workdir / "storage" / half.name
    j = bench.sizes.jobs
    for name in ("plain", "reference", "upload", "fetch-store"):
        shutil.rmtree(root / name, ignore_errors=True)
    folders: dict[str, list[Path]] = {"plain": list(half.submissions)}  # verified where they were generated
    made: dict[str, dict[str, Any]] = {}
    level = bench.sizes.zstd_level or storage.ZSTD_LEVEL
    folders["gzip"], made["gzip"] = _compressed(root, half, "gzip", j, storage.GZIP_LEVEL)
    folders["zstd"], made["zstd"] = _compressed(root, half, "zstd", j, level)
    if level != storage.ZSTD_LEVEL:  # the shipped level on the first submission: its bytes and cost, to scale up
        sample, made["shipped"] = _compressed(root, half, "zstd", j, storage.ZSTD_LEVEL, "zstd-shipped-sample",
                                              half.submissions[:1])
        made["shipped"]["bytes"], made["shipped"]["plain"] = _bytes(sample), _bytes(half.submissions[:1])
    made["zstd"]["level"] = level
    folders["reference"] = [root / "reference" / s.name for s in half.submissions]
    for src, dst in zip(folders["zstd"], folders["reference"], strict=True):
        shutil.copytree(src, dst)  # a copy: a blob hard-linked to a zstd log would make that log a refused hard link
    upload = root / "upload"
    upload.mkdir(parents=True)
    server = _Server(upload, root / "ca.pem")
    os.environ[LOOPBACK_ENV] = "1"  # the verify children fetch from the loopback server (module docstring)
    if server.ca_file is not None:
        os.environ[CA_FILE_ENV] = str(server.ca_file)
    try:
        for sub in folders["reference"]:  # one folder (and URL base) per submission: run file names repeat across them
            _quiet(reference_command, sub, f"{server.base}{sub.name}/", upload / sub.name)
        _measure(bench, half, root, folders, made, upload, server.transport)
    finally:
        server.close()
        os.environ.pop(LOOPBACK_ENV, None)
        os.environ.pop(CA_FILE_ENV, None)


def _measure(bench: Bench, half: Half, root: Path, folders: dict[str, list[Path]], made: dict[str, dict[str, Any]],
             upload: Path, transport: str) -> None:
    j, h = bench.sizes.jobs, f"{half.name}_storage"
    repo = {form: _bytes(folders[form]) for form in FORMS}
    bench.emit(h, forms=",".join(FORMS), jobs=j, transport=transport, submissions=len(half.submissions),
               runs=len(half.log_files), **{f"{half.unit}s": half.total},
               blobs=sum(1 for p in upload.rglob("*") if p.is_file()), blob_mb=round(_bytes([upload]) / 1e6, 1),
               **{f"{form}_repo_mb": round(repo[form] / 1e6, 2) for form in FORMS},
               **{f"{form}_vs_plain_bytes": round(repo[form] / repo["plain"], 4) for form in FORMS},
               **{f"{form}_compress_{k}": round(made[form][f"compress_{k}"], 1) for form in made for k in ("s", "cpu_s")},
               **{f"{form}_compress_mb_per_cpu_s": round(made[form].get("plain", repo["plain"]) / 1e6
                                                         / made[form]["compress_cpu_s"], 2)
                  for form in made if made[form]["compress_cpu_s"]},
               compress_jobs=made["zstd"]["compress_jobs"], zstd_level=made["zstd"]["level"],
               shipped_zstd_level=storage.ZSTD_LEVEL,
               **({} if "shipped" not in made else {
                   "shipped_sample_plain_mb": round(made["shipped"]["plain"] / 1e6, 2),
                   "shipped_sample_mb": round(made["shipped"]["bytes"] / 1e6, 2),
                   "shipped_sample_vs_plain_bytes": round(made["shipped"]["bytes"] / made["shipped"]["plain"], 4),
                   "shipped_estimate_repo_mb": round(repo["plain"] * made["shipped"]["bytes"] / made["shipped"]["plain"]
                                                     / 1e6, 1),
                   "shipped_estimate_compress_cpu_s": round(made["shipped"]["compress_cpu_s"] * repo["plain"]
                                                            / made["shipped"]["plain"])}),
               compressed_copies_reused=all(m["reused"] for m in made.values()))
    k = min(bench.sizes.storage_verify_first or len(half.submissions), len(half.submissions))
    bench.emit(h, verified_submissions=k, verified_runs=sum(1 for s in half.submissions[:k] for _ in s.rglob("*.jsonl")),
               **{f"verified_{half.unit}s": sum(half.units[:k])})
    uploaded = [upload / s.name for s in half.submissions[:k]]
    bench.emit(h, **_fetch_only(root, folders["reference"][:k], uploaded))
    passes: dict[str, Any] = {}
    results: dict[str, Path] = {}
    rel = {form: [p.relative_to(bench.workdir) for p in subs[:k]] for form, subs in folders.items()}
    # each pass is recorded as it ends (a run stopped part-way keeps them); zstd, the form with a goal, right after plain
    for form in ("plain", "zstd", "gzip", "reference", "reference_warm"):
        if form == "reference_warm":  # with a warm blob store (the cold pass's), a cold results cache
            store = bench.out / f"{half.name}-storage-reference" / "cache" / "blobs"
            m, results[form] = bench.verify(half, "storage-reference-warm", rel["reference"], jobs=j, seed_blobs=store)
        else:
            _read_through(uploaded if form == "reference" else folders[form][:k])
            m, results[form] = bench.verify(half, f"storage-{form}", rel[form], jobs=j)
        passes[form] = m
        plain = passes["plain"]
        bench.emit(f"{h}_{form}_j{j}", s=round(m.wall_s, 2), cpu_s=None if m.cpu_s is None else round(m.cpu_s, 1),
                   rss_max_mb=round(m.rss_max_mb), rss_tree_mb=round(m.rss_tree_mb),
                   ratio_vs_plain=round(plain.wall_s / m.wall_s, 3),
                   ratio_vs_plain_cpu=round(plain.cpu_s / m.cpu_s, 3) if plain.cpu_s and m.cpu_s else None)
    same = len({json.dumps(_runs(r)) for r in results.values()}) == 1
    bench.emit(h, runs_identical_across_forms=same)
    if not same:
        raise DriftboardError(f"the {half.name} half's storage forms verified to different runs; see {root}")
    for r in results.values():
        shutil.rmtree(r, ignore_errors=True)


def _fetch_only(root: Path, folders: list[Path], uploaded: list[Path]) -> dict[str, Any]:
    """Every blob fetched into an empty store (cold), then again (warm), in this process."""
    refs = []
    for folder in folders:
        manifest, _ = parse_yaml((folder / "submission.yaml").read_bytes(), Submission, str(folder))
        assert manifest is not None
        refs += [(ref, next(x for x in (".jsonl.gz", ".jsonl.zst", ".jsonl") if rel.endswith(x)))
                 for rel, ref in manifest.blobs.items()]
    _read_through(uploaded)
    store = BlobStore(root / "fetch-store")
    out: dict[str, Any] = {"fetch_blobs": len(refs)}
    mb = _bytes(uploaded) / 1e6
    out["fetch_mb"] = round(mb, 1)
    for label in ("cold", "warm"):
        t0, c0 = time.perf_counter(), time.process_time()
        before = store.fetched
        for ref, suffix in refs:
            store.get(ref, suffix)
        wall = time.perf_counter() - t0
        out[f"fetch_{label}_s"] = round(wall, 2)
        out[f"fetch_{label}_cpu_s"] = round(time.process_time() - c0, 2)
        out[f"fetch_{label}_mb_per_s"] = round(mb / wall, 1) if wall else None
        out[f"fetch_{label}_downloaded"] = store.fetched - before
    shutil.rmtree(store.root, ignore_errors=True)
    return out


def markdown_rows(figures: dict[str, Any]) -> list[str]:
    """Each half's storage stage as a Markdown table (none for a half whose stage did not run)."""
    lines: list[str] = []
    for half, unit in (("agent", "events"), ("constraint", "turns")):
        lines += _half_rows(figures, half, unit)
    return lines


def _half_rows(figures: dict[str, Any], half: str, unit: str) -> list[str]:
    def f(key: str) -> Any:
        return figures.get(f"{half}_storage_{key}")

    j = f("jobs")
    if j is None or f(f"plain_j{j}_s") is None:
        return []
    subset = ("" if f("verified_submissions") in (None, f("submissions")) else
              f"; verify passes and fetch on the first {f('verified_submissions')} submissions, {f('verified_runs')} runs, "
              f"{f('verified_' + unit):,} {unit}")
    lines = ["", f"Storage forms of the {half} half ({f('runs')} runs, {f(unit):,} {unit}{subset}; `verify --jobs {j}`, cold "
                 "results cache; ratio = plain's time / this form's, 1.0 = as fast as plain; every form gives the same "
                 f"runs: {f('runs_identical_across_forms')}):", "",
             "| form | bytes in the repository (MB) | vs plain | wall s | CPU s | ratio vs plain (wall) | "
             "ratio vs plain (CPU) | peak RSS, largest process (MB) | peak RSS, tree (MB) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for form, label in (("plain", "plain `.jsonl`"), ("gzip", "gzip (`.jsonl.gz`)"), ("zstd", "zstd (`.jsonl.zst`)"),
                        ("reference", "by reference, cold blob store (fetch included)"),
                        ("reference_warm", "by reference, warm blob store")):
        key, base = f"{form}_j{j}", form.split("_")[0]
        lines.append(f"| {label} | {f(base + '_repo_mb')} | {f(base + '_vs_plain_bytes')} | {f(key + '_s')} | "
                     f"{f(key + '_cpu_s')} | {f(key + '_ratio_vs_plain')} | {f(key + '_ratio_vs_plain_cpu')} | "
                     f"{f(key + '_rss_max_mb')} | {f(key + '_rss_tree_mb')} |")
    lines += ["", f"Fetch alone ({f('fetch_blobs')} blobs, {f('fetch_mb')} MB, over {f('transport')} from 127.0.0.1): cold store "
                  f"{f('fetch_cold_s')} s ({f('fetch_cold_mb_per_s')} MB/s, {f('fetch_cold_downloaded')} downloaded); "
                  f"warm store {f('fetch_warm_s')} s (digests checked, {f('fetch_warm_downloaded')} downloaded). "
                  f"Compression (once, by the submitter; {f('compress_jobs')} processes"
                  f"{', copies reused from an earlier run' if f('compressed_copies_reused') else ''}): gzip "
                  f"{f('gzip_compress_s')} s wall, {f('gzip_compress_cpu_s')} CPU s; zstd {f('zstd_compress_s')} s "
                  f"wall, {f('zstd_compress_cpu_s')} CPU s ({f('zstd_compress_mb_per_cpu_s')} MB of plain log per CPU s) "
                  f"at level {f('zstd_level')}."]
    if f("shipped_sample_mb") is not None:
        lines += ["", f"The zstd copies are at level {f('zstd_level')}, not the level `driftboard compress` writes "
                      f"({f('shipped_zstd_level')}). That level on the first submission ({f('shipped_sample_plain_mb')} MB "
                      f"plain): {f('shipped_sample_mb')} MB ({f('shipped_sample_vs_plain_bytes')} of plain), "
                      f"{f('shipped_compress_cpu_s')} CPU s ({f('shipped_compress_mb_per_cpu_s')} MB per CPU s); scaled to "
                      f"the half: about {f('shipped_estimate_repo_mb')} MB in the repository, "
                      f"{f('shipped_estimate_compress_cpu_s')} CPU s to compress."]
    return lines


__all__ = ["FORMS", "markdown_rows", "storage_stage"]

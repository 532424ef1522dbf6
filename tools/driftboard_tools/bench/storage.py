"""`driftboard bench scale`'s storage stage (issue 32, item 4): the agent half stored four ways.

The generated agent submissions are copied four times under `<workdir>/storage/`: **plain**
(`.jsonl`, as generated), **gzip** and **zstd** (`driftboard compress`, levels 9 and 19), and
**reference** (zstd, then `driftboard reference`: the logs moved out, each one served by an
`http.server` this stage starts on 127.0.0.1 and named under `blobs:`; the verify children get
`DRIFTBOARD_ALLOW_LOOPBACK_HTTP=1`). Measured, in the same run:

* bytes in the repository per form (every file of the submission folders: logs and manifests);
  the compression time (written once by the submitter, not part of any verify);
* `verify --jobs N` with a cold results cache for each form (for reference: with a cold blob store,
  so the fetch is in it, and with a warm one), wall and CPU time, peak RSS (largest process and
  process tree), and the ratio plain / form (1.0: as fast as plain; the goal for zstd is >= 0.8);
* the fetch alone, in this process: every blob into an empty store (cold: download, hash, rename)
  and again (warm: the stored copy's size and SHA-256 checked, nothing downloaded);
* that every form gives the same runs (run id, verdict, `log_sha256`): the storage form changes no figure.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker.cli.compress import compress_command
from checker.cli.reference import reference_command
from checker.format.errors import DriftboardError
from checker.format.schema.manifest import Submission
from checker.stages.fetch import LOOPBACK_ENV, BlobStore
from checker.stages.manifest_yaml import parse_yaml
from driftboard_tools.generate.leaderboards import Half

if TYPE_CHECKING:
    from driftboard_tools.bench.scale import Bench

FORMS = ("plain", "gzip", "zstd", "reference")


def _bytes(folders: list[Path]) -> int:
    return sum(p.stat().st_size for f in folders for p in f.rglob("*") if p.is_file())


def _quiet(fn: Any, *args: Any) -> None:
    """Run a command function with its click output discarded (the bench prints its own figures)."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        fn(*args)


class _Server:
    """A folder served over http on 127.0.0.1 (a thread of this process)."""

    def __init__(self, folder: Path) -> None:
        handler = functools.partial(_Quiet, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
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


def storage_stage(bench: Bench, half: Half) -> None:
    """Every figure of the storage stage (see the module docstring); `key=value` lines via `bench.emit`."""
    root = bench.workdir / "storage"
    shutil.rmtree(root, ignore_errors=True)
    upload = root / "upload"
    upload.mkdir(parents=True)
    copies: dict[str, list[Path]] = {}
    compress_s: dict[str, float] = {}
    for form in FORMS:
        subs = []
        for sub in half.submissions:
            dst = root / form / sub.name
            shutil.copytree(root / "zstd" / sub.name if form == "reference" else sub, dst)  # reference: zstd's logs
            subs.append(dst.relative_to(bench.workdir))
        copies[form] = subs
        t0 = time.perf_counter()
        for sub in subs:
            if form in ("gzip", "zstd"):
                _quiet(compress_command, bench.workdir / sub, form)
        compress_s[form] = time.perf_counter() - t0
    server = _Server(upload)
    os.environ[LOOPBACK_ENV] = "1"  # the verify children fetch from the loopback server (module docstring)
    try:
        for sub in copies["reference"]:  # one folder (and URL base) per submission: run file names repeat across them
            _quiet(reference_command, bench.workdir / sub, f"{server.base}{sub.name}/", upload / sub.name)
        _measure(bench, half, root, copies, compress_s, upload)
    finally:
        server.close()
        os.environ.pop(LOOPBACK_ENV, None)


def _measure(bench: Bench, half: Half, root: Path, copies: dict[str, list[Path]], compress_s: dict[str, float],
             upload: Path) -> None:
    j = bench.sizes.jobs
    folders = {form: [bench.workdir / s for s in subs] for form, subs in copies.items()}
    repo = {form: _bytes(folders[form]) for form in FORMS}
    bench.emit("storage", forms=",".join(FORMS), jobs=j, blobs=sum(1 for p in upload.rglob("*") if p.is_file()),
               blob_mb=round(_bytes([upload]) / 1e6, 1),
               **{f"{form}_repo_mb": round(repo[form] / 1e6, 2) for form in FORMS},
               **{f"{form}_vs_plain_bytes": round(repo[form] / repo["plain"], 4) for form in FORMS},
               gzip_compress_s=round(compress_s["gzip"], 1), zstd_compress_s=round(compress_s["zstd"], 1))
    fetched = _fetch_only(bench, folders["reference"], upload)
    passes: dict[str, Any] = {}
    results: dict[str, Path] = {}
    for form in FORMS:
        m, res = bench.verify(half, f"storage-{form}", copies[form], jobs=j)
        passes[form], results[form] = m, res
    # reference with a warm blob store (its cold pass's store), a cold results cache
    store = bench.out / f"{half.name}-storage-reference" / "cache" / "blobs"
    warm, res_warm = bench.verify(half, "storage-reference-warm", copies["reference"], jobs=j, seed_blobs=store)
    passes["reference_warm"], results["reference_warm"] = warm, res_warm
    plain = passes["plain"]
    for form, m in passes.items():
        bench.emit(f"storage_{form}_j{j}", s=round(m.wall_s, 2), cpu_s=None if m.cpu_s is None else round(m.cpu_s, 1),
                   rss_max_mb=round(m.rss_max_mb), rss_tree_mb=round(m.rss_tree_mb),
                   ratio_vs_plain=round(plain.wall_s / m.wall_s, 3),
                   ratio_vs_plain_cpu=round(plain.cpu_s / m.cpu_s, 3) if plain.cpu_s and m.cpu_s else None)
    same = len({json.dumps(_runs(r)) for r in results.values()}) == 1
    bench.emit("storage", runs_identical_across_forms=same, **fetched)
    if not same:
        raise DriftboardError("the storage forms verified to different runs; see " + str(root))


def _fetch_only(bench: Bench, folders: list[Path], upload: Path) -> dict[str, Any]:
    """Every blob fetched into an empty store (cold), then again (warm), in this process."""
    refs = []
    for folder in folders:
        manifest, _ = parse_yaml((folder / "submission.yaml").read_bytes(), Submission, str(folder))
        assert manifest is not None
        refs += [(ref, next(x for x in (".jsonl.gz", ".jsonl.zst", ".jsonl") if rel.endswith(x)))
                 for rel, ref in manifest.blobs.items()]
    store = BlobStore(bench.workdir / "storage" / "fetch-store")
    out: dict[str, Any] = {}
    for label in ("cold", "warm"):
        t0, c0 = time.perf_counter(), time.process_time()
        before = store.fetched
        for ref, suffix in refs:
            store.get(ref, suffix)
        wall = time.perf_counter() - t0
        out[f"fetch_{label}_s"] = round(wall, 2)
        out[f"fetch_{label}_cpu_s"] = round(time.process_time() - c0, 2)
        out[f"fetch_{label}_mb_per_s"] = round(_bytes([upload]) / 1e6 / wall, 1) if wall else None
        out[f"fetch_{label}_downloaded"] = store.fetched - before
    shutil.rmtree(store.root, ignore_errors=True)
    return out


def markdown_rows(figures: dict[str, Any]) -> list[str]:
    """The storage stage as a Markdown table (none when it did not run)."""
    f = figures.get
    j = f("storage_jobs")
    if j is None or f(f"storage_plain_j{j}_s") is None:
        return []
    lines = ["", f"Storage forms of the agent half (`verify --jobs {j}`, cold results cache; ratio = plain's wall time / "
                 "this form's, 1.0 = as fast as plain; every form gives the same runs: "
                 f"{f('storage_runs_identical_across_forms')}):", "",
             "| form | bytes in the repository (MB) | vs plain | wall s | CPU s | ratio vs plain | "
             "peak RSS, largest process (MB) | peak RSS, tree (MB) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for form, label in (("plain", "plain `.jsonl`"), ("gzip", "gzip (`.jsonl.gz`)"), ("zstd", "zstd (`.jsonl.zst`)"),
                        ("reference", "by reference, cold blob store (fetch included)"),
                        ("reference_warm", "by reference, warm blob store")):
        key = f"storage_{form}_j{j}"
        repo = f(f"storage_{form.split('_')[0]}_repo_mb")
        lines.append(f"| {label} | {repo} | {f('storage_' + form.split('_')[0] + '_vs_plain_bytes')} | "
                     f"{f(key + '_s')} | {f(key + '_cpu_s')} | {f(key + '_ratio_vs_plain')} | "
                     f"{f(key + '_rss_max_mb')} | {f(key + '_rss_tree_mb')} |")
    lines += ["", f"Fetch alone ({f('storage_blobs')} blobs, {f('storage_blob_mb')} MB, from 127.0.0.1): cold store "
                  f"{f('storage_fetch_cold_s')} s ({f('storage_fetch_cold_mb_per_s')} MB/s, "
                  f"{f('storage_fetch_cold_downloaded')} downloaded); warm store {f('storage_fetch_warm_s')} s "
                  f"(digests checked, nothing downloaded). Compression (once, by the submitter): gzip "
                  f"{f('storage_gzip_compress_s')} s, zstd {f('storage_zstd_compress_s')} s."]
    return lines


__all__ = ["FORMS", "markdown_rows", "storage_stage"]

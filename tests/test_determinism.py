"""Determinism of the whole pipeline (issue 9): the same inputs give byte-identical results and pages.

Every run below is the Makefile's main job (`driftboard verify submissions/`, then
`driftboard build --no-verify`) in fresh subprocesses, on a copy of the shipped `submissions/`
and `problems/` (committed to a throw-away git repository, so the pre-registration commit-order
check runs as it does in the real checkout). Each run gets its own empty `DRIFTBOARD_CACHE_DIR`
and, except the cache pair, `--no-cache`, so a cache cannot hide a difference. The trees compared
are the whole results folder, the assembled MkDocs sources and the built site, every file byte
for byte (sitemap.xml, sitemap.xml.gz, search index, downloads, chart specs included).

* A: `verify --jobs 1`, PYTHONHASHSEED=0, TZ=UTC, LC_ALL=C.UTF-8, then build (default paths).
* B: `verify --jobs 2`, PYTHONHASHSEED=4242, TZ=UTC+13:45, another locale, another working tree
  (a path with a space, files created in reverse order), other output paths and TMPDIR.
* C: `verify --shard 1/2` and `--shard 2/2` into separate folders, `driftboard merge`, build.
* D: a second build from A's results into A's output path.
* E: verify twice with one cache folder (cold, then warm: every submission a cache hit), build.

The full shipped set is used (3 submissions, 21 runs, the DRIFT-Bench problem set included): one
verify + build takes about 8 s on one core, this whole file about 50 s.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import checker
from checker.format.errors import UsageError
from checker.format.results_io import canonical_json
from checker.render.site import build_epoch

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

SHIPPED = ("submissions", "problems")
GIT_ENV = {"GIT_AUTHOR_NAME": "Driftboard Test", "GIT_AUTHOR_EMAIL": "test@driftboard.invalid",
           "GIT_COMMITTER_NAME": "Driftboard Test", "GIT_COMMITTER_EMAIL": "test@driftboard.invalid",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
CLEARED = ("SOURCE_DATE_EPOCH", "PYTHONHASHSEED", "DRIFTBOARD_CACHE_DIR", "TZ", "LANG", "LANGUAGE", "TMPDIR")


# ---------------------------------------------------------------- comparing trees


def tree_files(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every file under `root` (dot folders included)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def tree_diff(a: Path, b: Path, limit: int = 25) -> list[str]:
    """Human-readable differences between two trees: missing files, and for each differing file
    the offset of the first differing byte with the bytes around it on both sides."""
    fa, fb = tree_files(a), tree_files(b)
    out = [f"only in {a}: {rel}" for rel in sorted(fa.keys() - fb.keys())]
    out += [f"only in {b}: {rel}" for rel in sorted(fb.keys() - fa.keys())]
    for rel in sorted(fa.keys() & fb.keys()):
        x, y = fa[rel], fb[rel]
        if x == y:
            continue
        at = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y)))
        lo = max(0, at - 40)
        out.append(f"{rel}: {len(x)} vs {len(y)} bytes, first difference at byte {at}:\n"
                   f"    {x[lo:at + 60]!r}\n    {y[lo:at + 60]!r}")
    if len(out) > limit:
        out = [*out[:limit], f"... and {len(out) - limit} more"]
    return out


def assert_same_tree(a: Path, b: Path, what: str) -> None:
    assert a.is_dir() and b.is_dir(), f"{what}: {a} or {b} is missing"
    diff = tree_diff(a, b)
    if diff and SOURCES_AT_START and checker_sources() != SOURCES_AT_START[0]:
        diff.append("note: checker/, site/, mkdocs.yml or CHANGELOG.md changed while this test ran; "
                    "the runs compared may have used different code")
    if diff:
        print(f"{what}: {len(diff)} difference(s) between {a} and {b}", *diff, sep="\n")
    assert not diff, f"{what}: not byte-identical\n" + "\n".join(diff)


def test_tree_diff_names_the_file_and_the_first_differing_byte(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        (root / "sub").mkdir(parents=True)
        (root / "same.txt").write_bytes(b"identical\n")
    (a / "sub" / "page.html").write_bytes(b"<p>lastmod 2026-01-01</p>")
    (b / "sub" / "page.html").write_bytes(b"<p>lastmod 2026-01-02</p>")
    (a / "only-a.json").write_bytes(b"{}")
    diff = tree_diff(a, b)
    assert len(diff) == 2
    assert diff[0] == f"only in {a}: only-a.json"
    assert diff[1].startswith("sub/page.html: 25 vs 25 bytes, first difference at byte 20:")
    assert "b'<p>lastmod 2026-01-01</p>'" in diff[1] and "b'<p>lastmod 2026-01-02</p>'" in diff[1]
    (b / "only-a.json").write_bytes(b"{}")
    (b / "sub" / "page.html").write_bytes(b"<p>lastmod 2026-01-01</p>!")  # one byte longer
    assert tree_diff(a, b) == ["sub/page.html: 25 vs 26 bytes, first difference at byte 25:\n"
                               "    b'<p>lastmod 2026-01-01</p>'\n    b'<p>lastmod 2026-01-01</p>!'"]
    (a / "sub" / "page.html").write_bytes(b"x" * 100 + b"A" + b"y" * 100)  # context: 40 before, 60 from
    (b / "sub" / "page.html").write_bytes(b"x" * 100 + b"B" + b"y" * 100)
    assert tree_diff(a, b) == ["sub/page.html: 201 vs 201 bytes, first difference at byte 100:\n"
                               f"    {b'x' * 40 + b'A' + b'y' * 59!r}\n    {b'x' * 40 + b'B' + b'y' * 59!r}"]
    with pytest.raises(AssertionError, match="not byte-identical"):
        assert_same_tree(a, b, "demo")


# ---------------------------------------------------------------- running the pipeline


def _locales() -> list[str]:
    try:
        out = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return []
    return out.split()


def locale_pair() -> tuple[str, str]:
    """A: C.UTF-8; B: a real national locale if one is installed (decimal comma first), else POSIX."""
    have = _locales()
    norm = {name.lower().replace("-", ""): name for name in have}
    a = norm.get("c.utf8", "C")
    for wanted in ("de_de.utf8", "fr_fr.utf8", "tr_tr.utf8", "en_us.utf8", "en_gb.utf8"):
        if wanted in norm:
            return a, norm[wanted]
    return a, "POSIX"


def make_source(root: Path) -> Path:
    """A copy of the shipped inputs, committed to a fresh git repository (fixed author and date)."""
    root.mkdir(parents=True)
    for name in SHIPPED:
        shutil.copytree(REPO / name, root / name)
    if shutil.which("git"):
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_ENV}
        for args in (["init", "-q"], ["add", "-A"],
                     ["-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "shipped"]):
            subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True)
    return root


def copy_reversed(src: Path, dst: Path) -> Path:
    """Copy a tree creating files in reverse order, so directory listing order differs where the
    file system keeps creation order."""
    for path in sorted(src.rglob("*"), reverse=True):
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return dst


def checker_sources() -> str:
    """Digest of what the pipeline runs and renders with: the checker package (code and templates),
    `site/`, `mkdocs.yml`, `CHANGELOG.md`. Used to notice edits made while a test runs."""
    h = hashlib.sha256()
    package = Path(checker.__file__).resolve().parent
    for root in (package, REPO / "site", REPO / "mkdocs.yml", REPO / "CHANGELOG.md"):
        paths = sorted(root.rglob("*")) if root.is_dir() else [root]
        for p in paths:
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(p.as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


SOURCES_AT_START: list[str] = []
"""`checker_sources()` when the first pipeline run started (set by the `source` fixture)."""


def driftboard(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`driftboard ARGS` in a fresh interpreter; any exit code but 0 fails the test with its output."""
    # -P: import the installed checker, as `driftboard ci` does, never a `checker/` folder in `cwd`
    proc = subprocess.run([sys.executable, "-P", "-m", "checker", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False, timeout=300)
    assert proc.returncode == 0, f"driftboard {' '.join(args)} (in {cwd}) exited {proc.returncode}:\n" \
                                 f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def environment(tmp: Path, *, hashseed: str, tz: str, locale: str) -> dict[str, str]:
    """The caller's environment without anything that could pin or perturb the result, plus ours."""
    base = {k: v for k, v in os.environ.items()
            if k not in CLEARED and not k.startswith(("LC_", "GIT_"))}  # GIT_DIR would redirect history
    cache = tmp / "cache"
    scratch = tmp / "tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    return {**base, "PYTHONHASHSEED": hashseed, "TZ": tz, "LC_ALL": locale, "LANG": locale,
            "DRIFTBOARD_CACHE_DIR": str(cache), "TMPDIR": str(scratch), "NO_MKDOCS_2_WARNING": "1"}


class Run:
    """Where one pipeline run left its results, assembled docs and site."""

    def __init__(self, work: Path, results: Path, site: Path, docs: Path) -> None:
        self.work, self.results, self.site, self.docs = work, results, site, docs


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    SOURCES_AT_START[:] = [checker_sources()]
    return make_source(tmp_path_factory.mktemp("determinism") / "source")


@pytest.fixture(scope="module")
def locales() -> tuple[str, str]:
    return locale_pair()


@pytest.fixture(scope="module")
def run_a(source, locales, tmp_path_factory) -> Run:
    base = tmp_path_factory.mktemp("run-a")
    work = base / "work"
    shutil.copytree(source, work)
    env = environment(base, hashseed="0", tz="UTC0", locale=locales[0])
    driftboard(work, env, "verify", "submissions/", "--no-cache", "--jobs", "1")
    driftboard(work, env, "build", "--no-verify", "--out", "build/site")
    return Run(work, work / "build" / "results", work / "build" / "site", work / "build" / "docs")


@pytest.fixture(scope="module")
def run_b(source, locales, tmp_path_factory) -> Run:
    base = tmp_path_factory.mktemp("run-b") / "other working tree"
    work = copy_reversed(source, base / "checkout")
    out = base / "published output"
    env = environment(base, hashseed="4242", tz="XST-13:45", locale=locales[1])
    driftboard(work, env, "verify", "submissions/", "--no-cache", "--jobs", "2", "--out", str(out / "verified"))
    driftboard(work, env, "build", "--no-verify", "--results", str(out / "verified"), "--out", str(out / "public"))
    return Run(work, out / "verified", out / "public", out / "public-docs")


@pytest.fixture(scope="module")
def run_c(source, locales, tmp_path_factory) -> Run:
    base = tmp_path_factory.mktemp("run-c")
    work = base / "work"
    shutil.copytree(source, work)
    env = environment(base, hashseed="7", tz="UTC0", locale=locales[0])
    for k in (1, 2):
        driftboard(work, env, "verify", "submissions/", "--no-cache", "--shard", f"{k}/2", "--out", f"shard-{k}")
    driftboard(work, env, "merge", "shard-1", "shard-2", "--out", "build/results")
    driftboard(work, env, "build", "--no-verify", "--out", "build/site")
    return Run(work, work / "build" / "results", work / "build" / "site", work / "build" / "docs")


def test_jobs_hashseed_timezone_locale_and_paths_do_not_change_a_byte(run_a, run_b, locales):
    assert_same_tree(run_a.results, run_b.results, f"results (A: --jobs 1, {locales[0]}; B: --jobs 2, {locales[1]})")
    assert_same_tree(run_a.docs, run_b.docs, "assembled MkDocs sources")
    assert_same_tree(run_a.site, run_b.site, "built site")


def test_shards_and_merge_give_the_bytes_of_one_run(run_a, run_c):
    assert_same_tree(run_a.results, run_c.results, "results (A: one run, C: two shards merged)")
    assert_same_tree(run_a.site, run_c.site, "built site from merged shards")


def test_building_again_into_the_same_folder_gives_the_same_site(run_a, locales, tmp_path):
    snapshot = tmp_path / "first"
    shutil.copytree(run_a.site, snapshot / "site")
    shutil.copytree(run_a.docs, snapshot / "docs")
    work = run_a.work
    env = environment(tmp_path, hashseed="99", tz="XST-13:45", locale=locales[0])
    driftboard(work, env, "build", "--no-verify", "--out", "build/site")
    assert_same_tree(snapshot / "site", run_a.site, "site built twice from the same results")
    assert_same_tree(snapshot / "docs", run_a.docs, "MkDocs sources assembled twice")


def test_warm_cache_hits_give_the_bytes_of_an_uncached_run(run_a, source, locales, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(source, work)
    env = environment(tmp_path, hashseed="3", tz="UTC0", locale=locales[0])
    for attempt in range(3):
        # the cache key includes a digest of the checker's own sources: when they are edited while
        # the pair runs (a working checkout, never CI), every lookup misses, so run the pair again
        sources = checker_sources()
        cache = tmp_path / f"one-cache-{attempt}"
        counts = []
        for out in ("cold", "warm"):
            proc = driftboard(work, env, "verify", "submissions/", "--cache-dir", str(cache), "--out", out,
                              "--format", "json")
            counts.append(json.loads(proc.stdout)["cache"])
        if checker_sources() == sources:
            break
    # seven shipped submissions: all computed, then all served from the cache
    assert counts == [{"hits": 0, "misses": 7}, {"hits": 7, "misses": 0}], counts
    assert_same_tree(run_a.results, work / "cold", "results of a cold-cache run")
    # binding.json records which results files came from the cache (a publishing job refuses those,
    # issue 29): that one list differs, nothing else does
    binding = json.loads((work / "warm" / "binding.json").read_text())
    assert binding["cached"] == sorted(p.name for p in (work / "warm").glob("*.json")
                                       if p.name not in ("binding.json", "boards.json", "index.json"))
    binding["cached"] = []
    (work / "warm" / "binding.json").write_text(canonical_json(binding))
    assert_same_tree(run_a.results, work / "warm", "results served from the cache")
    driftboard(work, env, "build", "--no-verify", "--results", "warm", "--out", "build/site")
    assert_same_tree(run_a.site, work / "build" / "site", "site built from cached results")


def test_the_compared_trees_hold_every_kind_of_output(run_a):
    """Guards the comparisons above against comparing two empty or partial trees."""
    results = tree_files(run_a.results)
    # each board's comparisons in a file of its own, named in boards.json (seven submissions: six boards)
    comparisons = sorted(b["comparisons"]["file"] for b in json.loads(results["boards.json"])["boards"])
    assert len(comparisons) == 6 and [r for r in sorted(results) if r.startswith("comparisons-")] == comparisons
    assert sorted(r for r in results if not r.startswith("comparisons-")) == ["binding.json", "boards.json",
                                                                                "drift-bench-examples.json",
                               "driftboard-constraint-baselines.json",
                               "driftboard-microworld-agent.json", "driftboard-microworld-reference.json",
                               "driftboard-reference-full.json", "driftboard-reference-lite.json", "index.json",
                               "tau-bench-gpt-4o-airline.json"]
    site = tree_files(run_a.site)
    assert [r for r in sorted(site) if r.startswith("downloads/boards/")] == [f"downloads/boards/{c}" for c in comparisons]
    for rel in ("index.html", "404.html", "sitemap.xml", "sitemap.xml.gz", "search/search_index.json",
                "leaderboards/agent/index.html", "leaderboards/constraint/index.html",
                "leaderboards/completion/index.html", "submissions/tau-bench-gpt-4o-airline/index.html",
                "submissions/driftboard-microworld-agent/index.html", "preregistered/index.html"):
        assert rel in site, rel
    assert any(r.startswith("downloads/") and r.endswith(".csv") for r in site)
    assert any(r.startswith("assets/charts/") and r.endswith(".json") for r in site)
    assert any(r.startswith("schema/") and r.endswith(".schema.json") for r in site)
    # the throw-away repository's history was used (commit order checked, not "unknown")
    if shutil.which("git"):
        for name in ("drift-bench-examples.json", "driftboard-constraint-baselines.json",
                     "driftboard-microworld-agent.json", "tau-bench-gpt-4o-airline.json"):
            assert json.loads(results[name])["prereg_check"]["commit_order"]["status"] in ("ok", "together"), name


def test_the_site_carries_no_build_time(run_a):
    """MkDocs stamps the build date into sitemap.xml.gz's gzip header (and <lastmod>); the build
    pins it to 0, gzip's "no time stamp" (RFC 1952), so another day gives the same bytes."""
    raw = (run_a.site / "sitemap.xml.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert int.from_bytes(raw[4:8], "little") == 0
    assert gzip.decompress(raw) == (run_a.site / "sitemap.xml").read_bytes()
    sitemap = (run_a.site / "sitemap.xml").read_text(encoding="utf-8")
    assert all(line.strip() == "<lastmod>1970-01-01</lastmod>" for line in sitemap.splitlines() if "lastmod" in line)


def test_build_epoch_defaults_to_zero_honours_the_caller_and_restores_the_environment(monkeypatch):
    from mkdocs.utils import get_build_date

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    with build_epoch():
        assert get_build_date() == "1970-01-01"
    assert "SOURCE_DATE_EPOCH" not in os.environ
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01T00:00:00Z, e.g. set by a packager
    with build_epoch():
        assert get_build_date() == "2026-01-01"
    assert os.environ["SOURCE_DATE_EPOCH"] == "1767225600"
    for bad in ("soon", "", "-1", "1.5", " 7", "4294967296", "\u0661\u0662"):  # 2**32 overflows gzip's MTIME
        monkeypatch.setenv("SOURCE_DATE_EPOCH", bad)
        with pytest.raises(UsageError, match="SOURCE_DATE_EPOCH"), build_epoch():
            pass
        assert os.environ["SOURCE_DATE_EPOCH"] == bad


def test_no_working_path_leaks_into_any_output(run_a, run_b):
    """Outputs name files relative to the submission folder, never by the absolute path of a checkout."""
    for run in (run_a, run_b):
        needles = {str(run.work).encode(), str(run.results.parent).encode(), str(REPO).encode()}
        for root in (run.results, run.docs, run.site):
            for rel, data in tree_files(root).items():
                for needle in needles:
                    assert needle not in data, f"{root / rel} contains {needle.decode()!r}"

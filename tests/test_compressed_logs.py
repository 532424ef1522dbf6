"""Compressed run logs (`.jsonl.gz`, `.jsonl.zst`): the same log, bounded decompression, one finding per bad blob.

* A submission whose logs are compressed (by `driftboard compress`, and by hand with the standard tools'
  formats) verifies to the same results as the plain one: every run's figures and `log_sha256` are
  equal; only the paths (their suffix) and the results digest over them differ.
* A bomb (a small file that expands past `MAX_EXPANSION` times its size), a corrupt or truncated stream,
  a file whose bytes are not the format its name says, and a compressed file named `.jsonl` each give one
  finding, exit 1, in bounded time, never a traceback.
* The writer writes compressed logs with deterministic bytes, and refuses to append to one.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import time
from pathlib import Path

import pytest
import zstandard
from conftest import REPO

from checker.format.logio import RunLogWriter
from checker.format.storage import MAX_EXPANSION, MIN_ALLOWANCE, allowance, log_sha256

EXAMPLES = REPO / "submissions" / "drift-bench-examples"
PROBLEMS = REPO / "problems" / "drift-bench-v1"


def _copy(tmp_path: Path, name: str = "drift-bench-examples") -> Path:
    dst = tmp_path / name
    shutil.copytree(EXAMPLES, dst)
    return dst


def _verify(run_line, folder: Path, out: Path):
    return run_line(["verify", str(folder), "--problems", str(PROBLEMS), "--out", str(out), "--format", "json"])


def _runs(results: Path) -> dict[str, dict]:
    doc = json.loads(results.read_text(encoding="utf-8"))
    return {r["run_id"]: {k: v for k, v in r.items() if k != "path"} for r in doc["runs"]}


@pytest.mark.parametrize("storage", ["zstd", "gzip"])
def test_a_compressed_submission_verifies_as_the_plain_one(run_line, tmp_path: Path, storage: str) -> None:
    plain = _copy(tmp_path / "plain")
    packed = _copy(tmp_path / "packed")
    res = run_line(["compress", str(packed), "--format", storage])
    assert res.exit_code == 0, res.output
    suffix = ".jsonl.zst" if storage == "zstd" else ".jsonl.gz"
    logs = sorted((packed / "runs").iterdir())
    assert logs and all(p.name.endswith(suffix) for p in logs)
    assert suffix in (packed / "submission.yaml").read_text(encoding="utf-8")
    a, b = _verify(run_line, plain, tmp_path / "rp"), _verify(run_line, packed, tmp_path / "rc")
    assert a.exit_code == b.exit_code == 0, b.output
    ra, rb = _runs(tmp_path / "rp" / "drift-bench-examples.json"), _runs(tmp_path / "rc" / "drift-bench-examples.json")
    assert ra == rb and len(ra) == 4
    # the digest cited is the plain file's SHA-256, whatever the storage
    for p in sorted((plain / "runs").iterdir()):
        assert hashlib.sha256(p.read_bytes()).hexdigest() in {r["log_sha256"] for r in rb.values()}


def test_compressed_logs_written_by_the_standard_tools_are_read(run_line, tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    logs = sorted((folder / "runs").glob("*.jsonl"))
    gz, zst = logs[0], logs[1]
    gz.with_name(gz.name + ".gz").write_bytes(gzip.compress(gz.read_bytes(), 6))  # gzip(1) defaults, with mtime
    zst.with_name(zst.name + ".zst").write_bytes(zstandard.ZstdCompressor(level=3, write_checksum=True)
                                                 .compress(zst.read_bytes()))
    manifest = folder / "submission.yaml"
    text = manifest.read_text(encoding="utf-8")
    for p, ext in ((gz, ".gz"), (zst, ".zst")):
        text = text.replace(f"runs/{p.name}\n", f"runs/{p.name}{ext}\n")
        p.unlink()
    manifest.write_text(text, encoding="utf-8")
    res = _verify(run_line, folder, tmp_path / "r")
    assert res.exit_code == 0, res.output


def _one_log_submission(tmp_path: Path, name: str, data: bytes) -> Path:
    """The examples submission with its first log replaced by `data` stored under `name`."""
    folder = _copy(tmp_path)
    first = sorted((folder / "runs").glob("*.jsonl"))[0]
    manifest = folder / "submission.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(f"runs/{first.name}\n", f"runs/{name}\n"),
                        encoding="utf-8")
    first.unlink()
    (folder / "runs" / name).write_bytes(data)
    return folder


def _findings(res) -> list[str]:
    doc = json.loads(res.output)
    return [f"{f['path']}:{f.get('line')}: {f['message']}" for f in doc["problems"]]


def test_a_decompression_bomb_is_one_finding_in_bounded_time(run_line, tmp_path: Path) -> None:
    line = b'{"seq":0}\n'
    bomb = zstandard.ZstdCompressor(level=3).compress(line * ((MIN_ALLOWANCE * 4) // len(line)))
    assert len(bomb) * MAX_EXPANSION < MIN_ALLOWANCE  # the bound that applies is the floor: 16 MiB
    folder = _one_log_submission(tmp_path, "bomb.jsonl.zst", bomb)
    t = time.process_time()
    res = _verify(run_line, folder, tmp_path / "r")
    took = time.process_time() - t
    assert res.exit_code == 1, res.output
    (hit,) = [f for f in _findings(res) if "bomb.jsonl.zst" in f and "expands past" in f]
    assert f"expands past {allowance(len(bomb))} bytes" in hit
    assert took < 30, took
    assert "Traceback" not in res.output


@pytest.mark.parametrize(("name", "make", "expected"), [
    ("cut.jsonl.gz", lambda d: gzip.compress(d)[:-40], "gzip stream is corrupt or truncated"),
    ("cut.jsonl.zst", lambda d: zstandard.ZstdCompressor().compress(d)[:-40], "zstd stream is corrupt or truncated"),
    ("noise.jsonl.gz", lambda d: b"\x1f\x8b" + bytes(range(256)) * 8, "gzip stream is corrupt or truncated"),
    ("plain.jsonl.gz", lambda d: d, "named .gz, but the file is not gzip-compressed"),
    ("zst.jsonl.gz", lambda d: zstandard.ZstdCompressor().compress(d), "zstd-compressed file named 'zst.jsonl.gz'"),
    ("gz.jsonl", lambda d: gzip.compress(d), "gzip-compressed file named 'gz.jsonl'"),
    ("bz.jsonl", lambda d: b"BZh91AY&SY" + d, "bzip2-compressed file named 'bz.jsonl'"),
])
def test_a_bad_compressed_log_is_one_finding(run_line, tmp_path: Path, name: str, make, expected: str) -> None:
    data = sorted((EXAMPLES / "runs").glob("*.jsonl"))[0].read_bytes()
    folder = _one_log_submission(tmp_path, name, make(data))
    res = _verify(run_line, folder, tmp_path / "r")
    assert res.exit_code == 1, res.output
    hits = [f for f in _findings(res) if f"runs/{name}" in f]
    assert len(hits) == 1 and expected in hits[0], hits
    assert "Traceback" not in res.output


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_the_writer_writes_compressed_logs_with_deterministic_bytes(tmp_path: Path, suffix: str) -> None:
    start = {"run_id": "r1", "submission_id": "s", "track": "agent", "cell": "FULL", "seed": "s1",
             "started_at": "2026-01-01T00:00:00Z", "method": "m", "backbone": "b", "game_id": "g",
             "prereg_sha256": "0" * 64}
    outs = []
    for n in (1, 2):
        path = tmp_path / f"{n}" / f"r1{suffix}"
        plain = tmp_path / f"{n}" / "r1.jsonl"
        for p in (path, plain):
            with RunLogWriter(p, start) as log:
                log.write({"type": "beat", "turn": 1, "action": "ACTION1"})
        assert log_sha256(path) == hashlib.sha256(plain.read_bytes()).hexdigest()
        outs.append(path.read_bytes())
    assert outs[0] == outs[1]
    with pytest.raises(ValueError, match="cannot append to a compressed log"):
        RunLogWriter(tmp_path / "1" / f"r1{suffix}")


def test_compress_keeps_the_recorded_log_digests(run_line, tmp_path: Path) -> None:
    """`logs_sha256` records each log's digest as written; compressed, the same digest holds (of the lines)."""
    folder = _copy(tmp_path)
    logs = sorted((folder / "runs").glob("*.jsonl"))
    manifest = folder / "submission.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "logs_sha256:\n" + "".join(
        f"  runs/{p.name}: {hashlib.sha256(p.read_bytes()).hexdigest()}\n" for p in logs), encoding="utf-8")
    assert run_line(["validate", str(folder)]).exit_code == 0
    assert run_line(["compress", str(folder)]).exit_code == 0
    text = manifest.read_text(encoding="utf-8")
    assert all(f"  runs/{p.name}.zst: " in text and f"- runs/{p.name}.zst" in text for p in logs), text
    res = run_line(["validate", str(folder)])
    assert res.exit_code == 0, res.output
    # an edit after compression is still seen: the recorded digest no longer matches the lines
    first = folder / "runs" / f"{logs[0].name}.zst"
    lines = zstandard.ZstdDecompressor().decompressobj().decompress(first.read_bytes())
    first.write_bytes(zstandard.ZstdCompressor().compress(lines.replace(b'"COMPLETED"', b'"ABORTED"')))
    res = run_line(["validate", str(folder)])
    assert res.exit_code == 1 and "the log changed after it was written" in res.output, res.output

"""Property tests of the streaming reader (`checker.format.logio.iter_raw_lines`) and of validation on any bytes.

The expected lines are written from the format's definition (site/format.md: "one JSON object
per line", LF line endings, longest line 1 MiB, longer lines reported and skipped), i.e. the
semantics of `data.split(b"\\n")`, never from the reader's own output.
"""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.format import logio
from checker.format.logio import iter_raw_lines
from checker.format.scan import lines as scan_lines
from checker.format.scan import scanner as scan_scanner
from checker.stages.validate import ValidationReport, validate_run_file

SMALL_LIMIT = 8
"""Patched MAX_LINE_BYTES, so oversize lines are cheap to generate."""

# lines built from a few byte values, LF included so that empty lines and missing final LFs occur
chunks = st.binary(max_size=30) | st.lists(st.sampled_from([b"a", b"\n", b"{}", b"\r", b"\xff", b" "]), max_size=40).map(b"".join)


def expected_lines(data: bytes) -> list[tuple[int, bytes, bool]]:
    """(1-based line number, content without LF, has LF) per `data.split(b"\\n")`; a trailing LF ends the last line."""
    if not data:
        return []
    parts = data.split(b"\n")
    ends_with_lf = parts[-1] == b""
    if ends_with_lf:
        parts = parts[:-1]
    return [(i + 1, p, i < len(parts) - 1 or ends_with_lf) for i, p in enumerate(parts)]


@settings(max_examples=200)
@given(data=chunks)
def test_iter_raw_lines_yields_exactly_the_lf_separated_lines(data):
    got = list(iter_raw_lines(io.BytesIO(data)))
    want = expected_lines(data)
    assert [(r.lineno, r.data, r.has_newline) for r in got] == want
    for r, (_, content, _) in zip(got, want, strict=True):
        assert r.digest == hashlib.sha256(content).hexdigest()
        assert (r.oversize, r.length) == (False, len(content))


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=chunks)
def test_oversize_lines_are_flagged_hashed_and_skipped(monkeypatch, data):
    monkeypatch.setattr(logio, "MAX_LINE_BYTES", SMALL_LIMIT)
    monkeypatch.setattr(logio, "READ_CHUNK", 3)
    got = list(iter_raw_lines(io.BytesIO(data)))
    want = expected_lines(data)
    assert len(got) == len(want)
    for r, (lineno, content, has_lf) in zip(got, want, strict=True):
        too_long = len(content) > SMALL_LIMIT
        assert (r.lineno, r.has_newline, r.oversize, r.length) == (lineno, has_lf, too_long, len(content))
        assert r.data == (b"" if too_long else content)  # memory stays bounded: oversize content is not kept
        assert r.digest == hashlib.sha256(content).hexdigest()


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=chunks)
def test_validate_never_raises_and_locates_every_finding(tmp_path_factory, monkeypatch, data):
    monkeypatch.setattr(logio, "MAX_LINE_BYTES", SMALL_LIMIT)
    monkeypatch.setattr(scan_lines, "MAX_LINE_BYTES", SMALL_LIMIT)  # the line source's bound
    monkeypatch.setattr(scan_scanner, "MAX_LINE_BYTES", SMALL_LIMIT)  # and its finding
    path = tmp_path_factory.mktemp("any") / "r.jsonl"
    path.write_bytes(data)
    report = ValidationReport()
    validate_run_file(path, "r.jsonl", report)
    assert report.exit_code in (0, 1, 2)
    if data and logio.compressed_kind(data[:8]) is not None:  # refused on its magic bytes, never read as lines
        assert [f.message.split(":")[0] for f in report.findings] == [f"{logio.compressed_kind(data[:8])}-compressed file"]
        return
    lines = expected_lines(data)
    assert report.lines == len(lines)
    for f in report.findings:
        assert f.message and (f.line is None or 1 <= f.line <= len(lines)), f.render()
    oversize = [f"r.jsonl:{n}: line is {len(c)} bytes, longer than the {SMALL_LIMIT}-byte limit"
                for n, c, _ in lines if len(c) > SMALL_LIMIT]
    assert [f.render() for f in report.findings if "longer than the" in f.message] == oversize
    if not data:
        assert [f.render() for f in report.findings] == ["r.jsonl: empty run log (no events)"]
    elif not data.endswith(b"\n") and len(lines[-1][1]) <= SMALL_LIMIT:
        assert f"r.jsonl:{len(lines)}: truncated last line (no newline at end of file)" in [f.render() for f in report.findings]


json_lines = st.lists(
    st.one_of(st.binary(max_size=20), st.sampled_from([b"{}", b"[]", b'{"seq":0}', b"null", b'{"a":1,"a":2}', b"NaN",
                                                          b'{"x":NaN}', b"\xef\xbb\xbf{}", b'{"type":"run_end"}', b""])),
    max_size=6,
).map(lambda ls: b"\n".join(ls))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=json_lines, fmt=st.sampled_from(["text", "json"]), newline=st.booleans())
def test_cli_validate_of_any_bytes_reports_without_traceback(tmp_path_factory, run_line, data, fmt, newline):
    path = tmp_path_factory.mktemp("cli") / "r.jsonl"
    path.write_bytes(data + (b"\n" if newline else b""))
    result = run_line(["validate", str(path), "--format", fmt])
    assert result.exit_code in (0, 1, 2)
    assert "Traceback" not in result.output
    if fmt == "json":
        doc = json.loads(result.stdout)
        assert doc["exit_code"] == result.exit_code and doc["ok"] == (result.exit_code == 0)
        for p in doc["problems"]:
            assert p["path"] == str(path) and p["message"]
    # a log that is not a chained run (no run_start with a run id) can never validate clean
    assert result.exit_code != 0


@pytest.mark.parametrize("data", [b"", b"\n", b"\n\n", b"x", b"x\n", b"x\ny", b"\r\n"])
def test_edge_cases_match_split_semantics(data):
    assert [(r.lineno, r.data, r.has_newline) for r in iter_raw_lines(io.BytesIO(data))] == expected_lines(data)

"""A validated run log as the scorers read it: a `RunRecord` (events in order, their lines, digests).

Two ways in: from the events validation kept while it scanned the log (`kept_record`), or by
reading the log again, streamed, when it was too large to keep (`read_run`). Either way the payload
digest copy detection compares is computed in the same pass.
"""

from __future__ import annotations

from pathlib import Path

from checker.format.logio import read_events
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.events import Event
from checker.format.storage import log_sha256
from checker.stages.copies import PayloadDigest
from checker.stages.tracks import RunRecord
from checker.stages.validate import KeptLog


def kept_record(kept: KeptLog, shown: str) -> RunRecord:
    """The `RunRecord` of a log whose events validation kept (the same record `read_run` reads)."""
    return RunRecord(path=shown, sha256=kept.sha256, start=kept.start, end=kept.end, events=kept.events,
                     lines=kept.lines, content_sha256=kept.content_sha256,
                     content_sketch=kept.content_sketch)


def read_run(path: Path, shown: str) -> RunRecord:
    """Read a validated run log into a `RunRecord`."""
    start: RunStart | None = None
    end: RunEnd | None = None
    events: list[Event] = []
    lines: list[int] = []
    payload = PayloadDigest()  # copies are detected by content, computed in this one pass
    for lineno, event in read_events(path):
        if isinstance(event, RunStart):
            start = event
        elif isinstance(event, RunEnd):
            end = event
        else:
            events.append(event)
            lines.append(lineno)
            payload.add(event)
    assert start is not None, "validated logs start with run_start"
    return RunRecord(path=shown, sha256=log_sha256(path), start=start, end=end, events=events, lines=lines,
                     content_sha256=payload.hexdigest(), content_sketch=payload.sketch())

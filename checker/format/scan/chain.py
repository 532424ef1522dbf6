"""The chain and sequence state machine of one run log: pure (no I/O, no parsing), fed line by line.

Line k (1-based) must carry `seq` = k - 1 and, as `prev`, the SHA-256 of line k - 1's bytes (line 1:
of the UTF-8 run id). `Chain` holds where a log stands and words what is wrong with a line's `seq`
or `prev`; a line whose `seq` cannot be read still takes its place in the numbering.
"""

from __future__ import annotations

from checker.format.logio import genesis
from checker.format.schema.base import INT_MAX

CHAIN_REMEDY = ("the log changed after it was written (a line edited, lost, added or reordered): never edit "
                "a run log; restore the file your harness wrote, or re-run the run")
"""What to do about a broken chain (ends every chain-broken finding)."""
SEQ_REMEDY = "seq numbers the lines from 0 without gaps: write logs with RunLogWriter, and never edit one"
"""What to do about a wrong `seq` (ends every seq finding)."""
CASE_REMEDY = "write digests in lower-case hex, as RunLogWriter does"
"""What to do about an upper-case digest."""


class Chain:
    """Where the hash chain and the `seq` numbering of one log stand."""

    __slots__ = ("_after_end_told", "digest", "ended_at", "expected", "last_seq", "run_id")

    def __init__(self) -> None:
        self.digest: str | None = None
        """SHA-256 of the last line linked."""
        self.expected: str | None = None
        """The `prev` the current line must carry (None: unknown, not checked)."""
        self.last_seq = -1
        """The highest `seq` taken so far."""
        self.ended_at: int | None = None
        """Line of the first `run_end`."""
        self.run_id: str | None = None
        """The run id line 1's `run_start` names (its genesis is line 1's `prev`)."""
        self._after_end_told = False

    def link(self, digest: str) -> None:
        """A new line, whose bytes hash to `digest`: it must carry the previous line's digest."""
        self.expected = self.digest
        self.digest = digest

    def begin(self, run_id: str | None) -> None:
        """Line 1 names its run id (or None): its `prev` must be the id's genesis (unchecked without one)."""
        self.run_id = run_id
        self.expected = genesis(run_id) if run_id is not None else None

    def follows(self, seq: int, prev: str) -> bool:
        """True, with `seq` taken, when a line is the exact next link (the next `seq`, the expected `prev`)."""
        if seq == self.last_seq + 1 and prev == self.expected:
            self.last_seq = seq
            return True
        return False

    def skip(self) -> None:
        """A line whose `seq` cannot be read takes its place in the numbering."""
        self.last_seq += 1

    def take(self, seq: object, prev: object, lineno: int) -> tuple[tuple[int, str], ...]:
        """Take line `lineno`'s `seq` and `prev` (anything its JSON holds): (lineno, problem) for each problem, in order."""
        if type(seq) is int and seq == self.last_seq + 1 and prev == self.expected and self.ended_at is None:
            self.last_seq = seq  # the common case: the exact next link
            return ()
        messages = (self.number(seq), self.check_prev(prev, lineno), self.after_end())
        return tuple((lineno, m) for m in messages if m is not None)

    def number(self, seq: object) -> str | None:
        """Take a line's `seq` (anything its JSON holds); the problem with it, or None."""
        if type(seq) is not int or not 0 <= seq <= INT_MAX:
            self.last_seq += 1  # missing or not a valid seq (the schema says why): the line still takes its place
            return None
        last = self.last_seq
        if seq > last:
            self.last_seq = seq
        return None if seq == last + 1 else f"{_seq_problem(seq, last)}; {SEQ_REMEDY}"

    def check_prev(self, prev: object, lineno: int) -> str | None:
        """The problem with line `lineno`'s `prev`, or None (also when it is not a string: the schema says why)."""
        expected = self.expected
        if not isinstance(prev, str) or expected is None or prev == expected:
            return None
        what = "prev of the first line is not the SHA-256 of the run id" if lineno == 1 else \
            f"prev is not the SHA-256 of line {lineno - 1}"
        if prev.lower() == expected:
            what = what.replace(" is not ", " is ", 1) + " but in upper-case hex (digests are lower-case)"
            return f"chain broken: {what}; {CASE_REMEDY}"
        return f"chain broken: {what}; {CHAIN_REMEDY}"

    def after_end(self) -> str | None:
        """The problem with a line after `run_end` (worded once per log), or None."""
        if self.ended_at is None or self._after_end_told:
            return None
        self._after_end_told = True
        return f"event after run_end (line {self.ended_at})"

    def end(self, lineno: int) -> bool:
        """A `run_end` at `lineno`; True when it is the log's first."""
        if self.ended_at is not None:
            return False
        self.ended_at = lineno
        return True


def _seq_problem(seq: int, last: int) -> str:
    expected = last + 1
    if seq == last:
        return f"duplicated seq {seq}"
    if seq < last:
        return f"seq {seq} out of order (after seq {last})"
    if seq == expected + 1:
        return f"seq {seq}, expected {expected}: seq {expected} is missing"
    if seq > expected:
        return f"seq {seq}, expected {expected}: seqs {expected}..{seq - 1} are missing"
    return f"seq {seq} out of order (expected {expected})"

"""The run-log scanner: one pass over a log's bytes, with no checking policy of its own.

`lines` is the bounded line source (physical lines of at most `MAX_LINE_BYTES`, each with the SHA-256
the next line's `prev` must carry); `chain` is the pure state machine of the hash chain and the `seq`
numbering; `parsers` has the one line-parser interface (`LineParser`) and its two implementations, the
canonical fast parser and the strict parser; `scanner` drives them over the lines and hands every event
to the caller's sinks. What to refuse before reading, how many problems to list and what a run's facts
mean is `checker.stages.validate`'s business.
"""

from checker.format.scan.chain import CASE_REMEDY, CHAIN_REMEDY, SEQ_REMEDY, Chain
from checker.format.scan.lines import Flaw, Line, bounded_lines
from checker.format.scan.parsers import DECLINED, CanonicalParser, LineParser, Parsed, Problem, StopScan, StrictParser
from checker.format.scan.scanner import GIVE_UP, EventSink, HeaderSink, Scanner, scan_log

__all__ = [
    "CASE_REMEDY", "CHAIN_REMEDY", "DECLINED", "GIVE_UP", "SEQ_REMEDY", "CanonicalParser", "Chain", "EventSink", "Flaw",
    "HeaderSink", "Line", "LineParser", "Parsed", "Problem", "Scanner", "StopScan", "StrictParser", "bounded_lines",
    "scan_log",
]

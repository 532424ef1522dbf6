"""Domain exceptions, the finding record, and how an untrusted name or message is shown.

`checker.cli.main` is the one place that maps the exceptions to exit codes; `visible` and
`describe_char` spell out characters that could hide text or drive a terminal.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Literal

INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories shown as escapes: controls (C0, DEL, C1), format characters (bidi overrides and
isolates, zero-width characters, the BOM), surrogates, private-use and unassigned code points, and
line/paragraph separators."""


def is_invisible(ch: str) -> bool:
    """True for a character that could hide text or drive a terminal (see INVISIBLE_CATEGORIES)."""
    return unicodedata.category(ch) in INVISIBLE_CATEGORIES


def escape_char(ch: str) -> str:
    """A character spelled as a Python escape: `\\x1b`, `\\u202e`, `\\U000e0001`."""
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def visible(text: str, keep: str = "") -> str:
    """`text` with every invisible character (except those in `keep`) spelled as an escape.

    Submitted names and messages reach terminals, job summaries and pages: an ESC sequence
    (`\\x1b[31m`) would drive the terminal, a bidi override (U+202E) would reorder what a
    reviewer reads, a zero-width space would make two names look equal. Escaped, each is shown as
    what it is. Ordinary spaces (including no-break spaces) are kept.
    """
    if text.isprintable():
        return text
    return "".join(escape_char(ch) if ch not in keep and is_invisible(ch) else ch for ch in text)


def describe_char(ch: str) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE (a bidi or zero-width formatting character)`, for findings."""
    code = f"U+{ord(ch):04X}"
    name = unicodedata.name(ch, "")
    label = f"{code} {name}" if name else code
    category = unicodedata.category(ch)
    if category == "Cc":
        kind = "a control character"
    elif category == "Cf":
        kind = "a bidi or zero-width formatting character"
    elif is_invisible(ch):
        kind = "an invisible character"
    elif ord(ch) > 0x7F:
        kind = "a non-ASCII character: look-alike letters and Unicode normalisation make such names ambiguous"
    else:
        kind = "not a portable file-name character"
    return f"{label} ({kind})"


class DriftboardError(Exception):
    """Base of every expected, user-fixable failure (printed without a traceback)."""


class UsageError(DriftboardError):
    """The command was called wrongly, or its input cannot be read at all (exit 2)."""


class LogFormatError(DriftboardError):
    """A run log breaks the canonical format (exit 1 when verifying)."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        self.path = path
        self.line = line
        self.message = message


class MissingInputError(DriftboardError):
    """A run cannot be recomputed because an input it names (e.g. its problem set) was not given.

    The run is reported as UNVERIFIED with this message; other runs are still verified.
    """


class UnsupportedVersionError(DriftboardError):
    """A log or manifest declares a newer major format version than this checker reads."""


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found in the input, located as `path:line`."""

    path: str
    line: int | None
    message: str
    severity: Literal["error", "warning"] = "error"
    unreadable: bool = False
    """The input could not be read at all (exit code 2), as opposed to a problem found in it."""

    def render(self) -> str:
        """`path:line: message` (or `path: message` when the problem has no line), on one line.

        Control, bidi and zero-width characters in the path or the message are spelled as escapes
        (`visible`), so a submitted name can neither colour the terminal nor start a new line.
        """
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        prefix = "warning: " if self.severity == "warning" else ""
        return visible(f"{where}: {prefix}{self.message}")

    def to_json(self) -> dict[str, object]:
        """The finding as a JSON object (one shape for every command)."""
        return {"path": self.path, "line": self.line, "message": self.message, "severity": self.severity}

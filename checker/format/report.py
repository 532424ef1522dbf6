"""Reporters: render findings as `path:line: message` text or as JSON (one shape for every command).

Output formatters are called reporters because they take a stage's result and report it back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from checker.format.errors import Finding, is_invisible

_NOT_PLAIN = re.compile(r"[^\x20-\x7e\n]")


def findings_text(findings: Sequence[Finding], summary: str) -> str:
    """Every finding on its own line, then a one-line total."""
    lines = [f.render() for f in findings]
    lines.append(summary)
    return "\n".join(lines) + "\n"


def findings_json(command: str, findings: Sequence[Finding], exit_code: int, **extra: Any) -> str:
    """The JSON shape shared by reporting commands: {command, ok, exit_code, problems, ...}."""
    payload: dict[str, object] = {
        "command": command,
        "ok": exit_code == 0,
        "exit_code": exit_code,
        "problems": [f.to_json() for f in findings],
        **extra,
    }
    return safe_json(payload)


def safe_json(obj: Any) -> str:
    """Indented, sorted JSON (UTF-8 text kept) with every invisible character written as `\\uXXXX`.

    `json.dumps` escapes only C0 controls; C1 controls, bidi overrides and zero-width characters
    would reach the terminal raw. Inside a JSON string `\\uXXXX` means the same character, so the
    document is unchanged for a JSON reader.
    """
    text = json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)
    return _NOT_PLAIN.sub(_json_escape, text) + "\n"


def _json_escape(match: re.Match[str]) -> str:
    ch = match.group()
    if not is_invisible(ch):
        return ch
    n = ord(ch)
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000
    return f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}"


def plural(n: int, word: str) -> str:
    """`1 problem`, `2 problems`."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"

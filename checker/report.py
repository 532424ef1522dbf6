"""Reporters: render findings as `path:line: message` text or as JSON (one shape for every command).

Output formatters are called reporters because they take a stage's result and report it back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from checker.errors import Finding


def findings_text(findings: Sequence[Finding], summary: str) -> str:
    """Every finding on its own line, then a one-line total."""
    lines = [f.render() for f in findings]
    lines.append(summary)
    return "\n".join(lines) + "\n"


def findings_json(command: str, findings: Sequence[Finding], exit_code: int, **extra: Any) -> str:
    """The JSON shape shared by reporting commands: {command, ok, exit_code, problems, ...}."""
    payload: dict[str, Any] = {
        "command": command,
        "ok": exit_code == 0,
        "exit_code": exit_code,
        "problems": [f.to_json() for f in findings],
        **extra,
    }
    return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def plural(n: int, word: str) -> str:
    """`1 problem`, `2 problems`."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"

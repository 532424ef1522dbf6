"""The results file format: its one serialisation, its digest, and reading a file back.

What the renderer, `cite`, `merge` and the cache need of a results file, without the stage that
builds one (which imports the pipeline).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from itertools import islice
from pathlib import Path
from typing import Any

from checker.format.errors import UsageError
from checker.format.results_model import ResultsFile

INDEX = "index.json"
BOARDS = "boards.json"
"""The boards document beside the index (`checker.pipeline.boards`): not a results file."""
BINDING = "binding.json"
"""What binds a results folder to the job, the code and the inputs that computed it (`checker.pipeline.binding`)."""


def is_results_name(name: str) -> bool:
    """Whether a file of a results folder is a submission's results file.

    A `.json` file that is not the index, the boards, the binding or a shard's (a board's comparisons file is `.csv`).
    """
    return name.endswith(".json") and name not in (INDEX, BOARDS, BINDING) and not name.startswith("shard-")
"""The summary of a results folder, written beside one `<submission-id>.json` per submission."""


_CANONICAL = json.JSONEncoder(sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
_BATCH = 65_536
"""Encoder pieces joined at a time (`canonical_json`)."""


def canonical_json(obj: Any) -> str:
    """The one serialisation of results: sorted keys, 2-space indent, UTF-8, trailing newline.

    The text of `json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)`
    plus a newline, byte for byte, but joined a batch of pieces at a time: `json.dumps` with an
    indent lists every piece first (millions of small strings for a 25 MB results file: 167 MB
    held at once, the peak of a DRIFT-Bench-size verify), here at most `_BATCH` are.
    """
    pieces = _CANONICAL.iterencode(obj)
    parts: list[str] = []
    while batch := list(islice(pieces, _BATCH)):
        parts.append("".join(batch))
    parts.append("\n")
    return "".join(parts)


def content_digest(obj: Mapping[str, object]) -> str:
    """SHA-256 of the canonical JSON of `obj` without its `digest` field."""
    body = {k: v for k, v in obj.items() if k != "digest"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def canonical_with_digest(data: dict[str, object]) -> str:
    """Set `data["digest"]` (`content_digest`) and return the canonical JSON of `data`, encoding it once.

    The canonical text of `data` with a placeholder digest holds the text `content_digest`
    hashes plus one line, `  "digest": ...,`: that line is cut out to hash the rest, then
    given the real value. Equal to `data["digest"] = content_digest(data); canonical_json(data)`,
    byte for byte (falls back to exactly that when the line is not where the keys put it).
    """
    placeholder = "0" * 64
    data["digest"] = placeholder
    text = canonical_json(data)
    line = f'\n  "digest": "{placeholder}",\n'
    at = text.find(line)
    if at < 0 or text.find(line, at + 1) >= 0 or not isinstance(data, dict) or len(data) < 2:
        data["digest"] = content_digest(data)
        return canonical_json(data)
    body = text[:at] + "\n" + text[at + len(line):]
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    data["digest"] = digest
    return text[:at] + f'\n  "digest": "{digest}",\n' + text[at + len(line):]


def combined_log_digest(digests: list[str]) -> str:
    """One digest over a set of logs: SHA-256 of their sorted SHA-256s, one per line."""
    return hashlib.sha256("".join(f"{d}\n" for d in sorted(digests)).encode()).hexdigest()


def read_results(path: Path) -> ResultsFile:
    """Read one results file.

    Raises:
        UsageError: the file is missing or not a results file.
    """
    try:
        return ResultsFile.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"{path}: cannot read results ({exc.strerror}); run `driftboard verify` first") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not a Driftboard results file ({str(exc).splitlines()[0]})") from None

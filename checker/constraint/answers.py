"""Answer extraction exactly as DRIFT-Bench's `extract_answer` (drift-spec §b.1).

1. Clean-up: closed `<think>…</think>` blocks are removed (case-insensitive); after an
   unclosed `<think>` the text is kept from the first `{` that follows it.
2. The *first* JSON object or array, trying: the whole stripped text; each fenced block;
   then every `{`/`[` position in order, with string-unaware bracket matching. When no
   span parses, a truncation repair appends the unmatched `]` then `}` (tried per start
   position, in order).
3. Normalisation per domain (one level of `solution` unwrapping; entity keys matched
   case-insensitively after trimming; unknown keys dropped; empty means no answer).
4. Regex fallbacks, only when no usable JSON was found.

Normalised answers: seating `{entity: int}`; scheduling `{entity: (start|None, duration|None)}`;
logic grid `{entity: {category: value-string}}`. The LLM "strict JSON formatter" retry of
the reference runner cannot be recomputed from a log and is not part of extraction.
"""

from __future__ import annotations

import json
import re
from typing import Any

from checker.constraint.domains import Domain, LogicGrid, Scheduling, Seating, to_int

Answer = dict[str, Any]

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_DECODER = json.JSONDecoder()
MAX_JSON_STARTS = 1000
"""Step 2 tries at most the first 1,000 `{`/`[` positions (real responses hold a few dozen)."""
MAX_JSON_WORK = 8 << 20
"""...and gives up (no JSON found) once its parse attempts have read 8 Mi characters in total.

Trying one start costs up to the length of the text, so without bounds a hostile 1 MB response
of brackets would take hours. The reference has neither bound; on real responses (a few dozen
starts, at most tens of KB) neither is ever reached, so the answers are the same."""
_FENCE = re.compile(r"```(?:json)?(.*?)```", re.DOTALL)
_LINE = re.compile(r"^[ \t]*[-*]?[ \t]*([A-Za-z][\w .'\-]*?)[ \t]*[:=\-][ \t]*([+-]?\d+)[ \t]*$", re.MULTILINE)


def strip_think(text: str) -> str:
    """Step 1: drop closed think blocks; after an unclosed `<think>`, keep from the next `{`.

    The same as `re.sub(r"<think>.*?</think>", "", text, flags=IGNORECASE | DOTALL)`, in linear
    time: that regex rescans to the end of the text from every unclosed `<think>` (quadratic: a
    response of 200 KB of `<think>` took 90 s). Once an opening tag has no closing tag after it,
    no later one has either.
    """
    kept: list[str] = []
    pos = 0
    while (opened := _THINK_OPEN.search(text, pos)) is not None:
        closed = _THINK_CLOSE.search(text, opened.end())
        if closed is None:
            break
        kept.append(text[pos:opened.start()])
        pos = closed.end()
    text = "".join(kept) + text[pos:] if kept else text
    m = _THINK_OPEN.search(text)
    if m:
        brace = text.find("{", m.end())
        if brace >= 0:
            text = text[brace:]
    return text


def _loads(span: str) -> Any:
    try:
        value = json.loads(span)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def _closers(text: str) -> dict[int, int]:
    """Opening position -> matching closing position (string-unaware, any bracket kind)."""
    depth_before: list[int] = []
    depth = 0
    for ch in text:
        depth_before.append(depth)
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    nearest: dict[int, int] = {}
    out: dict[int, int] = {}
    for j in range(len(text) - 1, -1, -1):
        ch = text[j]
        if ch in "}]":
            nearest[depth_before[j] - 1] = j
        elif ch in "{[":
            k = nearest.get(depth_before[j])
            if k is not None:
                out[j] = k
    return out


def extract_json(text: str) -> Any:
    """Step 2: the first JSON object or array in the cleaned text, or None."""
    text = strip_think(text)
    found = _loads(text.strip())
    if found is not None:
        return found
    for block in _FENCE.findall(text):
        found = _loads(block.strip())
        if found is not None:
            return found
    starts = [i for i, ch in enumerate(text) if ch in "{["][:MAX_JSON_STARTS]
    if not starts:
        return None
    # each start is parsed in place (`raw_decode`) rather than sliced, and the unmatched brackets of
    # every suffix are counted in one pass: the reference's slices and counts per start are quadratic
    match = _closers(text)
    reaches_end: dict[int, bool] = {}
    work = 0
    for i in starts:
        found, end = _decode_at(text, i)
        work += (end if end > i else i + 2 * RECURSION_DEPTH) - i
        if work > MAX_JSON_WORK:
            return None
        # loads(text[i:j + 1]) succeeds exactly when the value parsed at i ends at its matching bracket j
        reaches_end[i] = end == len(text)
        if found is not None and end == match.get(i, -2) + 1:
            return found
    totals = [text.count(c) for c in "[]{}"]
    before = [0, 0, 0, 0]  # brackets in text[:i], counted between consecutive starts
    prev = 0
    for i in starts:
        for n, c in enumerate("[]{}"):
            before[n] += text.count(c, prev, i)
        prev = i
        squares = max(0, (totals[0] - before[0]) - (totals[1] - before[1]))
        curlies = max(0, (totals[2] - before[2]) - (totals[3] - before[3]))
        # text[i:] + closers can parse only if parsing text[i:] ran into the end of the text (a value
        # complete before it leaves extra data; an error before it recurs at the same place)
        if (squares or curlies) and reaches_end[i]:
            work += len(text) - i
            if work > MAX_JSON_WORK:
                return None
            found = _loads(text[i:] + "]" * squares + "}" * curlies)
            if found is not None:
                return found
    return None


RECURSION_DEPTH = 1000
"""About how deep the parser nests before it gives up (Python's recursion limit): an attempt that
ends in a RecursionError has read about this many characters."""


def _decode_at(text: str, i: int) -> tuple[Any, int]:
    """(the JSON value starting at text[i], its end) or (None, where parsing stopped; -1: too deep)."""
    try:
        value, end = _DECODER.raw_decode(text, i)
    except json.JSONDecodeError as exc:
        return None, exc.pos
    except RecursionError:
        return None, -1
    return (value if isinstance(value, dict | list) else None), end


def _entity(domain: Domain, key: Any) -> str | None:
    if not isinstance(key, str):
        return None
    i = domain.index_ci.get(key.strip().lower())
    return None if i is None else domain.entities[i]


def normalize(domain: Domain, obj: Any) -> Answer | None:
    """Step 3: a domain's normalised answer from parsed JSON, or None when nothing usable."""
    if isinstance(obj, dict) and "solution" in obj:
        obj = obj["solution"]
    out: Answer = {}
    if isinstance(domain, Seating):
        if isinstance(obj, dict):
            for k, v in obj.items():
                name, seat = _entity(domain, k), to_int(v)
                if name is not None and seat is not None:
                    out[name] = seat
    elif isinstance(domain, Scheduling):
        if isinstance(obj, dict):
            for k, v in obj.items():
                name = _entity(domain, k)
                if name is None:
                    continue
                if isinstance(v, dict):
                    start = to_int(v["start"]) if "start" in v else None
                    dur = to_int(v["duration"]) if "duration" in v else None
                    out[name] = (start, dur)
                elif not isinstance(v, list):
                    start = to_int(v)
                    if start is not None:
                        out[name] = (start, None)
    elif isinstance(domain, LogicGrid):
        out = _normalize_grid(domain, obj)
    return out or None


def _normalize_grid(domain: LogicGrid, obj: Any) -> Answer:
    out: dict[str, dict[str, str]] = {}
    cats = domain.cat_index

    def put(name: str | None, cat: Any, value: Any) -> None:
        if name is not None and isinstance(cat, str) and cat in cats:
            out.setdefault(name, {})[cat] = str(value)

    if isinstance(obj, list):  # shape C: rows with an `entity` or `name` key
        for row in obj:
            if not isinstance(row, dict):
                continue
            name = _entity(domain, row.get("entity", row.get("name")))
            for cat, value in row.items():
                put(name, cat, value)
    elif isinstance(obj, dict):
        if any(_entity(domain, k) is not None for k in obj):  # shape A: {entity: {category: value}}
            for k, row in obj.items():
                if isinstance(row, dict):
                    name = _entity(domain, k)
                    for cat, value in row.items():
                        put(name, cat, value)
        else:  # shape B: {category: {entity: value}}
            for cat, col in obj.items():
                if isinstance(col, dict):
                    for k, value in col.items():
                        put(_entity(domain, k), cat, value)
    return {k: v for k, v in out.items() if v}


def regex_fallback(domain: Domain, text: str) -> Answer | None:
    """Step 4: line tables and per-entity patterns when no usable JSON was found."""
    out: Answer = {}
    if isinstance(domain, Seating | Scheduling):
        for row_match in _LINE.finditer(text):
            name, number = _entity(domain, row_match.group(1)), to_int(row_match.group(2))
            if name is not None and number is not None:
                out[name] = number if isinstance(domain, Seating) else (number, None)
        if out:
            return out
    if isinstance(domain, Seating):
        for name in domain.entities:
            m = re.search(rf"\b{re.escape(name)}\b[\s\S]{{0,60}}?(?:position|seat)\D{{0,12}}?(\d+)", text, re.I)
            if m:
                out[name] = int(m.group(1))
    elif isinstance(domain, Scheduling):
        for name in domain.entities:
            m = re.search(
                rf"\b{re.escape(name)}\b[\s\S]{{0,80}}?start\D{{0,12}}?(\d+)[\s\S]{{0,80}}?duration\D{{0,12}}?(\d+)",
                text, re.I,
            )
            if m:
                out[name] = (int(m.group(1)), int(m.group(2)))
    elif isinstance(domain, LogicGrid):
        for name in domain.entities:
            row: dict[str, str] = {}
            for line in text.splitlines():
                if not re.search(rf"\b{re.escape(name)}\b", line, re.I):
                    continue
                for cat, values in domain.categories.items():
                    for value in values:
                        if cat not in row and re.search(rf"\b{re.escape(value)}\b", line, re.I):
                            row[cat] = value
            if row:
                out[name] = row
    return out or None


def extract_answer(domain: Domain, text: str | None) -> Answer | None:
    """The normalised answer of a raw response (None: no answer, i.e. `Parse` is false)."""
    if not text:
        return None
    answer = normalize(domain, extract_json(text))
    if answer is None:
        answer = regex_fallback(domain, strip_think(text))
    return answer


def canonical_answer(answer: Answer | None) -> str:
    """A stable string form of a normalised answer (for caching and reports)."""
    return json.dumps(answer, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

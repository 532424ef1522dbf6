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
from collections.abc import Iterator
from typing import Any

from checker.constraint.domains import Domain, LogicGrid, Scheduling, Seating, to_int

Interval = tuple[int | None, int | None]
"""A scheduling answer's (start, duration); either is None when not given."""
Answer = dict[str, int | Interval | dict[str, str]]
"""A normalised answer: entity -> seat (seating), interval (scheduling) or {category: value} (logic grid)."""

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
    found = _whole_or_fenced(text)
    if found is not None:
        return found
    starts = [i for i, ch in enumerate(text) if ch in "{["][:MAX_JSON_STARTS]
    if not starts:
        return None
    scan = _Scan(text)
    try:
        found = scan.in_place(starts)
        return found if found is not None else scan.repaired(starts)
    except _OutOfWork:
        return None


def _whole_or_fenced(text: str) -> Any:
    """The whole stripped text as JSON, else the first fenced block that parses, else None."""
    found = _loads(text.strip())
    if found is not None:
        return found
    for block in _FENCE.findall(text):
        found = _loads(block.strip())
        if found is not None:
            return found
    return None


class _OutOfWork(Exception):
    """The parse attempts have read more than `MAX_JSON_WORK` characters: no JSON is found."""


class _Scan:
    """The parse attempts at each `{`/`[` position of one text, and the characters they have read."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.work = 0
        self.reaches_end: dict[int, bool] = {}
        """Start -> parsing from it ran into the end of the text."""

    def spend(self, chars: int) -> None:
        """Count `chars` more characters read; raises `_OutOfWork` past the bound."""
        self.work += chars
        if self.work > MAX_JSON_WORK:
            raise _OutOfWork

    def in_place(self, starts: list[int]) -> Any:
        """The first start whose value ends at its matching bracket (as the reference's slices parse), or None.

        Each start is parsed in place (`raw_decode`) rather than sliced: the reference's slices are quadratic.
        """
        text = self.text
        match = _closers(text)
        for i in starts:
            found, end = _decode_at(text, i)
            self.spend((end if end > i else i + 2 * RECURSION_DEPTH) - i)
            # loads(text[i:j + 1]) succeeds exactly when the value parsed at i ends at its matching bracket j
            self.reaches_end[i] = end == len(text)
            if found is not None and end == match.get(i, -2) + 1:
                return found
        return None

    def repaired(self, starts: list[int]) -> Any:
        """The truncation repair: the first start whose suffix parses once its unmatched `]`, `}` are appended.

        The unmatched brackets of every suffix are counted in one pass (the reference counts per start).
        """
        text = self.text
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
            if (squares or curlies) and self.reaches_end[i]:
                self.spend(len(text) - i)
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
        out = _normalize_seating(domain, obj)
    elif isinstance(domain, Scheduling):
        out = _normalize_schedule(domain, obj)
    elif isinstance(domain, LogicGrid):
        out = _normalize_grid(domain, obj)
    return out or None


def _normalize_seating(domain: Seating, obj: Any) -> Answer:
    """`{entity: seat}`: known entities with a seat that converts to an int."""
    out: Answer = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            name, seat = _entity(domain, k), to_int(v)
            if name is not None and seat is not None:
                out[name] = seat
    return out


def _normalize_schedule(domain: Scheduling, obj: Any) -> Answer:
    """`{entity: (start, duration)}`: known entities with an interval (`_interval`)."""
    out: Answer = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            name = _entity(domain, k)
            interval = None if name is None else _interval(v)
            if name is not None and interval is not None:
                out[name] = interval
    return out


def _interval(v: Any) -> Interval | None:
    """An object's `start` and `duration` (each None when absent or unconvertible); a bare start; else None."""
    if isinstance(v, dict):
        return (to_int(v["start"]) if "start" in v else None, to_int(v["duration"]) if "duration" in v else None)
    if isinstance(v, list):
        return None
    start = to_int(v)
    return None if start is None else (start, None)


def _normalize_grid(domain: LogicGrid, obj: Any) -> Answer:
    """`{entity: {category: value}}` from any of the reference's three shapes (`_grid_cells`)."""
    out: dict[str, dict[str, str]] = {}
    cats = domain.cat_index
    for name, cat, value in _grid_cells(domain, obj):
        if name is not None and isinstance(cat, str) and cat in cats:
            out.setdefault(name, {})[cat] = str(value)
    return {k: v for k, v in out.items() if v}


Cell = tuple[str | None, Any, Any]
"""(entity or None, category, value): one cell of a logic-grid answer, unchecked."""


def _grid_cells(domain: LogicGrid, obj: Any) -> Iterator[Cell]:
    """Every cell of a logic-grid answer, in the object's order."""
    if isinstance(obj, list):
        return _cells_by_row(domain, obj)
    if not isinstance(obj, dict):
        return iter(())
    if any(_entity(domain, k) is not None for k in obj):
        return _cells_by_entity(domain, obj)
    return _cells_by_category(domain, obj)


def _cells_by_row(domain: LogicGrid, rows: list[Any]) -> Iterator[Cell]:
    """Shape C: rows with an `entity` or `name` key."""
    for row in rows:
        if isinstance(row, dict):
            name = _entity(domain, row.get("entity", row.get("name")))
            yield from ((name, cat, value) for cat, value in row.items())


def _cells_by_entity(domain: LogicGrid, obj: dict[Any, Any]) -> Iterator[Cell]:
    """Shape A: `{entity: {category: value}}`."""
    for k, row in obj.items():
        if isinstance(row, dict):
            name = _entity(domain, k)
            yield from ((name, cat, value) for cat, value in row.items())


def _cells_by_category(domain: LogicGrid, obj: dict[Any, Any]) -> Iterator[Cell]:
    """Shape B: `{category: {entity: value}}`."""
    for cat, col in obj.items():
        if isinstance(col, dict):
            yield from ((_entity(domain, k), cat, value) for k, value in col.items())


def regex_fallback(domain: Domain, text: str) -> Answer | None:
    """Step 4: line tables and per-entity patterns when no usable JSON was found."""
    if isinstance(domain, Seating | Scheduling):
        table = _line_table(domain, text)
        if table:
            return table
    out: Answer = {}
    if isinstance(domain, Seating):
        out = _seat_patterns(domain, text)
    elif isinstance(domain, Scheduling):
        out = _interval_patterns(domain, text)
    elif isinstance(domain, LogicGrid):
        out = _grid_patterns(domain, text)
    return out or None


def _line_table(domain: Seating | Scheduling, text: str) -> Answer:
    """Lines `name: number` (or `=`, `-`): a seat, or a start without duration."""
    out: Answer = {}
    for row_match in _LINE.finditer(text):
        name, number = _entity(domain, row_match.group(1)), to_int(row_match.group(2))
        if name is not None and number is not None:
            out[name] = number if isinstance(domain, Seating) else (number, None)
    return out


def _seat_patterns(domain: Seating, text: str) -> Answer:
    """`<name> ... position|seat ... <n>` per entity."""
    out: Answer = {}
    for name in domain.entities:
        m = re.search(rf"\b{re.escape(name)}\b[\s\S]{{0,60}}?(?:position|seat)\D{{0,12}}?(\d+)", text, re.I)
        if m:
            out[name] = int(m.group(1))
    return out


def _interval_patterns(domain: Scheduling, text: str) -> Answer:
    """`<name> ... start ... <n> ... duration ... <d>` per entity."""
    out: Answer = {}
    for name in domain.entities:
        m = re.search(
            rf"\b{re.escape(name)}\b[\s\S]{{0,80}}?start\D{{0,12}}?(\d+)[\s\S]{{0,80}}?duration\D{{0,12}}?(\d+)",
            text, re.I,
        )
        if m:
            out[name] = (int(m.group(1)), int(m.group(2)))
    return out


def _grid_patterns(domain: LogicGrid, text: str) -> Answer:
    """Per entity, the category values named on the lines that name it (the first value found per category)."""
    out: Answer = {}
    for name in domain.entities:
        row: dict[str, str] = {}
        for line in text.splitlines():
            if re.search(rf"\b{re.escape(name)}\b", line, re.I):
                _values_on_line(domain, line, row)
        if row:
            out[name] = row
    return out


def _values_on_line(domain: LogicGrid, line: str, row: dict[str, str]) -> None:
    """Add to `row` each category not in it yet whose value is named on `line` (the category's first such value)."""
    for cat, values in domain.categories.items():
        for value in values:
            if cat not in row and re.search(rf"\b{re.escape(value)}\b", line, re.I):
                row[cat] = value


def extract_answer(domain: Domain, text: str | None) -> Answer | None:
    """The normalised answer of a raw response (None: no answer, i.e. `Parse` is false)."""
    return read_answer(domain, text)[0]


def read_answer(domain: Domain, text: str | None) -> tuple[Answer | None, bool]:
    """The normalised answer of a raw response and whether every value it gives could be read.

    The reference drops what it cannot read (a seat `"3.0"`, a start `"9:00 AM"`, an entity named
    twice) and credits the rest when it extends to a solution. An answer that gives a value the
    reader drops is not complete (the paper's Complete): what it pins is not what it says.
    The regex fallback reads only digits, so what it finds is readable.
    """
    if not text:
        return None, False
    obj = extract_json(text)
    answer = normalize(domain, obj)
    if answer is None:
        return regex_fallback(domain, strip_think(text)), True
    return answer, readable(domain, obj)


def readable(domain: Domain, obj: Any) -> bool:
    """Every value the JSON answer gives a known entity converts, and no entity is given twice."""
    if isinstance(obj, dict) and "solution" in obj:
        obj = obj["solution"]
    if isinstance(domain, LogicGrid):
        cells = [(name, cat, value) for name, cat, value in _grid_cells(domain, obj)
                 if name is not None and isinstance(cat, str) and cat in domain.cat_index]
        named = {(name, cat) for name, cat, _v in cells}
        return len(named) == len(cells) and not any(isinstance(v, dict | list) for _n, _c, v in cells)
    if not isinstance(obj, dict):
        return True
    seen: set[str] = set()
    for key, value in obj.items():
        name = _entity(domain, key)
        if name is None:
            continue
        if name in seen or not _value_readable(domain, value):
            return False
        seen.add(name)
    return True


def _value_readable(domain: Domain, value: Any) -> bool:
    """A seat, or a scheduling start (bare or in an object) and its duration, that `to_int` reads."""
    if isinstance(domain, Scheduling) and isinstance(value, dict):
        return all(to_int(value[k]) is not None for k in ("start", "duration") if k in value)
    return to_int(value) is not None


def canonical_answer(answer: Answer | None) -> str:
    """A stable string form of a normalised answer (for caching and reports)."""
    return json.dumps(answer, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

"""Reading a submission's YAML manifests (`submission.yaml`, `prereg.yaml`): bounded, safe, with line numbers.

A manifest is untrusted input: its size is bounded, YAML anchors and aliases are refused (no
alias bombs), duplicate keys are errors, and every problem, the schema's included, comes back as a
finding located at the line that holds it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from checker.format.errors import Finding
from checker.stages.files import RefusedFile, open_regular

MAX_YAML_BYTES = 1 << 20
"""Largest accepted `submission.yaml` / `prereg.yaml` (1 MiB)."""
MAX_YAML_DEPTH = 64
"""Deepest nesting of mappings and sequences a manifest may have (the schema needs 5): PyYAML composes and
constructs recursively, so a deeper document (`[[[[...`, a few kilobytes) would hit Python's recursion limit."""

M = TypeVar("M", bound=BaseModel)

Lines = dict[tuple[str, ...], int]
"""Location in the document (keys and list indexes, as strings) -> its 1-based line."""


def read_small(path: Path, display: str, limit: int = MAX_YAML_BYTES) -> tuple[bytes | None, list[Finding]]:
    """The bytes of a small regular file (at most `limit`), or the finding that says why not."""
    try:
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                return None, [Finding(display, None, f"file is {size} bytes, larger than the {limit}-byte limit")]
            raw = fh.read(limit + 1)
    except RefusedFile as exc:
        return None, [Finding(display, None, str(exc))]
    except OSError as exc:
        return None, [Finding(display, None, f"cannot read: {exc.strerror}", unreadable=True)]
    if len(raw) > limit:
        return None, [Finding(display, None, f"file is larger than the {limit}-byte limit")]
    return raw, []


def read_yaml(path: Path, model: type[M], display: str) -> tuple[M | None, list[Finding]]:
    """Parse and validate a YAML manifest; every problem comes back as a located finding."""
    raw, problems = read_small(path, display)
    if raw is None:
        return None, problems
    return parse_yaml(raw, model, display)


def parse_yaml(raw: bytes, model: type[M], display: str) -> tuple[M | None, list[Finding]]:
    """Parse and validate the bytes of a YAML manifest (see `read_yaml`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Finding(display, None, f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}")]
    composed = _compose(text, display)
    if isinstance(composed, Finding):
        return None, [composed]
    node, loader = composed
    if node is None:
        return None, [Finding(display, None, "empty file")]
    lines: Lines = {}
    findings: list[Finding] = []
    _index_nodes(node, (), lines, findings, display)
    findings += folded_fields(node, text.splitlines(), field_names(model), (), display)
    if findings:
        return None, findings
    data = _construct(loader, node, display)
    if isinstance(data, Finding):
        return None, [data]
    if not isinstance(data, dict):
        return None, [Finding(display, 1, "top level must be a mapping")]
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        return None, [Finding(display, _line_for(loc, lines), message) for loc, message in _schema_problems(exc)]


def _compose(text: str, display: str) -> tuple[yaml.Node | None, _SinglePassLoader] | Finding:
    """The document's node tree and the loader that read it; a finding for an anchor, an alias or bad YAML.

    One pass (scan, parse, compose) in the common case; a document with an anchor, an alias or a
    syntax error is read again the three-pass way, which says which comes first.
    """
    try:
        loader = _SinglePassLoader(text)  # the reader checks the characters here: a YAML error too
        return loader.get_single_node(), loader
    except (yaml.YAMLError, _AnchorSeen):
        pass
    except _TooDeep as deep:
        return _too_deep(display, deep)
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AnchorToken | yaml.AliasToken):
                return Finding(display, token.start_mark.line + 1, "YAML anchors and aliases are not allowed")
        node = yaml.compose(text, Loader=_DepthLimited)
    except _TooDeep as deep:
        return _too_deep(display, deep)
    except yaml.YAMLError as exc:
        return yaml_error(exc, display)
    return node, _SinglePassLoader(text)  # not reached for a YAML error or an anchor: the scan returned first


def _too_deep(display: str, deep: _TooDeep) -> Finding:
    return Finding(display, deep.line, f"nested deeper than {MAX_YAML_DEPTH} levels of mappings and lists: not read; "
                                       "a manifest needs a few levels (see the format reference)")


def yaml_error(exc: yaml.YAMLError, display: str) -> Finding:
    """A YAML syntax error at the line where the mistake is.

    The parser stops where it can no longer go on (for an unclosed quote: the end of the file); a
    scanner error also names where the token it was scanning began (`context_mark`: the opening
    quote, the key missing its ':'), which is the line to fix, so that line is reported.
    """
    problem_mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if isinstance(exc, yaml.scanner.ScannerError) and context and context_mark is not None:
        stopped = f" (line {problem_mark.line + 1})" if problem_mark is not None else ""
        return Finding(display, context_mark.line + 1, f"invalid YAML: {context} that starts here: "
                                                       f"{problem}{stopped}")
    return Finding(display, problem_mark.line + 1 if problem_mark is not None else None, f"invalid YAML: {problem}")


def _construct(loader: _SinglePassLoader, node: yaml.Node, display: str) -> object:
    """What `yaml.safe_load(text)` builds, from the node just read; a finding for a value its tag cannot build."""
    try:
        return loader.construct_document(node)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        # a value its tag cannot build (`!!timestamp 2020-13-45`, an unhashable key): a finding, not a crash
        mark = getattr(exc, "problem_mark", None) or getattr(node, "start_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        return Finding(display, mark.line + 1 if mark is not None else None, f"invalid YAML: {problem}")
    finally:
        loader.dispose()


def _schema_problems(exc: ValidationError) -> list[tuple[tuple[str, ...], str]]:
    """(location, message) of each schema error, naming fields and keys as the manifest spells them."""
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(str(p) for p in err["loc"])
        is_key = loc[-1:] == ("[key]",)  # a mapping key (e.g. a cell name) failed, not its value
        loc = loc[:-1] if is_key else loc
        fieldname = ".".join(loc)
        m = err["msg"]
        if is_key:
            msg = f"key {loc[-1]!r} of {'.'.join(loc[:-1])!r}: {m[0].lower() + m[1:]}"
        elif err["type"] == "missing":
            msg = f"missing field {fieldname!r}"
        elif err["type"] == "extra_forbidden":
            msg = f"unexpected field {fieldname!r}"
        else:
            msg = f"field {fieldname!r}: {m[0].lower() + m[1:]}"
        out.append((loc, msg))
    return out


class _AnchorSeen(Exception):
    """An anchor or alias in a YAML document (not allowed; the three-pass read reports where)."""


class _TooDeep(Exception):
    """Nesting deeper than `MAX_YAML_DEPTH` (`line`: where the level past the bound starts)."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _DepthLimited(yaml.SafeLoader):
    """PyYAML's safe loader, refusing nesting deeper than `MAX_YAML_DEPTH` before it recurses that deep."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self._depth >= MAX_YAML_DEPTH:
            raise _TooDeep(self.peek_event().start_mark.line + 1)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _SinglePassLoader(_DepthLimited):
    """The depth-limited safe loader, stopping at the first anchor or alias instead of resolving it."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _AnchorSeen
        return super().compose_node(parent, index)


def _index_nodes(node: yaml.Node, loc: tuple[str, ...], lines: Lines, findings: list[Finding], display: str) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                findings.append(Finding(display, key.start_mark.line + 1, f"duplicate key {name!r}"))
            seen.add(name)
            _index_nodes(value, (*loc, name), lines, findings, display)
            lines[(*loc, name)] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_nodes(item, (*loc, str(i)), lines, findings, display)


def node_lines(raw: bytes) -> Lines:
    """Where each value of a YAML document is (keys and list indexes -> 1-based line); empty when unreadable.

    Called on a document `parse_yaml` has already accepted (so no anchors, aliases or bad YAML).
    """
    try:
        node = yaml.compose(raw.decode("utf-8"), Loader=yaml.SafeLoader)
    except (yaml.YAMLError, UnicodeDecodeError):
        return {}
    lines: Lines = {}
    if node is not None:
        _index_nodes(node, (), lines, [], "")
    return lines


def seed_line(path: Path, cell: str, seed: str) -> int | None:
    """The line of `seed` in `cells.<cell>.seeds` of the pre-registration at `path` (else the cell's line; None)."""
    raw, _ = read_small(path, str(path))
    if raw is None:
        return None
    lines = node_lines(raw)
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
        seeds = [str(s) for s in data["cells"][cell]["seeds"]]
    except (yaml.YAMLError, UnicodeDecodeError, KeyError, TypeError):
        return lines.get(("cells", cell))
    if seed in seeds:
        return lines.get(("cells", cell, "seeds", str(seeds.index(seed))))
    return lines.get(("cells", cell))


def field_names(model: type[BaseModel]) -> frozenset[str]:
    """Every field name of `model` and of the models its fields hold (lists, mappings, optionals)."""
    import typing

    names: set[str] = set()
    todo: list[object] = [model]
    seen: set[object] = set()
    while todo:
        tp = todo.pop()
        if tp in seen:
            continue
        seen.add(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            for name, info in tp.model_fields.items():
                names.add(info.alias or name)
                todo.append(info.annotation)
        else:
            todo.extend(typing.get_args(tp))
    return frozenset(names)


def folded_fields(node: yaml.Node, lines: list[str], names: frozenset[str], loc: tuple[str, ...],
                  display: str) -> list[Finding]:
    """Unquoted values that swallowed a line starting with a field name: the field whose ':' is missing.

    YAML folds a more-indented line into the unquoted value above it, so `contact: a@b.org` followed
    by ` license CC-BY-4.0` reads as one contact and no licence. A line a value swallowed is reported
    when its first word is a field name of the schema (long values that wrap, as YAML writers do,
    are left alone).
    """
    out: list[Finding] = []
    if isinstance(node, yaml.ScalarNode) and node.style is None and node.end_mark.line > node.start_mark.line:
        for n in range(node.start_mark.line + 1, min(node.end_mark.line, len(lines) - 1) + 1):
            word = lines[n].strip().split(" ", 1)[0]
            if word in names:
                out.append(Finding(display, n + 1, f"{word!r} reads as part of the value of {'.'.join(loc)!r} (line "
                                                   f"{node.start_mark.line + 1}): a ':' is missing after {word!r}"))
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out += folded_fields(value, lines, names, (*loc, str(key.value)), display)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out += folded_fields(item, lines, names, (*loc, str(i)), display)
    return out


def _line_for(loc: tuple[str, ...], lines: Lines) -> int | None:
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None

"""The format reference page, generated from the models: every event type and field.

`python -m checker.format.schema.reference site/format-reference.md` rewrites the page;
`tests/test_format_reference.py` fails when the committed page differs from what the models
generate, and when a field has no description, a numeric field no unit, or an example does not
validate or leaves a field out.

Types, bounds, defaults, descriptions (attribute docstrings), units (`json_schema_extra`
`unit`) and examples (`json_schema_extra` `examples`) are read from the models' own JSON
Schemas, the same documents `driftboard schema` writes, so the page cannot say something the
schemas do not.
"""

from __future__ import annotations

import json
import re
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from checker.format.schema.agent import AGENT_EVENTS
from checker.format.schema.base import INT_MAX, INT_MIN, EventBase
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.completion import COMPLETION_EVENTS
from checker.format.schema.constraint import CONSTRAINT_EVENTS
from checker.format.schema.manifest import Prereg, Submission

PAGE = Path("site/format-reference.md")
"""Where the generated page lives (relative to the repository root)."""
REGENERATE = "python -m checker.format.schema.reference site/format-reference.md"
"""The command that rewrites the page."""
EXAMPLE_CELL_CHARS = 48
"""Longer example values are cut in the tables (the full example is below each table)."""
COMMON_FIELDS = ("seq", "prev")
"""Fields every event carries: described once, left out of each event's table."""

JsonSchema = dict[str, Any]  # free-form JSON: a JSON Schema document, as pydantic writes it
"""A JSON Schema (or one property of one), as `model_json_schema` returns it."""

Example = dict[str, Any]  # free-form JSON: an example as a model declares it
"""An example event or document, as written in a model's `json_schema_extra`."""

Documented = type[BaseModel] | type[EventBase]
"""A documented class: an event (a pydantic dataclass) or a model (manifest, pre-registration, nested objects)."""

SECTIONS: tuple[tuple[str, str, tuple[type[EventBase], ...]], ...] = (
    ("Both tracks", "both", (RunStart, RunEnd)),
    ("Agent track", "agent", AGENT_EVENTS),
    ("Constraint track", "constraint", CONSTRAINT_EVENTS),
    ("Completion track", "completion", COMPLETION_EVENTS),
)
"""(heading, track, event models) in documentation order."""


def event_type(model: type[EventBase]) -> str:
    """The `type` value of an event model."""
    return str(model.model_json_schema()["properties"]["type"]["const"])


def anchor(name: str) -> str:
    """The page anchor of an event type or a nested object."""
    return name.lower().replace("_", "-")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _bounds(p: JsonSchema) -> str:
    lo, hi = p.get("minimum"), p.get("maximum")
    if lo == 0 and hi == 1:
        return " 0 or 1"
    parts = []
    if lo is not None and lo != INT_MIN:
        parts.append(f"≥ {lo}")
    if hi is not None and hi != INT_MAX:
        parts.append(f"≤ {hi}")
    return (" " + ", ".join(parts)) if parts else ""


def type_text(p: JsonSchema) -> str:
    """A JSON Schema property as words: `integer ≥ 0`, `list of string`, `LedgerEntry or null`."""
    for key, by_key in _BY_KEY:
        if key in p:
            return by_key(p)
    kind = p.get("type")
    by_kind = _BY_KIND.get(kind) if isinstance(kind, str) else None
    return by_kind(p) if by_kind is not None else "any JSON value"


def _any_of_text(p: JsonSchema) -> str:
    kinds = {x.get("type") for x in p["anyOf"]}
    if kinds >= {"array", "object", "string", "integer", "number", "boolean"}:
        return "any JSON value"
    options = [type_text(x) for x in p["anyOf"]]
    return " or ".join(dict.fromkeys([o for o in options if o != "null"] + [o for o in options if o == "null"]))


def _ref_text(p: JsonSchema) -> str:
    name = _ref_name(p["$ref"])
    return f"[{name}](#{anchor(name)})"


def _array_text(p: JsonSchema) -> str:
    items = type_text(p["items"]) if p.get("items") else "any JSON value"
    n_min, n_max = p.get("minItems"), p.get("maxItems")
    size = f" ({n_min} items)" if n_min is not None and n_min == n_max else \
        f" (at least {n_min})" if n_min else ""
    return f"list of {items}{size}"


def _object_text(p: JsonSchema) -> str:
    values = p.get("additionalProperties")
    for pattern, inner in p.get("patternProperties", {}).items():
        return f"object of {type_text(inner)} (keys matching `{pattern}`)"
    return f"object of {type_text(values)}" if isinstance(values, dict) and values else "object"


def _number_text(p: JsonSchema) -> str:
    return "number from 0 to 1" if p.get("minimum") == 0 and p.get("maximum") == 1 else "number" + _bounds(p)


def _string_text(p: JsonSchema) -> str:
    extra = []
    if "pattern" in p:
        extra.append(f"matching `{p['pattern']}`")
    if "minLength" in p or "maxLength" in p:
        extra.append(f"{p.get('minLength', 0)}-{p.get('maxLength', '…')} characters")
    return "string" + (" " + ", ".join(extra) if extra else "")


_BY_KEY: tuple[tuple[str, Callable[[JsonSchema], str]], ...] = (
    ("const", lambda p: f"`{json.dumps(p['const'])}`"),
    ("enum", lambda p: "one of " + ", ".join(f"`{v}`" for v in p["enum"])),
    ("$ref", _ref_text),
    ("anyOf", _any_of_text),
)
"""What a property is, when one of these keys says it (tried in this order, before its `type`)."""
_BY_KIND: dict[str, Callable[[JsonSchema], str]] = {
    "array": _array_text,
    "object": _object_text,
    "number": _number_text,
    "integer": lambda p: "integer" + _bounds(p),
    "string": _string_text,
    "boolean": lambda p: "boolean",
    "null": lambda p: "null",
}
"""A property's `type` -> its words."""


def _cell(text: str) -> str:
    """Text fit for one Markdown table cell (one line; a `|` outside code is escaped)."""
    text = " ".join(text.split())
    out, in_code = [], False
    for ch in text:
        if ch == "`":
            in_code = not in_code
        out.append("\\|" if ch == "|" and not in_code else ch)
    return "".join(out)


def _example_value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > EXAMPLE_CELL_CHARS:
        text = text[: EXAMPLE_CELL_CHARS - 1] + "…"
    return "`" + text.replace("`", "'") + "`"


def nested_models(model: Documented) -> dict[str, type[BaseModel]]:
    """Every model a model's fields hold (at any depth), by class name."""
    out: dict[str, type[BaseModel]] = {}
    stack: list[Documented] = [model]
    while stack:
        current = stack.pop()
        for info in current.model_fields.values():
            for arg in _type_args(info.annotation):
                if isinstance(arg, type) and issubclass(arg, BaseModel) and arg.__name__ not in out:
                    out[arg.__name__] = arg
                    stack.append(arg)
    return out


def _type_args(annotation: Any) -> list[Any]:
    found, stack = [], [annotation]
    while stack:
        item = stack.pop()
        args = typing.get_args(item)
        if args:
            stack.extend(args)
        else:
            found.append(item)
    return found


def model_examples(model: Documented) -> list[Example]:
    """The examples a model declares (in field order, as written in the model)."""
    extra = model.model_config.get("json_schema_extra")
    return list(extra.get("examples", [])) if isinstance(extra, dict) else []  # type: ignore[arg-type]


def _nested_examples(schema: JsonSchema, example: object, defs: JsonSchema, out: dict[str, Example]) -> None:
    """Record, for every nested object, the first value the example gives it."""
    if not isinstance(example, dict):
        return
    for name, p in schema.get("properties", {}).items():
        if name not in example:
            continue
        value = example[name]
        for option in [p, *p.get("anyOf", [])]:
            target, item = _example_target(option, value)
            if "$ref" in target and isinstance(item, dict):
                ref = _ref_name(target["$ref"])
                out.setdefault(ref, item)
                _nested_examples(defs[ref], item, defs, out)


def _example_target(option: JsonSchema, value: object) -> tuple[JsonSchema, object]:
    """(the schema, the example value) an example gives a property: a list's first item for a list."""
    if option.get("type") == "array" and isinstance(value, list) and value:
        return option.get("items") or {}, value[0]
    return option, value


def field_table(model: Documented, example: Example | None, skip: tuple[str, ...] = ()) -> list[str]:
    """The Markdown table of a model's fields: name, type, default, unit, meaning, example."""
    schema = model.model_json_schema()
    rows = ["| field | type | default | unit | meaning | example |", "|---|---|---|---|---|---|"]
    for name, p in schema.get("properties", {}).items():
        if name in skip:
            continue
        info = model.model_fields[name]
        default = "required" if info.is_required() else \
            f"`{json.dumps(info.get_default(call_default_factory=True), ensure_ascii=False, default=_dump)}`"
        shown = _example_value(example[name]) if example is not None and name in example else ""
        rows.append(f"| `{name}` | {_cell(type_text(p))} | {default} | {_cell(p.get('unit', ''))} | "
                    f"{_cell(p.get('description', ''))} | {shown} |")
    return rows


def _dump(value: Any) -> Any:
    """JSON of a default that is a model (e.g. the default thresholds)."""
    return value.model_dump() if isinstance(value, BaseModel) else str(value)


def _model_section(level: str, title: str, ident: str, model: Documented, example: Example | None,
                   skip: tuple[str, ...] = (), fmt: str = "json") -> list[str]:
    schema = model.model_json_schema()
    lines = [f"{level} {title} {{#{ident}}}", "", " ".join(str(schema.get("description", "")).split()), ""]
    lines += field_table(model, example, skip)
    if example is not None:
        body = (json.dumps(example, ensure_ascii=False, separators=(",", ":")) if fmt == "json"
                else yaml.safe_dump(example, sort_keys=False, allow_unicode=True, width=100).rstrip("\n"))
        lines += ["", "Example:", "", f"```{fmt}", body, "```"]
    return [*lines, ""]


def _document(model: type[BaseModel], heading: str, ident: str, intro: str) -> list[str]:
    """A YAML document (manifest or pre-registration) and its nested objects."""
    schema = model.model_json_schema()
    example = model_examples(model)[0]
    nested: dict[str, Example] = {}
    _nested_examples(schema, example, schema.get("$defs", {}), nested)
    lines = [f"## {heading} {{#{ident}}}", "", intro, ""]
    lines += field_table(model, example)
    lines += ["", "Example:", "", "```yaml", yaml.safe_dump(example, sort_keys=False, allow_unicode=True,
                                                          width=100).rstrip("\n"), "```", ""]
    for name, inner in sorted(nested_models(model).items()):
        lines += _model_section("###", f"`{name}`", anchor(name), inner, nested.get(name))
    return lines


SUBPAGES = {"Agent track": "agent-track", "Constraint track": "constraint-track", "Completion track": "completion-track"}
"""Sections of `SECTIONS` on a page of their own, `site/format-reference/<name>.md` (page weight: one page of
everything loaded over 300 KB); the manifests are on `site/format-reference/manifests.md`."""
MANIFESTS = "manifests"
_LINK = re.compile(r"\]\(#([a-z0-9-]+)\)")
_ANCHOR = re.compile(r"\{#([a-z0-9-]+)\}")


def reference_pages() -> dict[str, str]:
    """Every page of the format reference, from the models: `format-reference.md`, then `format-reference/<name>.md`.

    A link to an anchor on another page of the reference points there (`../format-reference.md#ledgerentry`).
    """
    main = _main_page_head()
    inner: dict[str, type[BaseModel]] = {}
    nested: dict[str, Example] = {}
    for _heading, track, models in SECTIONS:
        for model in models:
            schema = model.model_json_schema()
            etype = event_type(model)
            main.append(f"| [`{etype}`](#{anchor(etype)}) | {track} | "
                        f"{_cell(str(schema.get('description', '')).split(chr(10))[0])} |")
            inner.update(nested_models(model))
            _nested_examples(schema, model_examples(model)[0], schema.get("$defs", {}), nested)
    main += ["", "## Fields of every line {#every-line}", "",
             "Besides its own fields, every event carries these (they define the hash chain):", ""]
    main += field_table(EventBase, None)
    main += ["| `type` | string | required |  | The event type: one of the types above. |  |", ""]
    pages: dict[str, list[str]] = {"format-reference.md": main}
    for heading, _track, models in SECTIONS:
        lines = _section_lines(heading, pages, main)
        level = "##" if heading in SUBPAGES else "###"
        for model in models:
            lines += _model_section(level, f"`{event_type(model)}`", anchor(event_type(model)), model,
                                    model_examples(model)[0], skip=COMMON_FIELDS)
    main += ["## Objects inside events {#event-objects}", ""]
    for name, inner_model in sorted(inner.items()):
        main += _model_section("###", f"`{name}`", anchor(name), inner_model, nested.get(name))
    pages[f"format-reference/{MANIFESTS}.md"] = _manifests_page()
    return _relinked({rel: "\n".join(lines).rstrip("\n") + "\n" for rel, lines in pages.items()})


def _main_page_head() -> list[str]:
    """The first page up to the event-type table's rows."""
    return [
        "# Format reference",
        "",
        f"<!-- Generated from checker/format/schema/ by `{REGENERATE}`; do not edit by hand. -->",
        "",
        "Every event type of a run log and every field of `submission.yaml` and `prereg.yaml`: its type, "
        "default, unit, meaning and an example, generated from the pydantic models the checker validates with "
        "(the JSON Schemas of `driftboard schema --out DIR` carry the same descriptions, units and examples). "
        "How lines are chained, the limits and what is refused are on [the submission format](format.md) page.",
        "",
        "Types are JSON types. Every integer is 64-bit signed and every number finite; `default` is what a "
        "missing field means (`required`: it may not be missing). Unknown fields are errors. Units are given "
        "for every number. A harness passes the fields to `RunLogWriter.write` without `seq` and `prev`, "
        "which the writer fills in.",
        "",
        "The reference has four pages: this one (every event type, the fields of every line, the events of both "
        "tracks, the objects inside events), "
        + ", ".join(f"[the {heading.lower()}](format-reference/{name}.md)" for heading, name in SUBPAGES.items())
        + f" and [`submission.yaml` and `prereg.yaml`](format-reference/{MANIFESTS}.md).",
        "",
        "## Event types {#event-types}",
        "",
        "| type | track | what it records |",
        "|---|---|---|",
    ]


def _subpage_head(title: str, ident: str) -> list[str]:
    return [f"# Format reference: {title} {{#{ident}}}", "",
            f"<!-- Generated from checker/format/schema/ by `{REGENERATE}`; do not edit by hand. -->", "",
            "Part of the [format reference](../format-reference.md) (types, defaults and units as there).", ""]


def _section_lines(heading: str, pages: dict[str, list[str]], main: list[str]) -> list[str]:
    """Where a section's events go: a page of its own (`SUBPAGES`), or the first page under a heading."""
    ident = anchor(heading.replace(" ", "_"))
    if heading in SUBPAGES:
        lines = _subpage_head(heading.lower(), ident)
        pages[f"format-reference/{SUBPAGES[heading]}.md"] = lines
        return lines
    main += [f"## {heading} {{#{ident}}}", ""]
    return main


def _manifests_page() -> list[str]:
    return [*_subpage_head("`submission.yaml` and `prereg.yaml`", "manifests"),
            *_document(Submission, "`submission.yaml`", "submission-yaml",
                       "The manifest: who submitted what, and the files it contains."),
            *_document(Prereg, "`prereg.yaml`", "prereg-yaml",
                       "The pre-registration, committed before the runs (see [the submission format](../format.md)).")]


def _relinked(texts: dict[str, str]) -> dict[str, str]:
    """The pages with each link to an anchor on another page pointing there."""
    home = {a: rel for rel, text in texts.items() for a in _ANCHOR.findall(text)}

    def relink(rel: str, text: str) -> str:
        def target(m: re.Match[str]) -> str:
            there = home.get(m.group(1), rel)
            if there == rel:
                return m.group(0)
            path = there if "/" not in rel else ("../" + there if "/" not in there else there.split("/", 1)[1])
            return f"]({path}#{m.group(1)})"
        return _LINK.sub(target, text)

    return {rel: relink(rel, text) for rel, text in texts.items()}


def reference_markdown() -> str:
    """The reference's first page (`format-reference.md`); `reference_pages` has every page."""
    return reference_pages()["format-reference.md"]


def main(argv: list[str] | None = None) -> int:
    """Write the pages: the first at the path given (default `site/format-reference.md`), the others beside it."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else PAGE
    for rel, text in reference_pages().items():
        target = path if rel == "format-reference.md" else path.parent / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(target.as_posix())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

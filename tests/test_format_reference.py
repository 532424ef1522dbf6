"""The format reference is generated from the models and kept in sync: descriptions, units, examples, the page."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from conftest import REPO
from pydantic import BaseModel, ConfigDict, Field

from checker.format.schema.agent import AGENT_EVENTS
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.completion import COMPLETION_EVENTS
from checker.format.schema.constraint import CONSTRAINT_EVENTS
from checker.format.schema.events import EVENT_MODELS, validate_event
from checker.format.schema.export import schemas
from checker.format.schema.manifest import Prereg, Submission
from checker.format.schema.reference import REGENERATE, event_type, model_examples, nested_models, reference_pages

FORMAT_SCHEMAS = ("event.schema.json", "submission.schema.json", "prereg.schema.json")
"""The documents a submitter writes (the results schema is the checker's output, documented elsewhere)."""


def properties(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(model.field, property schema) of every property of a schema and of its `$defs`."""
    out = []
    for name, sub in [("(root)", schema), *schema.get("$defs", {}).items()]:
        out += [(f"{name}.{field}", p) for field, p in sub.get("properties", {}).items()]
    return out


def undescribed(schema: dict[str, Any]) -> list[str]:
    """Properties without a description."""
    return [name for name, p in properties(schema) if not p.get("description")]


def _json_types(p: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    stack = [p]
    while stack:
        item = stack.pop()
        if isinstance(item.get("type"), str):
            found.add(item["type"])
        stack += item.get("anyOf", [])
        if isinstance(item.get("items"), dict):
            stack.append(item["items"])
    return found


def unitless(schema: dict[str, Any]) -> list[str]:
    """Numeric properties (integers or numbers, alone, nullable or in lists) without a declared unit."""
    return [name for name, p in properties(schema) if _json_types(p) & {"integer", "number"} and not p.get("unit")]


@pytest.fixture(scope="module")
def exported() -> dict[str, dict[str, Any]]:
    return schemas()


@pytest.mark.parametrize("name", FORMAT_SCHEMAS)
def test_every_field_has_a_description_in_the_json_schema(exported, name):
    assert undescribed(exported[name]) == []
    assert len(properties(exported[name])) > 20 or name != "event.schema.json"


@pytest.mark.parametrize("name", FORMAT_SCHEMAS)
def test_every_numeric_field_declares_its_unit(exported, name):
    assert unitless(exported[name]) == []


def test_the_checks_fail_on_a_field_without_description_or_unit():
    """The two walkers above are not vacuous."""
    class Bare(BaseModel):
        model_config = ConfigDict(use_attribute_docstrings=True)
        tokens: int | None = None
        """Tokens, but no unit declared."""
        note: str = ""

    class Holder(BaseModel):
        inner: list[Bare] = Field(default_factory=list, description="a list of bare objects")

    schema = Holder.model_json_schema()
    assert undescribed(schema) == ["Bare.note"]
    assert unitless(schema) == ["Bare.tokens"]


@pytest.mark.parametrize("model", EVENT_MODELS, ids=event_type)
def test_every_event_type_has_a_valid_example_showing_every_field(model, exported):
    examples = model_examples(model)
    assert examples, f"{model.__name__} declares no example"
    validator = jsonschema.Draft202012Validator(exported["event.schema.json"])
    shown: set[str] = set()
    for example in examples:
        assert type(validate_event(example)) is model
        validator.validate(example)
        shown |= set(example)
    assert set(model.model_fields) - shown == set(), "fields without an example value"


@pytest.mark.parametrize("model", [Submission, Prereg], ids=lambda m: m.__name__)
def test_the_manifest_and_prereg_examples_validate_and_show_every_field(model, exported):
    (example,) = model_examples(model)
    model.model_validate(example)
    jsonschema.Draft202012Validator(exported[f"{model.__name__.lower()}.schema.json"]).validate(example)
    assert set(model.model_fields) == set(example)


def _shown_fields(model: type[BaseModel], example: Any, out: dict[str, set[str]]) -> None:
    """Fields of every nested model that the example gives a value."""
    if not isinstance(example, dict):
        return
    for name, value in example.items():
        inner = nested_models(model)
        for cls in inner.values():
            items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) and \
                name in ("cells", "blobs", "prices") else [value]  # mappings of nested models
            for item in items:
                if isinstance(item, dict) and set(item) <= set(cls.model_fields) and \
                        all(f in item for f, info in cls.model_fields.items() if info.is_required()):
                    out.setdefault(cls.__name__, set()).update(item)
                    _shown_fields(cls, item, out)


def test_nested_objects_have_an_example_for_every_field():
    shown: dict[str, set[str]] = {}
    nested: dict[str, type[BaseModel]] = {}
    for model in [*EVENT_MODELS, Submission, Prereg]:
        nested.update(nested_models(model))
        for example in model_examples(model):
            _shown_fields(model, example, shown)
    missing = {name: sorted(set(cls.model_fields) - shown.get(name, set())) for name, cls in nested.items()}
    assert {k: v for k, v in missing.items() if v} == {}


def test_the_committed_pages_are_what_the_models_generate():
    pages = reference_pages()
    assert set(pages) == {"format-reference.md", "format-reference/agent-track.md",
                          "format-reference/constraint-track.md", "format-reference/completion-track.md",
                          "format-reference/manifests.md"}
    for rel, text in pages.items():
        assert (REPO / "site" / rel).read_text(encoding="utf-8") == text, f"stale page {rel}: run `{REGENERATE}`"
    committed = {p.relative_to(REPO / "site").as_posix() for p in (REPO / "site" / "format-reference").glob("*.md")}
    assert committed == set(pages) - {"format-reference.md"}, "a page left over from an older layout"


@pytest.mark.parametrize(("model", "page"), [(m, "format-reference/agent-track.md") for m in AGENT_EVENTS]
                         + [(m, "format-reference/constraint-track.md") for m in CONSTRAINT_EVENTS]
                         + [(m, "format-reference/completion-track.md") for m in COMPLETION_EVENTS]
                         + [(m, "format-reference.md") for m in (RunStart, RunEnd)])
def test_the_first_page_lists_every_event_type_and_links_its_section(model, page):
    pages = reference_pages()
    etype = event_type(model)
    anchor = etype.replace("_", "-")
    link = f"#{anchor}" if page == "format-reference.md" else f"{page}#{anchor}"
    assert f"| [`{etype}`]({link}) |" in pages["format-reference.md"]
    assert f"`{etype}` {{#{anchor}}}" in pages[page]
    assert sum(f"{{#{anchor}}}" in text for text in pages.values()) == 1, "one section per event type"


def test_links_between_the_pages_resolve():
    """Every `[..](#a)` or `[..](page.md#a)` of the reference names an anchor of the page it points to."""
    import posixpath
    import re

    pages = reference_pages()
    anchors = {rel: set(re.findall(r"\{#([a-z0-9-]+)\}", text)) for rel, text in pages.items()}
    links = 0
    for rel, text in pages.items():
        for target, frag in re.findall(r"\]\(([^)#]*)#([a-z0-9-]+)\)", text):
            there = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target)) if target else rel
            assert frag in anchors.get(there, set()), f"{rel}: ({target}#{frag})"
            links += 1
    assert links > 30

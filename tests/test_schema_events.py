"""Event classes are frozen, slotted pydantic dataclasses that keep the schema's field order everywhere."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import ValidationError

from checker.format.schema.events import EVENT_ADAPTER, EVENT_MODELS


def _name(model: type) -> str:
    return model.__name__


@pytest.mark.parametrize("model", EVENT_MODELS, ids=_name)
def test_every_view_of_an_event_class_lists_its_fields_in_schema_order(model: type) -> None:
    # the canonical line, the format reference, the JSON Schema and the order of validation errors all follow it;
    # pydantic moves a `Field(...)` left positional ahead of the rest unless `event_model` makes it keyword-only
    order = [f.name for f in dataclasses.fields(model)]
    assert list(model.model_fields) == order
    assert list(model.model_json_schema()["properties"]) == order
    # every required field missing: the errors come in field order
    with pytest.raises(ValidationError) as caught:
        EVENT_ADAPTER.validate_json(json.dumps({"type": model.model_fields["type"].annotation.__args__[0]}))
    missing = [err["loc"][1] for err in caught.value.errors() if err["type"] == "missing"]
    assert missing == [name for name in order if model.model_fields[name].is_required() and name != "type"]


def test_an_event_is_one_frozen_slotted_object() -> None:
    line = (b'{"seq":3,"prev":"' + b"a" * 64 + b'","type":"receipt","turn":2,"action":"ACTION6",'
            b'"observed":{"cells_changed":4},"score_event":0,"level_event":0,"life_event":0}')
    event = EVENT_ADAPTER.validate_json(line)
    assert not hasattr(event, "__dict__")  # no per-instance dict or set of fields set: what a verified run keeps
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.turn = 5  # type: ignore[misc]
    assert event.observed == {"cells_changed": 4} and event.predicted is None

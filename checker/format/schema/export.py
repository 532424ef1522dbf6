"""JSON Schema export of the canonical format (`driftboard schema --out DIR`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import JsonSchemaValue

from checker import FORMAT_VERSION
from checker.format.schema.events import EVENT_ADAPTER
from checker.format.schema.manifest import Prereg, Submission

BASE_ID = "https://driftboard.github.io/schema"


def schemas() -> dict[str, JsonSchemaValue]:
    """File name -> JSON Schema, for every document a submission contains."""
    out: dict[str, JsonSchemaValue] = {}
    sources: dict[str, TypeAdapter[Any] | type[BaseModel]] = {
        "event.schema.json": EVENT_ADAPTER,
        "submission.schema.json": Submission,
        "prereg.schema.json": Prereg,
    }
    sources.update(_extra_sources())
    for name, source in sources.items():
        schema = source.json_schema() if isinstance(source, TypeAdapter) else source.model_json_schema()
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{BASE_ID}/{FORMAT_VERSION}/{name}",
            **schema,
        }
        out[name] = schema
    return out


def _extra_sources() -> dict[str, TypeAdapter[Any] | type[BaseModel]]:
    """Schemas of later stages' documents (results files), when those stages are installed."""
    try:
        from checker.format.release_model import ReleaseFile
        from checker.format.results_model import ResultsFile
    except ImportError:
        return {}
    return {"results.schema.json": ResultsFile, "release.schema.json": ReleaseFile}


def write_schemas(out: Path) -> list[Path]:
    """Write every schema as sorted, indented JSON; returns the written paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = out / name
        path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written

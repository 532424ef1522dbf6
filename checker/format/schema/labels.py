"""Identifiers in the format: printable ASCII only, so two different ids never look the same.

Run ids, cell names, seed labels and defeater / prediction ids name things that are compared,
linked and cited. Control characters (which can drive a terminal), bidi overrides and isolates
(which reorder what a reviewer reads), zero-width characters and look-alike letters from other
scripts (which make two different ids look equal) are refused with a finding that names the
character. Free text (titles, author names, descriptions, reasons) is accepted and escaped
wherever it is shown instead.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from checker.format.errors import describe_char

LABEL_PATTERN = r"^[!-~]([ -~]*[!-~])?$"
"""Printable ASCII (spaces inside only): the JSON Schema form of the rule."""


def check_label(value: str) -> str:
    """Refuse an identifier with a character outside printable ASCII, or with outer spaces."""
    for ch in value:
        if not " " <= ch <= "~":
            raise ValueError(f"contains {describe_char(ch)}: identifiers use printable ASCII only")
    if value != value.strip(" "):
        raise ValueError("starts or ends with a space")
    return value


Label = Annotated[str, AfterValidator(check_label), Field(json_schema_extra={"pattern": LABEL_PATTERN})]
"""An identifier: run id, cell name, seed label, defeater or prediction id."""

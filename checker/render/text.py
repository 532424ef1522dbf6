"""Escaping and number formatting shared by every template.

Every submitted string (titles, author names, cell names, reasons, mismatch text) reaches a page
through `md_escape`: it HTML-escapes the string *and* turns every character that Markdown gives a
meaning to into a numeric character reference, so the text is inert in raw-HTML blocks, in
Markdown paragraphs and in table cells alike. Control, bidi and zero-width characters are shown
as their escapes (`\\u202e`), so they can neither reorder nor hide the text around them.
Undefined values (`None`, a missing key) render as an em dash, never as 0.
"""

from __future__ import annotations

import math
import re
from typing import Any

from markupsafe import Markup

from checker.format.errors import escape_char, is_invisible
from checker.format.identity import slug as slug  # the page slug: one definition, shared with the identity checks
from checker.format.numbers import DASH
from checker.format.numbers import fmt as _fmt

_MD_SPECIAL = frozenset("\\`*_{}[]()!|~<>&\"'")


_MD_TABLE = str.maketrans({**{c: f"&#{ord(c)};" for c in _MD_SPECIAL}, "\r": " ", "\n": " ", "\t": " "})
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""ASCII characters `is_invisible` spells as escapes (control characters other than CR, LF and tab)."""


def md_escape(value: Any) -> Markup:
    """Escape a submitted value for Markdown *and* HTML: every special character becomes `&#N;`.

    Plain ASCII (most table cells of a site) takes one `str.translate`; anything else goes character
    by character (`_md_escape_each`), with the same result.
    """
    if value is None:
        return Markup(DASH)
    text = str(value)
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return Markup(text.translate(_MD_TABLE))
    return _md_escape_each(text)


def _md_escape_each(text: str) -> Markup:
    out = []
    for ch in text:
        if ch in _MD_SPECIAL:
            out.append(f"&#{ord(ch)};")
        elif ch in "\r\n\t":
            out.append(" ")
        elif is_invisible(ch):
            out.append(escape_char(ch).replace("\\", "&#92;"))
        else:
            out.append(ch)
    return Markup("".join(out))


def fmt(value: Any) -> str:
    """A number for display (the shared formatter `checker.format.numbers.fmt`): undefined as an em dash."""
    return _fmt(value)


def sort_key(value: Any) -> str:
    """The `data-sort` attribute of a table cell: numbers as plain decimals, undefined as empty."""
    if value is None or isinstance(value, bool):
        return "" if value is None else str(int(value))
    if isinstance(value, int | float):
        return "" if isinstance(value, float) and (math.isnan(value) or math.isinf(value)) else repr(value)
    return str(value)



"""Completion domains: each a database, its tools and their semantics (a leaf: standard library only).

A domain implements `checker.completion.domains.base.CompletionDomain`: its name, its tables, its
tools (each with its parameters, whether it writes and whether it ends the episode) and `invoke`,
which runs one call on a copy-on-write `Database` and returns the observation exactly as the
benchmark's environment does. τ-bench's airline domain is the first; its retail domain would be a
module beside it, registered here.
"""

from __future__ import annotations

from checker.completion.domains.airline import DOMAIN as AIRLINE
from checker.completion.domains.base import CompletionDomain, Database, DomainError, ToolSpec

DOMAINS: dict[str, CompletionDomain] = {AIRLINE.name: AIRLINE}
"""Domain name -> its implementation."""

__all__ = ["DOMAINS", "CompletionDomain", "Database", "DomainError", "ToolSpec"]

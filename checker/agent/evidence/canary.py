"""Canary nonces: an echo's nonce must be the nonce of the salt row of the same organ, call and zone.

The echo is recomputed against the salt's nonce (no salt, or no output text with a wrong nonce: not echoed).
"""

from __future__ import annotations

from checker.agent.evidence.contradiction import Contradiction, contradiction
from checker.agent.replay import AgentState
from checker.format.schema.agent import CanaryEcho


def salt_nonces(state: AgentState) -> dict[tuple[str, int, str], list[str]]:
    """(organ, call_idx, zone) -> nonces of the salt rows, in log order."""
    out: dict[tuple[str, int, str], list[str]] = {}
    for salt in state.salts:
        out.setdefault((salt.organ, salt.call_idx, salt.zone), []).append(salt.nonce)
    return out


def _salt_nonce(echo: CanaryEcho, line: int, nonces: list[str] | None,
                found: list[Contradiction]) -> str | None:
    """The nonce an echo whose own nonce no salt row placed is judged by: the salt's (listed in `found`)."""
    recorded = echo.nonce
    nonce = nonces[0] if nonces else recorded
    where = f"{echo.organ} call {echo.call_idx} zone {echo.zone}"
    found.append(contradiction("canary", line, "nonce", recorded, nonce if nonces else None,
                               f"the salt row of {where} placed {nonce}" if nonces else
                               f"no canary_salt row salts {where}: the echo cannot be checked"))
    return nonce


def echo_values(state: AgentState) -> tuple[list[bool], list[Contradiction]]:
    """Per canary echo: `echoed` derived from the salt's nonce; and the nonce mismatches.

    The nonce of an echo is the salt row's of the same organ, call and zone. With the output text
    logged, echoed = that nonce occurs in the text; without it, the recorded flag stands only when
    the recorded nonce is the salt's. An echo no salt row accounts for keeps its own nonce (and is
    listed: the `evidence` condition fails on it).
    """
    salts = salt_nonces(state)
    values: list[bool] = []
    found: list[Contradiction] = []
    for echo, line in zip(state.echoes, state.echo_lines, strict=True):
        nonces = salts.get((echo.organ, echo.call_idx, echo.zone))  # never an empty list
        recorded = echo.nonce
        nonce = recorded if nonces is not None and recorded in nonces else _salt_nonce(echo, line, nonces, found)
        text = echo.output_text
        if text is not None:
            values.append(bool(nonce) and nonce is not None and nonce in text)  # "" is in every text
        else:
            values.append(echo.echoed and nonce == recorded)
    return values, found


__all__ = ["echo_values", "salt_nonces"]

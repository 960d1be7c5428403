"""What `verify()` says when the journal does not hold the requests a test expected."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional
from urllib.parse import urlencode

NEAREST_SHOWN = 3
MATCHES_SHOWN = 5


@dataclass(frozen=True)
class Expectation:
    method: Optional[str]
    path: str
    count: Optional[int]
    query: Optional[Mapping[str, Any]]
    headers: Optional[Mapping[str, str]]
    body: Optional[Mapping[str, Any]]
    status: Optional[int]
    replayed: Optional[bool]


def explain_miss(expected: Expectation, answer: Mapping[str, Any]) -> str:
    """The expectation, what was found, and each nearest request with its differing fields, one a line."""
    matches: List[Dict[str, Any]] = answer.get("matches", [])
    wanted = "at least one" if expected.count is None else str(expected.count)
    lines = [f"nodus-mock: expected {wanted} {describe(expected)}; the journal holds {len(matches)}"]
    if matches:
        lines.append("matching requests:")
        lines += [f"  {row_line(row)}" for row in matches[:MATCHES_SHOWN]]
        if len(matches) > MATCHES_SHOWN:
            lines.append(f"  ... and {len(matches) - MATCHES_SHOWN} more")
    nearest = answer.get("nearest") or []
    if nearest:
        lines.append("nearest requests:")
        for near in nearest[:NEAREST_SHOWN]:
            lines.append(f"  {row_line(near.get('request', {}))}")
            for difference in near.get("differences", []):
                lines.append(f"    {difference.get('field')}: expected {_value(difference.get('expected'))},"
                             f" got {_value(difference.get('actual'))}")
    elif not matches:
        lines.append("no request of this tenant comes close")
    evicted = answer.get("evicted") or 0
    if evicted:
        lines.append(f"the journal evicted {evicted} older request{'s' if evicted != 1 else ''} of this tenant:"
                     " they are not counted (raise --journal-size to keep them)")
    return "\n".join(lines)


def describe(expected: Expectation) -> str:
    parts = [f"{expected.method or '*'} {expected.path}"]
    for name in ("query", "headers", "body", "status", "replayed"):
        value = getattr(expected, name)
        if value is not None:
            parts.append(f"{name} {_value(value)}")
    return " ".join(parts)


def row_line(row: Mapping[str, Any], with_id: bool = True) -> str:
    """`#7 POST /v1/rl-runs?dry=1 202 (replayed)`: one journal row as the report shows it."""
    status = row.get("status")
    answer = str(status) if status is not None else "unanswered"
    notes = [note for note in ("replayed" if row.get("replayed") else None, row.get("fault")) if note]
    suffix = f" ({', '.join(notes)})" if notes else ""
    ident = f"#{row['id']} " if with_id and "id" in row else ""
    return f"{ident}{row.get('method')} {target(row)} {answer}{suffix}"


def target(row: Mapping[str, Any]) -> str:
    """The path with its query string, as the client sent it."""
    query = row.get("query") or {}
    return str(row.get("path")) + ("?" + urlencode(query, doseq=True) if query else "")


def _value(value: Any) -> str:
    return "nothing" if value is None else json.dumps(value, sort_keys=True)

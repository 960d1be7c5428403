"""The `nodus-mock` section of a failed test's report: where to look, what the test and its client
did, which rules fired, the saved state and how to open it."""
from __future__ import annotations

import hashlib
import os
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

from .client import NodusMock, NodusMockError
from .verify import row_line

JOURNAL_ENTRIES = 20


def failure_section(mock: NodusMock, nodeid: str, folder: Optional[str],
                    restore_command: Callable[[str, str], str]) -> str:
    """Each part is best effort: a server that is gone or too old still leaves the other parts.
    Without a folder (a setup error) no snapshot is written: the state is not one the test made."""
    lines = [f"inspector: {mock.inspector()}"]
    # The journal first: the rule reads below are control calls, which it would show.
    lines += _journal(mock)
    lines += _rules(mock)
    if folder is not None:
        lines += _snapshot(mock, nodeid, folder, restore_command)
    return "\n".join(lines) + "\n"


def _journal(mock: NodusMock) -> List[str]:
    try:
        entries, evicted = mock.journal(limit=JOURNAL_ENTRIES)
    except (NodusMockError, OSError) as err:
        return [f"journal: could not be read: {err}"]
    if not entries:
        return ["journal: no request reached the mock with this key"]
    older = f"; {evicted} older evicted" if evicted else ""
    lines = [f"journal (last {len(entries)}, oldest first{older}):"]
    lines += [f"  {row_line(entry, with_id=False)}" for entry in reversed(entries)]
    return lines


def _rules(mock: NodusMock) -> List[str]:
    try:
        fired, never = rule_outcomes(mock)
    except (NodusMockError, OSError) as err:
        return [f"rules: could not be read: {err}"]
    lines = []
    if fired:
        lines.append("rules that fired:")
        lines += [f"  {what} (applied {applied})" for what, applied in fired]
    if never:
        lines.append("rules the test declared that never fired:")
        lines += [f"  {what}" for what in never]
    return lines


def rule_outcomes(mock: NodusMock) -> Tuple[List[Tuple[str, int]], List[str]]:
    """The tenant's fault and workload rules that applied at least once (with how often), and those
    this client declared that never did; a rule deleted since is neither."""
    rules: Dict[str, Tuple[str, int]] = {}
    for fault in mock.faults():
        rules[fault["id"]] = (_fault_line(fault), fault.get("applied", 0))
    for rule in mock.workload_rules():
        rules[rule["id"]] = (_workload_rule_line(rule), rule.get("applied", 0))
    fired = [(what, applied) for what, applied in rules.values() if applied]
    never = [rules[rule_id][0] for rule_id in mock.declared if rule_id in rules and not rules[rule_id][1]]
    return fired, never


def _fault_line(fault: Dict[str, Any]) -> str:
    return f"fault {fault['id']} {fault.get('method') or '*'} {fault['path']} {fault['action']['type']}"


def _workload_rule_line(rule: Dict[str, Any]) -> str:
    actions = rule.get("action")
    kinds = [a.get("type") for a in (actions if isinstance(actions, list) else [actions]) if isinstance(a, dict)]
    trigger = ", ".join(f"{name} {value}" for name, value in (rule.get("at") or {}).items())
    return f"workload rule {rule['id']} {'+'.join(str(k) for k in kinds)} at {trigger}"


def _snapshot(mock: NodusMock, nodeid: str, folder: str, restore_command: Callable[[str, str], str]) -> List[str]:
    path = os.path.join(folder, snapshot_name(nodeid))
    try:
        os.makedirs(folder, exist_ok=True)
        mock.snapshot(path)
    except NodusMockError as err:
        if err.status == 404:
            return [f"snapshot: could not be taken: this nodus-mock has no GET /_mock/snapshot ({err.status} {err.code}); a newer one has"]
        return [f"snapshot: could not be taken: {err}"]
    except (OSError, ValueError) as err:
        return [f"snapshot: could not be taken: {err}"]
    # The test's own key: the same tenant on any server, so the restored state keeps the ids the test saw.
    command = restore_command(path, mock.api_key)
    return [f"snapshot: {path}", f"  open it: {command}   (then the inspector link it prints)"]


def snapshot_name(nodeid: str) -> str:
    """A file name per test: readable, and distinct even when two node ids read alike."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid).strip("_")[:120]
    return f"{readable}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}.json"

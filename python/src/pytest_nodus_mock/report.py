"""The `nodus-mock` section of a failed test's report: where to look, what was sent, the saved state."""
import hashlib
import os
import re
import shlex

from .client import NodusMockError

JOURNAL_ENTRIES = 20


def failure_section(mock, nodeid, folder):
    """Each part is best effort: a server that is gone or too old still leaves the other parts."""
    lines = [f"inspector: {mock.inspector()}"]
    lines += _journal(mock)
    lines += _snapshot(mock, nodeid, folder)
    return "\n".join(lines) + "\n"


def _journal(mock):
    try:
        entries = mock.requests(limit=JOURNAL_ENTRIES)
    except (NodusMockError, OSError) as err:
        return [f"journal: could not be read: {err}"]
    if not entries:
        return ["journal: no request reached /v1 with this key"]
    lines = [f"journal (last {len(entries)}, oldest first):"]
    for entry in reversed(entries):
        status = entry.get("status")
        answer = str(status) if status is not None else "unanswered"
        fault = f" ({entry['fault']})" if entry.get("fault") else ""
        lines.append(f"  {entry['method']} {entry['path']} {answer}{fault}")
    return lines


def _snapshot(mock, nodeid, folder):
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
    command = f"npx nodus-mock --restore {shlex.quote(path)} --restore-key {shlex.quote(mock.api_key)}"
    return [f"snapshot: {path}", f"  open it: {command}   (then the inspector link it prints)"]


def snapshot_name(nodeid):
    """A file name per test: readable, and distinct even when two node ids read alike."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid).strip("_")[:120]
    return f"{readable}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}.json"

"""The control API of one tenant over HTTP, with nothing but the standard library."""
import json
import os
import urllib.error
import urllib.parse
import urllib.request

TIMEOUT_SECONDS = 30


class NodusMockError(Exception):
    """A control call the server refused: `status` and `code` are the answer's, `message` its text."""

    def __init__(self, method, path, status, code, message):
        super().__init__(f"{method} {path}: {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class NodusMock:
    """One tenant of the mock, named by its key: move its clock, inject faults, read what the client sent."""

    def __init__(self, url, api_key):
        self.url = url
        self.api_key = api_key

    def __repr__(self):
        return f"<NodusMock {self.api_key} at {self.url}>"

    def control(self, method, path, body=None):
        """Sends one request with the tenant's key; answers the parsed JSON (None when empty)."""
        text = self._send(method, path, None if body is None else json.dumps(body).encode())
        return json.loads(text) if text else None

    def _send(self, method, path, data):
        headers = {"Authorization": "Bearer " + self.api_key, "Content-Type": "application/json"}
        if hasattr(data, "fileno"):
            # A file is sent as it reads, not held in memory; its length spares the server a chunked body.
            headers["Content-Length"] = str(os.fstat(data.fileno()).st_size)
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as err:
            raise _refusal(method, path, err) from None
        return text

    def advance(self, seconds):
        """Moves the tenant's clock forward; answers the new virtual now."""
        return self.control("POST", "/_mock/clock/advance", {"seconds": seconds})["now"]

    def advance_until(self, until, max_seconds=None):
        """Moves the tenant's clock to the first virtual time at which `until` holds ("idle",
        {"workload_id": ..., "status": ...}, or {"rule": id}, once that workload rule has applied);
        answers the new virtual now.

        A condition that cannot hold, or does not within `max_seconds` (default a virtual week),
        raises NodusMockError (409 `condition_unreachable` or `max_seconds_reached`), and the clock
        does not move."""
        body = {"until": until} if max_seconds is None else {"until": until, "max_seconds": max_seconds}
        return self.control("POST", "/_mock/clock/advance", body)["now"]

    def fault(self, rule):
        """Adds a fault rule; answers the stored rule with its `id`."""
        return self.control("POST", "/_mock/faults", rule)

    def workload_rule(self, rule):
        """Adds a workload rule (`match`, `at`, `action`), which binds the matching workloads
        launched after it; answers the stored rule with its `id`."""
        return self.control("POST", "/_mock/workload-rules", rule)

    def workload_rules(self):
        """The tenant's workload rules, each with its counters and the workloads it bound."""
        return self.control("GET", "/_mock/workload-rules")["rules"]

    def clear_workload_rules(self):
        """Deletes every workload rule of the tenant; what a rule already applied stays."""
        self.control("DELETE", "/_mock/workload-rules")

    def requests(self, path=None, method=None, limit=None):
        """The tenant's request journal, newest first."""
        query = {name: value for name, value in (("path", path), ("method", method), ("limit", limit)) if value is not None}
        suffix = "?" + urllib.parse.urlencode(query) if query else ""
        return self.control("GET", "/_mock/requests" + suffix)["requests"]

    def snapshot(self, path=None):
        """The tenant's whole state as one document, which `nodus-mock --restore FILE` opens.

        With `path`, the document is also written there as the server sent it."""
        text = self._send("GET", "/_mock/snapshot", None)
        document = json.loads(text)
        if path is not None:
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
        return document

    def restore(self, snapshot):
        """Replaces the tenant's whole state with a snapshot's (`PUT /_mock/snapshot`).

        `snapshot` is a document as `snapshot()` answers it, or the path of a file holding one,
        sent as it is. Taken from another tenant, the document is forked: the same state under ids
        of this tenant's own. Answers `{"restored": True, "rows": {table: count}}`."""
        if isinstance(snapshot, dict):
            return json.loads(self._send("PUT", "/_mock/snapshot", json.dumps(snapshot).encode()))
        with open(snapshot, "rb") as file:
            return json.loads(self._send("PUT", "/_mock/snapshot", file))

    def inspector(self, workload_id=None):
        """A link to the inspector for this tenant, or for one of its runs.

        The key is in the fragment (after #), which the browser keeps to itself."""
        fragment = {"key": self.api_key}
        if workload_id is not None:
            fragment["workload"] = workload_id
        return self.url + "/_mock/ui/#" + urllib.parse.urlencode(fragment)


def _refusal(method, path, err):
    text = err.read().decode(errors="replace")
    try:
        envelope = json.loads(text)
        return NodusMockError(method, path, err.code, envelope.get("error"), envelope.get("message"))
    except (ValueError, AttributeError):
        return NodusMockError(method, path, err.code, None, text[:200])

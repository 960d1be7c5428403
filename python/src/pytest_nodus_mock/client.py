"""The control API of one tenant over HTTP, with nothing but the standard library.

One method per `/_mock` route (docs/control-api.md), named for what it does; `control()` reaches
anything else. Every refusal raises NodusMockError with the error envelope's status, code and message.
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import IO, Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from .verify import Expectation, explain_miss

TIMEOUT_SECONDS = 30

JSON = Any
Query = Mapping[str, Union[str, int, float, bool, Iterable[str]]]

# Distinguishes "leave this lever as it is" from None, which sets the catalog's value.
_UNCHANGED: Any = object()


class NodusMockError(Exception):
    """A control call the server refused: `status` and `code` are the answer's, `message` its text."""

    def __init__(self, method: str, path: str, status: int, code: Optional[str], message: Optional[str]) -> None:
        super().__init__(f"{method} {path}: {status} {code}: {message}")
        self.method = method
        self.path = path
        self.status = status
        self.code = code
        self.message = message


class NodusMock:
    """One tenant of the mock, named by its key: every lever of the control API as a method."""

    def __init__(self, url: str, api_key: str) -> None:
        self.url = url
        self.api_key = api_key
        # The ids of the rules made through this client: teardown names those that never fired.
        self.declared: List[str] = []

    def __repr__(self) -> str:
        return f"<NodusMock {self.api_key} at {self.url}>"

    # -- any route -------------------------------------------------------------------------------

    def control(self, method: str, path: str, body: JSON = None, *, query: Optional[Query] = None,
                text: Optional[str] = None) -> JSON:
        """Sends one request with the tenant's key; answers the parsed JSON (None when empty).

        `body` is sent as JSON, `text` as text/plain (one of them); `query` is added to `path`.
        A path must start with `/`: `"/_mock/clock"`, `"/v1/me"`."""
        if body is not None and text is not None:
            raise ValueError("control() takes a JSON body or a text body, not both")
        if text is not None:
            answer = self._send(method, path, text.encode(), query=query, content_type="text/plain; charset=utf-8")
        else:
            answer = self._send(method, path, None if body is None else json.dumps(body).encode(), query=query)
        return json.loads(answer) if answer else None

    def _send(self, method: str, path: str, data: Union[bytes, IO[bytes], None], *, query: Optional[Query] = None,
              content_type: str = "application/json") -> bytes:
        if not isinstance(path, str) or not path.startswith("/"):
            raise ValueError(f"a nodus-mock path starts with '/', as in '/_mock/clock': {path!r}")
        target = path + ("?" + urllib.parse.urlencode(query, doseq=True) if query else "")
        headers = {"Authorization": "Bearer " + self.api_key, "Content-Type": content_type}
        if hasattr(data, "fileno"):
            # A file is sent as it reads, not held in memory; its length spares the server a chunked body.
            headers["Content-Length"] = str(os.fstat(data.fileno()).st_size)  # type: ignore[union-attr]
        request = urllib.request.Request(self.url + target, data=data, method=method, headers=headers)  # type: ignore[arg-type]
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            raise _refusal(method, target, err) from None

    # -- clock -----------------------------------------------------------------------------------

    def clock(self) -> Dict[str, Any]:
        """The tenant's clock: `{"mode", "scale", "now"}`."""
        return self.control("GET", "/_mock/clock")

    def set_clock(self, mode: str, scale: Optional[float] = None) -> Dict[str, Any]:
        """Switches the clock to "manual" or "realtime" (and `scale` virtual seconds per wall second);
        time never runs backwards. Answers the clock."""
        return self.control("PUT", "/_mock/clock", _without_none(mode=mode, scale=scale))

    def advance(self, seconds: float) -> str:
        """Moves the tenant's clock forward; answers the new virtual now."""
        return self.control("POST", "/_mock/clock/advance", {"seconds": seconds})["now"]

    def advance_until(self, until: Union[str, Dict[str, Any]], max_seconds: Optional[float] = None) -> str:
        """Moves the tenant's clock to the first virtual time at which `until` holds ("idle",
        {"workload_id": ..., "status": ...}, or {"rule": id}, once that workload rule has applied);
        answers the new virtual now.

        A condition that cannot hold, or does not within `max_seconds` (default a virtual week),
        raises NodusMockError (409 `condition_unreachable` or `max_seconds_reached`), and the clock
        does not move."""
        return self.control("POST", "/_mock/clock/advance", _without_none(until=until, max_seconds=max_seconds))["now"]

    # -- fault rules -----------------------------------------------------------------------------

    def fault(self, rule: Dict[str, Any]) -> Dict[str, Any]:
        """Adds a fault rule (`method`, `path`, `times`, `after`, `action`); answers it with its `id`."""
        stored = self.control("POST", "/_mock/faults", rule)
        self.declared.append(stored["id"])
        return stored

    def fail_next(self, method: Optional[str], path: str, status: int = 503, error: Optional[str] = None, *,
                  message: Optional[str] = None, retry_after: Optional[float] = None,
                  times: int = 1, after: int = 0) -> Dict[str, Any]:
        """The next `times` matching requests (after letting `after` through) answer `status` with the
        error envelope (`error` defaults to a code for the status) and, with `retry_after`, Retry-After."""
        action = _without_none(type="error", status=status, error=error or _ERROR_CODES.get(status, "fault_injected"),
                               message=message, retry_after=retry_after)
        return self.fault(_without_none(method=method, path=path, times=times, after=after, action=action))

    def drop_next_response(self, method: Optional[str], path: str, *, times: int = 1, after: int = 0) -> Dict[str, Any]:
        """The next matching requests are handled (and commit), then the connection closes unanswered."""
        return self.fault(_without_none(method=method, path=path, times=times, after=after, action={"type": "drop_response"}))

    def delay_next(self, method: Optional[str], path: str, ms: int, *, times: int = 1, after: int = 0) -> Dict[str, Any]:
        """The next matching requests wait `ms` wall milliseconds, then are handled as usual."""
        return self.fault(_without_none(method=method, path=path, times=times, after=after, action={"type": "delay", "ms": ms}))

    def reset_next(self, method: Optional[str], path: str, *, times: int = 1, after: int = 0) -> Dict[str, Any]:
        """The next matching requests have their connection reset before anything happens."""
        return self.fault(_without_none(method=method, path=path, times=times, after=after, action={"type": "reset"}))

    def faults(self) -> List[Dict[str, Any]]:
        """The tenant's fault rules, oldest first, spent ones included, with `seen` and `applied`."""
        return self.control("GET", "/_mock/faults")["faults"]

    def clear_faults(self, fault_id: Optional[str] = None) -> None:
        """Removes one fault rule, or every one."""
        self.control("DELETE", "/_mock/faults" + ("" if fault_id is None else "/" + _segment(fault_id)))

    # -- workload rules --------------------------------------------------------------------------

    def workload_rule(self, rule: Dict[str, Any]) -> Dict[str, Any]:
        """Adds a workload rule (`match`, `at`, `action`), which binds the matching workloads
        launched after it; answers the stored rule with its `id`."""
        stored = self.control("POST", "/_mock/workload-rules", rule)
        self.declared.append(stored["id"])
        return stored

    def workload_rules(self) -> List[Dict[str, Any]]:
        """The tenant's workload rules, each with its counters and the workloads it bound."""
        return self.control("GET", "/_mock/workload-rules")["rules"]

    def clear_workload_rules(self, rule_id: Optional[str] = None) -> None:
        """Deletes one workload rule, or every one; what a rule already applied stays."""
        self.control("DELETE", "/_mock/workload-rules" + ("" if rule_id is None else "/" + _segment(rule_id)))

    # -- interventions ---------------------------------------------------------------------------

    def recover(self, workload_id: str, replay_last: Optional[int] = None) -> Dict[str, Any]:
        """Recovers a provisioning or running workload into its next generation, replaying its last
        `replay_last` task events; answers `{"workload_id", "status", "generation", ...}`."""
        return self.control("POST", _workload(workload_id, "recover"), _without_none(replay_last=replay_last))

    def drop_events(self, workload_id: str, count: int) -> Dict[str, Any]:
        """Counts `count` task events of the workload as lost (`dropped_events`, `truncated`)."""
        return self.control("POST", _workload(workload_id, "drop-events"), {"count": count})

    def fail_workload(self, workload_id: str, reason: Optional[str] = None) -> Dict[str, Any]:
        """Ends an active workload as `failed`."""
        return self.control("POST", _workload(workload_id, "fail"), _without_none(reason=reason))

    def report_events(self, workload_id: str, events: List[Dict[str, Any]], *, stage_id: Optional[str] = None,
                      generation: Optional[int] = None) -> Dict[str, Any]:
        """Reports task events of a custom run as event objects; answers `accepted`, `duplicates`,
        `dropped` and the `rejected` ones with why."""
        body = _without_none(events=events, stage_id=stage_id, generation=generation)
        return self.control("POST", _workload(workload_id, "rl-events"), body)

    def report_lines(self, workload_id: str, lines: Union[str, Iterable[str]], *, stage_id: Optional[str] = None,
                     generation: Optional[int] = None) -> Dict[str, Any]:
        """Reports a custom run's stdout as text: each `nodus.rl_event {json}` line is an event,
        every line goes to the workload's log."""
        text = lines if isinstance(lines, str) else "\n".join(lines)
        query = _without_none(stage_id=stage_id, generation=generation)
        return self.control("POST", _workload(workload_id, "rl-events"), text=text, query=query or None)

    def set_grading_plan(self, workload_id: str, revision: Optional[int] = None, *,
                         receipts: Optional[List[Dict[str, Any]]] = None, plan_sha256: Optional[str] = None,
                         **fields: Any) -> Dict[str, Any]:
        """Creates or replaces the grading plan of a revision (default the workload's); `receipts`
        given are served as they are."""
        body = _without_none(revision=revision, receipts=receipts, plan_sha256=plan_sha256, **fields)
        return self.control("PUT", _workload(workload_id, "grading-plan"), body)

    # -- admission -------------------------------------------------------------------------------

    def set_recipe_available(self, recipe_id: str, available: bool, reason: Optional[str] = None) -> Dict[str, Any]:
        """This tenant's view of a recipe: unavailable (with `reason`), its preview blocks and its
        launch answers 503 `rl_unavailable`; available again with `True`. Answers the recipe."""
        body = _without_none(available=available, unavailable_reason=reason)
        return self.control("PATCH", "/_mock/recipes/" + _segment(recipe_id), body)

    def set_budget(self, monthly_spend_cap_usd: float, month_to_date_usd: Optional[float] = None) -> Dict[str, Any]:
        """A monthly cap: a launch whose estimate does not fit is 402 `budget_exceeded`."""
        body = _without_none(monthly_spend_cap_usd=monthly_spend_cap_usd, month_to_date_usd=month_to_date_usd)
        return self.control("PUT", "/_mock/budget", body)

    def clear_budget(self) -> None:
        """Removes the cap."""
        self.control("DELETE", "/_mock/budget")

    def set_levers(self, review_expiry: Optional[bool] = None, unrecoverable_error_rate: Optional[float] = _UNCHANGED) -> Dict[str, Any]:
        """Changes only the levers named (`unrecoverable_error_rate=None` is each recipe's catalog
        value); answers both."""
        body: Dict[str, Any] = _without_none(review_expiry=review_expiry)
        if unrecoverable_error_rate is not _UNCHANGED:
            body["unrecoverable_error_rate"] = unrecoverable_error_rate
        return self.control("PUT", "/_mock/levers", body)

    # -- assets ----------------------------------------------------------------------------------

    def asset_content(self, asset_id: str) -> bytes:
        """The bytes stored for an asset (an import's stand-in manifest), as /v1 never serves them."""
        return self._send("GET", "/_mock/assets/" + _segment(asset_id) + "/content", None)

    def asset_files(self, asset_id: str) -> List[Dict[str, Any]]:
        """An uploaded archive's members: `[{"path", "type", "bytes"}]`."""
        return self.control("GET", "/_mock/assets/" + _segment(asset_id) + "/files")["files"]

    def fail_asset(self, asset_id: str, error: Optional[str] = None) -> Dict[str, Any]:
        """Ends an import in progress as `failed` with that error text; answers the asset."""
        return self.control("POST", "/_mock/assets/" + _segment(asset_id) + "/fail", _without_none(error=error))

    # -- webhooks --------------------------------------------------------------------------------

    def webhook_deliveries(self, workload_id: Optional[str] = None, state: Optional[str] = None,
                           limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The tenant's webhook deliveries, oldest first, each with every attempt."""
        query = _without_none(workload_id=workload_id, state=state, limit=limit)
        return self.control("GET", "/_mock/webhooks/deliveries", query=query or None)["deliveries"]

    def flush_webhooks(self) -> Dict[str, Any]:
        """Returns once no delivery is due, each due one attempted; answers `{"due", "pending"}`."""
        return self.control("POST", "/_mock/webhooks/flush")

    def redeliver(self, delivery_id: str) -> Dict[str, Any]:
        """Makes one delivery pending again, due now, with the same webhook-id; answers it."""
        return self.control("POST", "/_mock/webhooks/deliveries/" + _segment(delivery_id) + "/redeliver")

    # -- journal ---------------------------------------------------------------------------------

    def requests(self, path: Optional[str] = None, method: Optional[str] = None, limit: Optional[int] = None,
                 kind: Optional[str] = None) -> List[Dict[str, Any]]:
        """The tenant's request journal, newest first. `path` matches as fault rules do (exact,
        `{name}` templates, a `*` prefix); `kind` is "api" (/v1) or "control" (this client's calls)."""
        return self.journal(path=path, method=method, limit=limit, kind=kind)[0]

    def journal(self, path: Optional[str] = None, method: Optional[str] = None, limit: Optional[int] = None,
                kind: Optional[str] = None) -> Tuple[List[Dict[str, Any]], int]:
        """The journal's rows, newest first, and how many older rows it has evicted."""
        query = _without_none(path=path, method=method, limit=limit, kind=kind)
        status, headers, answer = self._exchange("GET", "/_mock/requests", query)
        rows = answer.get("requests", answer.get("data", [])) if isinstance(answer, dict) else answer
        evicted = answer.get("evicted") if isinstance(answer, dict) else None
        if evicted is None:
            evicted = headers.get("Nodus-Mock-Journal-Evicted") or 0
        return rows, int(evicted)

    def _exchange(self, method: str, path: str, query: Optional[Query]) -> Tuple[int, Mapping[str, str], JSON]:
        target = path + ("?" + urllib.parse.urlencode(query, doseq=True) if query else "")
        request = urllib.request.Request(self.url + target, method=method, headers={"Authorization": "Bearer " + self.api_key})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                return response.status, response.headers, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as err:
            raise _refusal(method, target, err) from None

    def match(self, method: Optional[str], path: str, **fields: Any) -> Dict[str, Any]:
        """The server's matcher (`POST /_mock/requests/match`): `{"matches", "count", "evicted",
        "nearest"}` for a method, path, and any of `query`, `headers`, `body` (JSON pointer ->
        value), `status`, `replayed`, `kind`."""
        return self.control("POST", "/_mock/requests/match", _without_none(method=method, path=path, **fields))

    def verify(self, method: Optional[str], path: str, *, count: Optional[int] = None,
               query: Optional[Mapping[str, Any]] = None, headers: Optional[Mapping[str, str]] = None,
               body: Optional[Mapping[str, Any]] = None, status: Optional[int] = None,
               replayed: Optional[bool] = None) -> List[Dict[str, Any]]:
        """Asserts the client sent such a request (`count` times, when given); answers the matching
        rows, oldest first. A miss raises AssertionError listing the nearest requests and what
        differs in each, field by field.

        `body` maps JSON pointers to values: `{"/recipe_id": "grpo-gsm8k", "/config/steps": 3}`;
        `headers` names are case-insensitive."""
        expectation = Expectation(method, path, count, query, None if headers is None else
                                  {name.lower(): value for name, value in headers.items()}, body, status, replayed)
        answer = self.match(method, path, query=query, headers=expectation.headers, body=body,
                            status=status, replayed=replayed)
        matches = answer.get("matches", [])
        if (count is None and not matches) or (count is not None and len(matches) != count):
            raise AssertionError(explain_miss(expectation, answer))
        return matches

    def clear_requests(self) -> None:
        """Empties the tenant's request journal."""
        self.control("DELETE", "/_mock/requests")

    # -- the whole tenant ------------------------------------------------------------------------

    def reset(self) -> Dict[str, Any]:
        """Deletes everything this tenant owns; answers the rows deleted per table."""
        self.declared.clear()
        return self.control("POST", "/_mock/reset")

    def snapshot(self, path: Union[str, "os.PathLike[str]", None] = None) -> Dict[str, Any]:
        """The tenant's whole state as one document, which `nodus-mock --restore FILE` opens.

        With `path`, the document is also written there as the server sent it."""
        raw = self._send("GET", "/_mock/snapshot", None)
        document = json.loads(raw)
        if path is not None:
            with open(path, "wb") as file:
                file.write(raw)
        return document

    def restore(self, snapshot: Union[Dict[str, Any], str, "os.PathLike[str]"]) -> Dict[str, Any]:
        """Replaces the tenant's whole state with a snapshot's (`PUT /_mock/snapshot`).

        `snapshot` is a document as `snapshot()` answers it, or the path of a file holding one,
        sent as it is. Taken from another tenant, the document is forked: the same state under ids
        of this tenant's own. Answers `{"restored": True, "rows": {table: count}}`."""
        if isinstance(snapshot, dict):
            return json.loads(self._send("PUT", "/_mock/snapshot", json.dumps(snapshot).encode()))
        with open(snapshot, "rb") as file:
            return json.loads(self._send("PUT", "/_mock/snapshot", file))

    def inspector(self, workload_id: Optional[str] = None) -> str:
        """A link to the inspector for this tenant, or for one of its runs.

        The key is in the fragment (after #), which the browser keeps to itself."""
        fragment = {"key": self.api_key}
        if workload_id is not None:
            fragment["workload"] = workload_id
        return self.url + "/_mock/ui/#" + urllib.parse.urlencode(fragment)


# Envelope codes of docs/errors.md for the statuses a fault usually stands in for.
_ERROR_CODES = {429: "rate_limited", 500: "internal_error", 502: "bad_gateway", 503: "unavailable", 504: "timeout"}


def _without_none(**fields: Any) -> Dict[str, Any]:
    return {name: value for name, value in fields.items() if value is not None}


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _workload(workload_id: str, action: str) -> str:
    return f"/_mock/workloads/{_segment(workload_id)}/{action}"


def _refusal(method: str, path: str, err: urllib.error.HTTPError) -> NodusMockError:
    text = err.read().decode(errors="replace")
    try:
        envelope = json.loads(text)
        return NodusMockError(method, path, err.code, envelope.get("error"), envelope.get("message"))
    except (ValueError, AttributeError):
        return NodusMockError(method, path, err.code, None, text[:200])

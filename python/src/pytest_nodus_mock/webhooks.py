"""A webhook receiver for tests: a local HTTP server that checks every delivery's signature
(Standard Webhooks, docs/webhooks.md), answers a scripted sequence, and waits for a delivery on the
virtual clock, never by sleeping."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple, Union

from .client import NodusMock, NodusMockError

# An answer: a status, or (status, wall seconds to wait before answering).
Answer = Union[int, Tuple[int, float]]
WAIT_ROUNDS = 50


class WebhookReceiver:
    """Listens on a free port of this machine. `register()` makes it the tenant's webhook.

    - `respond`: the answers to the next attempts, in order (`[500, 500, 204]`, or `(204, 0.5)` to
      answer after half a wall second); once used up, every attempt gets 204.
    - `deliveries`: the deliveries answered 2xx, parsed, in the order they came, once per webhook-id.
    - `attempts`: every request, as `{"id", "type", "status", "signature_ok", "body"}`.
    - `rejected`: the attempts whose signature did not verify (answered 401); a test that uses the
      fixture fails at teardown when there is any."""

    def __init__(self, mock: NodusMock, host: str = "127.0.0.1", advertised_host: Optional[str] = None) -> None:
        self.mock = mock
        self.secret: Optional[str] = None
        self.respond: List[Answer] = []
        self.deliveries: List[Dict[str, Any]] = []
        self.attempts: List[Dict[str, Any]] = []
        self.rejected: List[Dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, 0), _handler(self))
        self._server.daemon_threads = True
        port = self._server.server_address[1]
        self.url = f"http://{advertised_host or host}:{port}/webhook"
        self._thread = threading.Thread(target=self._server.serve_forever, name="nodus-webhook-receiver", daemon=True)
        self._thread.start()

    def register(self, secret: Optional[str] = None) -> str:
        """`PUT /v1/webhooks` with this receiver's URL (the SDK's `set_webhook`); answers the secret
        in force, which the receiver verifies signatures with."""
        answer = self.mock.control("PUT", "/v1/webhooks", {"url": self.url} if secret is None else {"url": self.url, "secret": secret})
        self.secret = answer["secret"]
        return answer["secret"]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def wait_for(self, type: str, workload_id: Optional[str] = None) -> Dict[str, Any]:
        """The first delivery of `type` ("workload.completed", or just "completed"), of that workload
        when given. Until it has come: flush the deliveries due, move the virtual clock to the next
        retry of a pending one, or to when the workload reaches that status (to when every workload
        has ended, without one). Raises AssertionError when it cannot come."""
        wanted = type if "." in type else "workload." + type
        for _ in range(WAIT_ROUNDS):
            # A flush first, also when the delivery is here already: the delivery worker may have sent
            # it on its own, and the mock records an attempt only once it has the receiver's answer.
            self.mock.flush_webhooks()
            found = self._first(wanted, workload_id)
            if found is not None:
                return found
            self._raise_on_rejected()
            if not self._advance(wanted, workload_id):
                break
        self._raise_on_rejected()
        with self._lock:
            seen = [(d["type"], d.get("data", {}).get("id")) for d in self.deliveries]
        where = f" of {workload_id}" if workload_id else ""
        raise AssertionError(f"nodus-mock: no {wanted} delivery{where} came; the receiver got {seen or 'none'}")

    def _first(self, wanted: str, workload_id: Optional[str]) -> Optional[Dict[str, Any]]:
        with self._lock:
            for delivery in self.deliveries:
                if delivery.get("type") == wanted and (workload_id is None or delivery.get("data", {}).get("id") == workload_id):
                    return delivery
        return None

    def _advance(self, wanted: str, workload_id: Optional[str]) -> bool:
        """Moves the clock to the next moment a delivery can come; False when none can."""
        retries = [d["next_attempt_at"] for d in self.mock.webhook_deliveries(state="pending", limit=1000)
                   if d.get("next_attempt_at")]
        if retries:
            now = _moment(self.mock.clock()["now"])
            seconds = (min(_moment(at) for at in retries) - now).total_seconds()
            self.mock.advance(max(seconds, 0.001))
            return True
        until: Union[str, Dict[str, str]] = "idle"
        if workload_id is not None and wanted.startswith("workload."):
            until = {"workload_id": workload_id, "status": wanted[len("workload."):]}
        before = self.mock.clock()["now"]
        try:
            return self.mock.advance_until(until) != before
        except NodusMockError as err:
            if err.status == 409:
                raise AssertionError(f"nodus-mock: no {wanted} delivery can come: {err.message}") from None
            raise

    def _raise_on_rejected(self) -> None:
        if self.rejected:
            raise AssertionError(f"nodus-mock: {len(self.rejected)} webhook deliveries had a signature that does not verify"
                                 f" with the endpoint's secret: {self.rejected[0]['why']}")

    def _receive(self, headers: Any, body: bytes) -> Tuple[int, float]:
        msg_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
        why = self._signature_problem(msg_id, timestamp, headers.get("webhook-signature", ""), body)
        try:
            event = json.loads(body)
        except ValueError:
            event = None
        with self._lock:
            status, delay = (401, 0.0) if why else _answer(self.respond.pop(0) if self.respond else 204)
            attempt = {"id": msg_id, "type": event.get("type") if isinstance(event, dict) else None,
                       "status": status, "signature_ok": not why, "body": event}
            self.attempts.append(attempt)
            if why:
                self.rejected.append({**attempt, "why": why})
            # Recorded before the answer goes out: once the mock has its answer, a flush has returned.
            elif 200 <= status < 300 and not any(d.get("id") == msg_id for d in self.deliveries):
                self.deliveries.append(event)
        return status, delay

    def _signature_problem(self, msg_id: str, timestamp: str, signatures: str, body: bytes) -> Optional[str]:
        if self.secret is None:
            return "the receiver has no secret: call register() first, or set .secret"
        try:
            key = base64.b64decode(self.secret[len("whsec_"):] if self.secret.startswith("whsec_") else self.secret)
            sent_at = int(timestamp)
        except ValueError:
            return f"webhook-timestamp {timestamp!r} is not a number"
        if abs(time.time() - sent_at) > 300:
            return f"webhook-timestamp {sent_at} is more than 5 minutes from this machine's clock"
        expected = base64.b64encode(hmac.new(key, f"{msg_id}.{sent_at}.".encode() + body, hashlib.sha256).digest()).decode()
        sent = [part.split(",", 1)[1] for part in signatures.split() if part.startswith("v1,")]
        if not any(hmac.compare_digest(expected, signature) for signature in sent):
            return f"webhook-signature {signatures!r} of {msg_id} is not the HMAC of the body with the endpoint's secret"
        return None


def _answer(answer: Answer) -> Tuple[int, float]:
    return (answer, 0.0) if isinstance(answer, int) else (int(answer[0]), float(answer[1]))


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _handler(receiver: WebhookReceiver) -> type:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            status, delay = receiver._receive(self.headers, body)
            if delay:
                time.sleep(delay)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    return Handler

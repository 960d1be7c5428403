"""Every method of the control client against the session's one server (conftest's shared_server,
started with `with start_server(...)` as a script or unittest would), each test in a tenant of its own."""
import base64
import hashlib
import http.client
import io
import json
import tarfile
import threading
import urllib.error
import urllib.request
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pytest_nodus_mock import NodusMock, NodusMockError, WebhookReceiver

import wire

CUSTOM_RUN = {
    "requirements": {"compute_class": "accelerator"}, "outcome": {"max_cost_usd": 3},
    "continuity": {"mode": "checkpointed", "resume_on_interruption": True},
    "stages": [{"id": "main", "source": {"image": "python:3.11-slim", "command": ["python", "train.py"]}, "outputs": {"results": "outputs"}}],
    "rl": {"schema_version": 1, "environment_id": "custom", "mode": "evaluate", "model": "m", "planned_tasks": 4},
}


@pytest.fixture
def server(shared_server):
    return shared_server


@pytest.fixture
def mock(shared_server):
    return shared_server.tenant()


def v1(mock, method, path, body=None, headers=None, data=None):
    """A /v1 call with the tenant's key: (status, headers, parsed body), or (None, None, None) when
    the connection closed unanswered."""
    sent = {"Authorization": "Bearer " + mock.api_key, **(headers or {})}
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    request = urllib.request.Request(mock.url + path, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, response.headers, json.loads(raw) if raw else None
    except urllib.error.HTTPError as err:
        return err.code, err.headers, json.loads(err.read() or b"null")
    except (http.client.HTTPException, ConnectionError):
        return None, None, None


def moment(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def launch(mock, key, mode="evaluate"):
    return wire.launch(key, url=mock.url, key=mock.api_key) if mode == "evaluate" else train(mock, key)


def train(mock, key):
    status, _, preview = v1(mock, "POST", "/v1/rl-runs/preview", {**wire.PREVIEW, "mode": "train", "training_steps": 10})
    assert status == 200, preview
    status, _, run = v1(mock, "POST", "/v1/rl-runs", {**preview["configuration"], "review_token": preview["review_token"]},
                        headers={"Idempotency-Key": key})
    assert status == 202, run
    return run["workload_id"]


def custom_run(mock, key):
    status, _, run = v1(mock, "POST", "/v1/workloads", CUSTOM_RUN, headers={"Idempotency-Key": key})
    assert status == 202, run
    return run["id"]


def test_the_server_is_a_context_manager_and_each_tenant_is_fresh(server):
    first, second = server.tenant(), server.tenant()
    assert first.api_key != second.api_key and first.api_key.startswith("nk_test_")
    assert v1(first, "GET", "/v1/me")[2]["tenant"] != v1(second, "GET", "/v1/me")[2]["tenant"]
    assert server.tenant("nk_test_named").api_key == "nk_test_named"


def test_control_takes_a_query_and_a_text_body_and_refuses_a_path_without_a_slash(mock):
    workload = custom_run(mock, "text-1")
    line = '{"event_id":"e1","phase":"evaluation","task_id":"t1","attempt":1,"kind":"task_started"}'
    answer = mock.control("POST", f"/_mock/workloads/{workload}/rl-events", text=f"nodus.rl_event {line}\n",
                          query={"stage_id": "main", "generation": 1})
    assert (answer["accepted"], answer["stage_id"]) == (1, "main")
    with pytest.raises(NodusMockError) as refused:
        mock.control("POST", f"/_mock/workloads/{workload}/rl-events", text="x", query={"generation": 9})
    assert (refused.value.status, refused.value.code) == (400, "invalid_generation")
    assert "generation" in refused.value.message
    with pytest.raises(ValueError, match="starts with '/'"):
        mock.control("GET", "_mock/clock")
    with pytest.raises(ValueError):
        mock.control("POST", "/_mock/clock/advance", {"seconds": 1}, text="1")


def test_clock_set_clock_and_advance(mock):
    assert mock.set_clock("realtime", scale=5)["mode"] == "realtime"
    clock = mock.set_clock("manual")
    assert (clock["mode"], clock["scale"]) == ("manual", 5)
    assert mock.clock() == clock
    now = mock.advance(90)
    assert moment(now) - moment(clock["now"]) == 90
    with pytest.raises(NodusMockError) as refused:
        mock.set_clock("sometimes")
    assert refused.value.code == "invalid_request"


def test_fail_next_answers_the_status_after_letting_requests_through(mock):
    rule = mock.fail_next("GET", "/v1/workloads/{id}", 503, retry_after=2, after=1, times=2)
    statuses = [v1(mock, "GET", f"/v1/workloads/wl_{n}")[:2] for n in range(4)]
    assert [status for status, _ in statuses] == [404, 503, 503, 404]
    assert statuses[1][1]["Retry-After"] == "2"
    assert mock.fail_next(None, "/v1/me", 429)["action"] == {"type": "error", "status": 429, "error": "rate_limited",
                                                            "message": "fault injected by nodus-mock"}
    assert v1(mock, "GET", "/v1/me")[0] == 429
    [first, second] = mock.faults()
    # Counted while live: the one let through and the two it answered.
    assert (first["id"], first["applied"], first["seen"]) == (rule["id"], 2, 3)
    assert second["method"] is None


def test_drop_next_response_commits_and_closes_unanswered(mock):
    mock.drop_next_response("POST", "/v1/rl-runs/preview")
    assert v1(mock, "POST", "/v1/rl-runs/preview", wire.PREVIEW) == (None, None, None)
    [row] = mock.requests(path="/v1/*")
    assert (row["status"], row["fault"]) == (None, "drop_response")


def test_delay_next_and_reset_next(mock):
    mock.delay_next("GET", "/v1/me", 1)
    mock.reset_next("GET", "/v1/me", after=1)
    assert v1(mock, "GET", "/v1/me")[0] == 200
    assert v1(mock, "GET", "/v1/me")[0] is None
    assert [(row["status"], row["fault"]) for row in mock.requests(path="/v1/*")] == [(None, "reset"), (200, "delay")]


def test_clear_faults_one_or_all(mock):
    kept = mock.fail_next("GET", "/v1/me", 500)
    gone = mock.fail_next("GET", "/v1/rl-recipes", 500)
    mock.clear_faults(gone["id"])
    assert [rule["id"] for rule in mock.faults()] == [kept["id"]]
    mock.clear_faults()
    assert mock.faults() == []
    with pytest.raises(NodusMockError) as refused:
        mock.clear_faults(kept["id"])
    assert (refused.value.status, refused.value.code) == (404, "not_found")


def test_workload_rules_bind_apply_and_clear_one(mock):
    rule = mock.workload_rule({"at": {"running_seconds": 5}, "action": {"type": "fail", "reason": "node lost"}})
    other = mock.workload_rule({"match": {"mode": "train"}, "at": {"phase": "training"}, "action": {"type": "recover"}})
    workload = launch(mock, "ruled")
    mock.advance_until({"rule": rule["id"]})
    assert v1(mock, "GET", f"/v1/workloads/{workload}")[2]["status"] == "failed"
    mock.clear_workload_rules(other["id"])
    [left] = mock.workload_rules()
    assert (left["id"], left["applied"]) == (rule["id"], 1)
    mock.clear_workload_rules()
    assert mock.workload_rules() == []


def test_recover_drop_events_and_fail_workload(mock):
    workload = launch(mock, "intervened", mode="train")
    mock.advance_until({"workload_id": workload, "status": "running"})
    recovered = mock.recover(workload, replay_last=3)
    assert (recovered["workload_id"], recovered["status"]) == (workload, "recovering")
    dropped = mock.drop_events(workload, 4)
    assert (dropped["dropped_events"], dropped["truncated"]) == (4, True)
    failed = mock.fail_workload(workload, "node lost")
    assert failed["status"] == "failed"
    assert v1(mock, "GET", f"/v1/workloads/{workload}")[2]["status"] == "failed"
    with pytest.raises(NodusMockError) as refused:
        mock.fail_workload(workload)
    assert (refused.value.status, refused.value.code) == (409, "invalid_workload_state")


def test_report_events_and_report_lines_land_in_the_evidence(mock):
    workload = custom_run(mock, "reported")
    events = mock.report_events(workload, [
        {"event_id": "e1", "phase": "evaluation", "task_id": "t1", "attempt": 1, "kind": "task_started"},
        {"event_id": "e2", "phase": "evaluation", "task_id": "t1", "attempt": 1, "kind": "task_completed"},
    ])
    assert (events["accepted"], [r["error"] for r in events["rejected"]]) == (1, ["invalid_event"])
    lines = mock.report_lines(workload, iter([
        "loading", 'nodus.rl_event {"event_id":"e3","phase":"evaluation","task_id":"t2","attempt":1,"kind":"task_started"}']),
        stage_id="main", generation=1)
    assert (lines["accepted"], lines["stage_id"], lines["generation"]) == (1, "main", 1)
    page = v1(mock, "GET", f"/v1/workloads/{workload}/rl-events")[2]
    assert [row["event"]["event_id"] for row in page["events"]] == ["e1", "e3"]


def test_set_grading_plan_serves_the_receipts_given(mock):
    workload = custom_run(mock, "graded")
    receipt = {"attempt_id": "a1", "request_id": "r1", "task_id": "t1", "candidate_sha256": "a" * 64, "plan_sha256": "b" * 64,
               "manifest_sha256": "c" * 64, "state": "completed", "reward": 0.5, "cleanup_complete": True}
    plan = mock.set_grading_plan(workload, 2, receipts=[receipt])
    assert (plan["revision"], plan["source"]) == (2, "given")
    results = v1(mock, "GET", f"/v1/workloads/{workload}/rl-grading-results?revision=2")[2]
    assert results["receipts"] == [receipt]


def test_recipe_availability_budget_and_levers(mock):
    recipe = wire.PREVIEW["recipe_id"]
    assert mock.set_recipe_available(recipe, False, "paused")["available"] is False
    preview = v1(mock, "POST", "/v1/rl-runs/preview", wire.PREVIEW)[2]
    assert preview["launchable"] is False and "paused" in json.dumps(preview["blocking_reasons"])
    assert mock.set_recipe_available(recipe, True)["available"] is True

    # Reviewed before the cap: the launch itself is refused.
    preview = v1(mock, "POST", "/v1/rl-runs/preview", wire.PREVIEW)[2]
    body = {**preview["configuration"], "review_token": preview["review_token"]}
    assert mock.set_budget(0.01, month_to_date_usd=0) == {"monthly_spend_cap_usd": 0.01, "month_to_date_usd": 0}
    status, _, refused = v1(mock, "POST", "/v1/rl-runs", body, headers={"Idempotency-Key": "capped"})
    assert (status, refused["error"]) == (402, "budget_exceeded")
    mock.clear_budget()
    assert v1(mock, "POST", "/v1/rl-runs", body, headers={"Idempotency-Key": "capped"})[0] == 202

    assert mock.set_levers(review_expiry=True) == {"review_expiry": True, "unrecoverable_error_rate": None}
    assert mock.set_levers(unrecoverable_error_rate=1) == {"review_expiry": True, "unrecoverable_error_rate": 1}
    assert mock.set_levers(unrecoverable_error_rate=None)["unrecoverable_error_rate"] is None


def test_asset_content_files_and_a_failed_import(mock):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        member = tarfile.TarInfo("src/train.py")
        member.size = 6
        archive.addfile(member, io.BytesIO(b"pass\n\n"))
    data = buffer.getvalue()
    status, _, asset = v1(mock, "POST", "/v1/assets/upload?name=code.tar.gz", data=data,
                          headers={"Content-Type": "application/octet-stream"})
    assert status == 201, asset
    assert mock.asset_content(asset["id"]) == data
    assert mock.asset_files(asset["id"]) == [{"path": "src/train.py", "type": "file", "bytes": 6}]

    assert v1(mock, "POST", "/v1/secrets", {"name": "DB_SECRET", "value": "v"})[0] == 201
    assert v1(mock, "POST", "/v1/connections", {"name": "db", "secret": "DB_SECRET", "kind": "postgres"})[0] == 201
    status, _, query = v1(mock, "POST", "/v1/assets/import", {"kind": "connection_query", "connection_id": "db", "sql": "SELECT 1"})
    assert status == 202, query
    failed = mock.fail_asset(query["id"], "the warehouse went away")
    assert (failed["state"], failed["error"]) == ("failed", "the warehouse went away")
    with pytest.raises(NodusMockError) as refused:
        mock.asset_content("asset_missing")
    assert refused.value.status == 404


def test_reset_forgets_everything_the_tenant_had(mock):
    launch(mock, "before-reset")
    mock.fail_next("GET", "/v1/me", 500)
    deleted = mock.reset()
    assert deleted["reset"] is True and deleted["deleted"]["workloads"] == 1
    assert mock.faults() == [] and v1(mock, "GET", "/v1/workloads")[2]["workloads"] == []
    assert mock.declared == []


def test_requests_filters_by_method_and_limit_and_clear_requests_empties_it(mock):
    for path in ("/v1/me", "/v1/rl-recipes", "/v1/me"):
        v1(mock, "GET", path)
    assert [row["path"] for row in mock.requests(limit=2)] == ["/v1/me", "/v1/rl-recipes"]
    assert len(mock.requests(path="/v1/me", method="get")) == 2
    mock.clear_requests()
    assert [row for row in mock.requests() if row["path"].startswith("/v1/")] == []


@pytest.fixture
def needs_journal_part(journal_part):
    if not journal_part:
        pytest.skip("this nodus-mock has no POST /_mock/requests/match: the journal's server part is not in this build")


def test_requests_match_path_templates_and_kinds_and_refuse_what_cannot_match(mock, needs_journal_part):
    workload = launch(mock, "journaled")
    v1(mock, "GET", f"/v1/workloads/{workload}/rl-events?limit=5")
    mock.advance(1)
    assert [row["path"] for row in mock.requests(path="/v1/workloads/{id}/rl-events")] == [f"/v1/workloads/{workload}/rl-events"]
    assert mock.requests(path="/v1/workloads/{id}/rl-events")[0]["query"] == {"limit": "5"}
    assert [row["path"] for row in mock.requests(kind="control")] == ["/_mock/clock/advance"]
    assert {row["kind"] for row in mock.requests(kind="api")} == {"api"}
    rows, evicted = mock.journal()
    assert evicted == 0 and rows[0]["path"] == "/_mock/clock/advance"
    launched = next(row for row in rows if row["path"] == "/v1/rl-runs")
    assert launched["headers"]["idempotency-key"] == "journaled" and "authorization" not in launched["headers"]
    with pytest.raises(NodusMockError) as refused:
        mock.requests(kind="neither")
    assert (refused.value.status, refused.value.code) == (400, "invalid_request")


def test_verify_answers_the_matches_and_explains_a_miss_field_by_field(mock, needs_journal_part):
    launch(mock, "verified")
    [row] = mock.verify("POST", "/v1/rl-runs", count=1, headers={"Idempotency-Key": "verified"}, body={"/mode": "evaluate"}, status=202)
    assert row["idempotency_key"] == "verified"
    mock.verify("POST", "/v1/rl-runs/preview")
    with pytest.raises(AssertionError) as missed:
        mock.verify("POST", "/v1/rl-runs", headers={"idempotency-key": "other"}, body={"/mode": "train"})
    message = str(missed.value)
    assert message.splitlines()[0].startswith("nodus-mock: expected at least one POST /v1/rl-runs")
    assert '    headers.idempotency-key: expected "other", got "verified"' in message
    assert '    body./mode: expected "train", got "evaluate"' in message
    with pytest.raises(AssertionError, match="expected 2 .* the journal holds 1"):
        mock.verify("POST", "/v1/rl-runs", count=2)


class FakeMatcher(BaseHTTPRequestHandler):
    """POST /_mock/requests/match answering what the test put in `answer`, recording what it was sent."""
    answer = {}
    sent = []

    def do_POST(self):
        FakeMatcher.sent.append((self.path, json.loads(self.rfile.read(int(self.headers["content-length"])))))
        body = json.dumps(FakeMatcher.answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


def test_verify_sends_the_contract_body_and_words_the_diff_and_the_evictions():
    """Against a fake of the matcher's contract, so the message is pinned whatever server runs."""
    fake = ThreadingHTTPServer(("127.0.0.1", 0), FakeMatcher)
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    try:
        mock = NodusMock(f"http://127.0.0.1:{fake.server_address[1]}", "nk_test_fake")
        near = {"id": 7, "method": "POST", "path": "/v1/rl-runs", "query": {"dry": "1"}, "status": 202, "replayed": True}
        FakeMatcher.answer = {"matches": [], "count": 0, "evicted": 3, "nearest": [{"request": near, "differences": [
            {"field": "headers.idempotency-key", "expected": "k1", "actual": None},
            {"field": "body./config/steps", "expected": 3, "actual": 5}]}]}
        with pytest.raises(AssertionError) as missed:
            mock.verify("POST", "/v1/rl-runs", count=1, query={"dry": "1"}, headers={"Idempotency-Key": "k1"}, body={"/config/steps": 3})
        assert FakeMatcher.sent[-1] == ("/_mock/requests/match", {
            "method": "POST", "path": "/v1/rl-runs", "query": {"dry": "1"}, "headers": {"idempotency-key": "k1"}, "body": {"/config/steps": 3}})
        assert str(missed.value).splitlines() == [
            'nodus-mock: expected 1 POST /v1/rl-runs query {"dry": "1"} headers {"idempotency-key": "k1"} body {"/config/steps": 3}; the journal holds 0',
            "nearest requests:",
            "  #7 POST /v1/rl-runs?dry=1 202 (replayed)",
            '    headers.idempotency-key: expected "k1", got nothing',
            "    body./config/steps: expected 3, got 5",
            "the journal evicted 3 older requests of this tenant: they are not counted (raise --journal-size to keep them)",
        ]
        FakeMatcher.answer = {"matches": [near, near], "count": 2, "evicted": 0, "nearest": []}
        assert mock.verify("POST", "/v1/rl-runs") == [near, near]
        with pytest.raises(AssertionError) as counted:
            mock.verify("POST", "/v1/rl-runs", count=1)
        assert str(counted.value).splitlines()[1:] == ["matching requests:", "  #7 POST /v1/rl-runs?dry=1 202 (replayed)",
                                                        "  #7 POST /v1/rl-runs?dry=1 202 (replayed)"]
    finally:
        fake.shutdown()
        fake.server_close()


def test_a_receiver_verifies_signatures_answers_its_script_and_waits_on_the_virtual_clock(mock):
    receiver = WebhookReceiver(mock)
    try:
        secret = receiver.register()
        assert secret.startswith("whsec_") and v1(mock, "GET", "/v1/webhooks")[2]["url"] == receiver.url
        receiver.respond = [503, (204, 0.01)]
        workload = launch(mock, "hooked")
        accepted = receiver.wait_for("accepted")
        assert (accepted["type"], accepted["data"]["id"]) == ("workload.accepted", workload)
        [delivery, *_] = mock.webhook_deliveries(workload_id=workload, state="delivered")
        assert delivery["type"] == "workload.accepted"
        assert [a["status_code"] for a in delivery["attempts"]] == [503, 204]
        assert receiver.wait_for("workload.completed", workload)["data"]["status"] == "completed"
        assert [d["type"] for d in receiver.deliveries] == [
            f"workload.{s}" for s in ("accepted", "planning", "reserving", "provisioning", "running", "completed")]
        assert mock.flush_webhooks() == {"due": 0, "pending": 0}

        again = mock.redeliver(delivery["id"])
        assert again["state"] == "pending"
        mock.flush_webhooks()
        assert [a["id"] for a in receiver.attempts].count(delivery["id"]) == 3
        assert len(receiver.deliveries) == 6, "a repeat of a delivered id is not a new delivery"
        with pytest.raises(AssertionError, match="no workload.failed delivery can come: .*ended completed"):
            receiver.wait_for("workload.failed", workload)

        # A secret the receiver does not know: every delivery is refused and the wait says why.
        receiver.secret = "whsec_" + base64.b64encode(hashlib.sha256(b"another").digest()).decode()
        badly_signed = launch(mock, "badly-signed")
        with pytest.raises(AssertionError, match="signature that does not verify"):
            receiver.wait_for("workload.accepted", badly_signed)
        assert receiver.rejected and receiver.rejected[0]["status"] == 401
    finally:
        receiver.close()

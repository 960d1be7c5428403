"""The trainer service (trainer.py) against the mock: what its author tests, with the plugin's
fixtures only. Each test is its own tenant; the clock is manual, so nothing waits."""
import os

import pytest

import trainer


@pytest.fixture
def client(nodus_mock):
    # No backoff: the mock is local, and Retry-After still counts.
    return trainer.Nodus(backoff=0)


def test_a_retried_launch_is_the_same_run_and_another_body_under_its_key_conflicts(nodus_mock, client):
    first = client.launch("evaluate", "nightly-1")
    again = client.launch("evaluate", "nightly-1")
    assert (again["workload_id"], again["replayed"]) == (first["workload_id"], True)

    with pytest.raises(trainer.IdempotencyConflict) as conflict:
        client.launch("train", "nightly-1")
    assert conflict.value.code == "idempotency_conflict"


def test_a_lost_answer_is_retried_with_the_same_key_and_replayed(nodus_mock, client):
    nodus_mock.drop_next_response("POST", "/v1/rl-runs")
    nodus_mock.fail_next("POST", "/v1/rl-runs", 503, retry_after=0, after=1)

    launched = client.launch("evaluate", "lost-1")

    assert launched["replayed"]
    # Three attempts, one key: the first committed but unanswered, the second refused, the third replayed.
    sent = nodus_mock.verify("POST", "/v1/rl-runs", count=3, headers={"Idempotency-Key": "lost-1"})
    assert [row["status"] for row in sent] == [None, 503, 202]
    assert trainer.status(client, launched["workload_id"]) == "accepted"


def test_the_reader_survives_a_recovery_that_replays_and_loses_events(nodus_mock, client):
    rule = nodus_mock.workload_rule({"match": {"mode": "train"}, "at": {"phase": "training", "step": 3},
                                     "action": [{"type": "recover", "replay_last": 5}, {"type": "drop_events", "count": 2}]})
    workload = trainer.start_training(client, "train-1")
    nodus_mock.advance_until({"rule": rule["id"]})
    nodus_mock.advance_until("idle")

    events, last = trainer.read_events(client, workload)

    ids = [row["event"]["event_id"] for row in events]
    assert len(ids) == len(set(ids)), "each replayed event is kept once"
    assert {row["generation"] for row in events} == {1, 2}
    assert (last["dropped_events"], last["truncated"]) == (2, True)
    assert trainer.status(client, workload) == "completed"


def test_the_mean_reward_waits_for_the_receipts_then_reads_them(nodus_mock, client):
    workload = trainer.start_evaluation(client, "graded-1")
    assert trainer.mean_reward(client, workload) is None, "no receipt yet"

    receipt = {"request_id": "r1", "task_id": "t1", "candidate_sha256": "a" * 64, "plan_sha256": "b" * 64,
               "manifest_sha256": "c" * 64, "cleanup_complete": True}
    nodus_mock.set_grading_plan(workload, revision=2, receipts=[
        {**receipt, "attempt_id": "a1", "state": "completed", "reward": 1},
        {**receipt, "attempt_id": "a2", "state": "completed", "reward": 0.5},
        {**receipt, "attempt_id": "a3", "state": "infrastructure_failure", "infrastructure_code": "grading_unavailable"},
    ])

    assert trainer.mean_reward(client, workload, revision=2) == 0.75


def test_a_custom_run_gets_its_archive_and_the_events_its_stdout_reports(nodus_mock, client):
    workload, asset = trainer.submit_custom_run(client, {"train.py": "print('training')\n", "data/tasks.jsonl": "{}\n"}, "custom-1")

    assert [(f["path"], f["bytes"]) for f in nodus_mock.asset_files(asset)] == [("data/tasks.jsonl", 3), ("train.py", 18)]
    nodus_mock.verify("POST", "/v1/workloads", count=1, body={"/source/asset_id": asset, "/rl/mode": "train"})

    reported = nodus_mock.report_lines(workload, [
        "step 1",
        'nodus.rl_event {"event_id":"e1","phase":"training","task_id":"t1","attempt":1,"kind":"task_started"}',
        'nodus.rl_event {"event_id":"e2","phase":"training","task_id":"t1","attempt":1,"kind":"task_completed","outcome":"passed","reward":1}',
    ])
    assert (reported["accepted"], reported["rejected"]) == (2, [])

    events, _ = trainer.read_events(client, workload)
    assert [row["event"]["kind"] for row in events] == ["task_started", "task_completed"]


def test_a_receiver_that_fails_once_gets_the_delivery_again(nodus_mock, nodus_webhook_receiver, client):
    nodus_webhook_receiver.respond = [500, 204]
    workload = trainer.start_evaluation(client, "hooked-1")

    accepted = nodus_webhook_receiver.wait_for("workload.accepted", workload)
    completed = nodus_webhook_receiver.wait_for("workload.completed", workload)

    assert (accepted["data"]["status"], completed["data"]["status"]) == ("accepted", "completed")
    [first, *_] = nodus_mock.webhook_deliveries(workload_id=workload)
    assert [attempt["status_code"] for attempt in first["attempts"]] == [500, 204]


def test_the_launch_sends_its_key_and_the_previewed_configuration(nodus_mock, client):
    trainer.start_training(client, "configured-1", steps=4)

    nodus_mock.verify("POST", "/v1/rl-runs", count=1, headers={"Idempotency-Key": "configured-1", "User-Agent": "trainer/1.0"},
                      body={"/recipe_id": "reasoning-gym-leg-counting", "/mode": "train", "/training_steps": 4})


@pytest.mark.skipif(not os.environ.get("NODUS_MOCK_EXAMPLE_FAILURE"), reason="set NODUS_MOCK_EXAMPLE_FAILURE=1 to see what a failure reports")
def test_what_a_failure_reports(nodus_mock, client):
    """Fails on purpose: the report names the nearest launch and what differs, the test's own
    clock move among the requests, and the command that opens the tenant's state again."""
    trainer.start_evaluation(client, "seen-1")
    nodus_mock.advance(60)
    nodus_mock.verify("POST", "/v1/rl-runs", headers={"Idempotency-Key": "expected-1"}, body={"/mode": "train"})

"""The same story without the SDK, over the standard library, on a shipped scenario file.

The marker applies the scenario's entry (a lost answer, then a 429) to this test's own tenant."""
import http.client
import json
import os
import urllib.error
import urllib.request

import pytest


def call(path, body=None, idempotency_key=None):
    headers = {"Authorization": "Bearer " + os.environ["NODUS_API_KEY"], "Content-Type": "application/json"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(os.environ["NODUS_BASE_URL"] + path, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, err.headers, json.loads(err.read())


@pytest.mark.nodus_mock(scenario="../../scenarios/flaky-launch.json")
def test_the_third_launch_replays_the_first(nodus_mock):
    status, _, preview = call("/v1/rl-runs/preview", {"recipe_id": "reasoning-gym-leg-counting", "recipe_version": "1.0.0", "mode": "evaluate"})
    assert status == 200 and preview["launchable"]
    launch = {**preview["configuration"], "review_token": preview["review_token"]}

    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        call("/v1/rl-runs", launch, idempotency_key="run-1")  # committed, answer lost
    status, headers, _ = call("/v1/rl-runs", launch, idempotency_key="run-1")
    assert (status, headers["Retry-After"]) == (429, "1")
    status, headers, run = call("/v1/rl-runs", launch, idempotency_key="run-1")
    assert (status, headers["Idempotent-Replayed"]) == (202, "true")

    assert [r["status"] for r in nodus_mock.requests(path="/v1/rl-runs")] == [202, 429, None]
    print("the run in the inspector:", nodus_mock.inspector(run["workload_id"]))

"""What a test against the mock looks like with the Nodus SDK installed (`pip install nodus-compute`).

No conftest: the pytest-nodus-mock plugin brings the `nodus_mock` fixture."""
import pytest

nodus = pytest.importorskip("nodus", reason="the Nodus SDK is not installed (pip install nodus-compute)")


def test_launch_is_safe_to_retry(nodus_mock):
    client = nodus.Client()  # NODUS_BASE_URL / NODUS_API_KEY come from the fixture
    preview = client.rl.preview({"recipe_id": "reasoning-gym-leg-counting", "recipe_version": "1.0.0", "mode": "evaluate"})
    assert preview.launchable

    # The first answer is lost after the server committed the run: the SDK retries with the same key.
    nodus_mock.fault({"method": "POST", "path": "/v1/rl-runs", "action": {"type": "drop_response"}})
    workload = client.rl.launch(configuration=preview.configuration, review_token=preview.review_token, idempotency_key="run-1")
    assert workload.replayed

    nodus_mock.advance(3600)
    assert workload.wait(poll_seconds=0).status == "completed"
    assert len(nodus_mock.requests(path="/v1/rl-runs")) == 2

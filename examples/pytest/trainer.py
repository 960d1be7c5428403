"""The application under test: a trainer service's use of the Nodus API.

`Nodus` stands in for the SDK's client (`nodus.Client()`), over the standard library so that the
example runs where the SDK is not installed. It behaves as the SDK does on the wire: the key and URL
from NODUS_API_KEY and NODUS_BASE_URL, the same Idempotency-Key on every retry, retries on a lost
connection and on 408, 429 and 5xx, Retry-After honoured. The functions below it are the
application's own code, which the tests exercise."""
import io
import json
import os
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request

RECIPE = {"recipe_id": "reasoning-gym-leg-counting", "recipe_version": "1.0.0"}
ENDED = ("completed", "failed", "cancelled")


class NodusError(Exception):
    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code = status, code


class IdempotencyConflict(NodusError):
    """A 409: the key was used for another request (or the review changed)."""


class NotFound(NodusError):
    pass


class Nodus:
    def __init__(self, retries=2, backoff=0.5):
        self.base_url = os.environ["NODUS_BASE_URL"].rstrip("/")
        self.api_key = os.environ["NODUS_API_KEY"]
        self.retries, self.backoff = retries, backoff

    def request(self, method, path, body=None, *, query=None, idempotency_key=None, data=None, headers=None):
        """Answers the parsed body and the answer's headers; raises NodusError on a refusal."""
        url = self.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        sent = {"Authorization": f"Bearer {self.api_key}", "User-Agent": "trainer/1.0", **(headers or {})}
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        if idempotency_key is not None:
            sent["Idempotency-Key"] = idempotency_key
        for attempt in range(self.retries + 1):
            wait = self.backoff * 2 ** attempt
            try:
                with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=sent)) as answer:
                    raw = answer.read()
                    return (json.loads(raw) if raw else None), answer.headers
            except urllib.error.HTTPError as err:
                envelope = json.loads(err.read() or b"{}")
                if err.code not in (408, 429, 500, 502, 503, 504) or attempt == self.retries:
                    kind = {409: IdempotencyConflict, 404: NotFound}.get(err.code, NodusError)
                    raise kind(err.code, envelope.get("error"), envelope.get("message")) from None
                if err.headers.get("Retry-After") is not None:
                    wait = float(err.headers["Retry-After"])
            except OSError:  # the connection was refused, reset or closed unanswered
                if attempt == self.retries:
                    raise
            time.sleep(wait)

    def launch(self, mode, idempotency_key, **config):
        """Previews the recipe run, then launches what the preview configured; answers the launch."""
        preview, _ = self.request("POST", "/v1/rl-runs/preview", {**RECIPE, "mode": mode, **config})
        body = {**preview["configuration"], "review_token": preview["review_token"]}
        launched, headers = self.request("POST", "/v1/rl-runs", body, idempotency_key=idempotency_key)
        return {**launched, "replayed": headers.get("Idempotent-Replayed") == "true"}


def start_evaluation(client, key):
    return client.launch("evaluate", key)["workload_id"]


def start_training(client, key, steps=10):
    return client.launch("train", key, training_steps=steps)["workload_id"]


def read_events(client, workload_id):
    """Every task event of a run, each once (a recovery replays some into the next generation),
    and the last page read, which says how many were lost."""
    events, seen, cursor = [], set(), None
    while True:
        page, _ = client.request("GET", f"/v1/workloads/{workload_id}/rl-events",
                                 query={"limit": 50, **({"after": cursor} if cursor else {})})
        for row in page["events"]:
            if row["event"]["event_id"] not in seen:
                seen.add(row["event"]["event_id"])
                events.append(row)
        cursor = page["next_cursor"]
        if not page["has_more"]:
            return events, page


def mean_reward(client, workload_id, revision=1):
    """The mean reward of a run's graded attempts, or None while any receipt is pending."""
    results, _ = client.request("GET", f"/v1/workloads/{workload_id}/rl-grading-results", query={"revision": revision})
    receipts = results["receipts"]
    if any(receipt["state"] == "pending" for receipt in receipts):
        return None
    rewards = [receipt["reward"] for receipt in receipts if receipt["state"] == "completed"]
    return sum(rewards) / len(rewards) if rewards else None


def submit_custom_run(client, files, key):
    """Packs `files` ({name: text}) as a tar.gz, uploads it, and submits a custom train run of it;
    answers the workload id and the asset id."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in sorted(files.items()):
            member = tarfile.TarInfo(name)
            member.size = len(text.encode())
            archive.addfile(member, io.BytesIO(text.encode()))
    asset, _ = client.request("POST", "/v1/assets/upload", query={"name": "code.tar.gz"}, data=buffer.getvalue(),
                              headers={"Content-Type": "application/octet-stream"})
    run, _ = client.request("POST", "/v1/workloads", {
        "requirements": {"compute_class": "accelerator"}, "outcome": {"max_cost_usd": 3},
        "continuity": {"mode": "checkpointed", "resume_on_interruption": True},
        "source": {"image": "python:3.11-slim", "command": ["python", "train.py"], "asset_id": asset["id"]},
        "rl": {"schema_version": 1, "environment_id": "custom", "mode": "train", "model": "my-model", "planned_tasks": 2},
    }, idempotency_key=key)
    return run["id"], asset["id"]


def status(client, workload_id):
    return client.request("GET", f"/v1/workloads/{workload_id}")[0]["status"]

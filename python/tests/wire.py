"""/v1 as an SDK reaches it, over the standard library.

The inner tests get a copy of this file and call it with the environment the fixture set; the
outer tests pass `url=` and `key=` to set up a baseline on a server of their own."""
import json
import os
import urllib.error
import urllib.request

PREVIEW = {"recipe_id": "reasoning-gym-leg-counting", "recipe_version": "1.0.0", "mode": "evaluate"}


def call(method, path, body=None, idempotency_key=None, url=None, key=None):
    headers = {"Authorization": "Bearer " + (key or os.environ["NODUS_API_KEY"]), "Content-Type": "application/json"}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request((url or os.environ["NODUS_BASE_URL"]) + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, None


def get(path, **where):
    return call("GET", path, **where)


def launch(idempotency_key, **where):
    """An evaluate run of a catalog recipe, previewed then launched; answers its workload id."""
    status, preview = call("POST", "/v1/rl-runs/preview", PREVIEW, **where)
    assert status == 200, preview
    configuration = {**preview["configuration"], "review_token": preview["review_token"]}
    status, run = call("POST", "/v1/rl-runs", configuration, idempotency_key=idempotency_key, **where)
    assert status == 202, run
    return run["workload_id"]

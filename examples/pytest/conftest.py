"""pytest fixtures that run nodus-mock for a test session and point the Nodus SDK at it.

Copy this file next to your tests. It starts `npx nodus-mock` (install it in your project with
npm, or set NODUS_MOCK_CMD to another command line), waits for the URL it prints, and sets
NODUS_BASE_URL and NODUS_API_KEY, so `nodus.Client()` talks to the mock. Each test gets its own
`nk_test_` key, that is its own tenant: no test sees another's workloads.
"""
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile
import urllib.parse
import urllib.request

import pytest

NODUS_MOCK_CMD = os.environ.get("NODUS_MOCK_CMD", "npx nodus-mock")


@pytest.fixture(scope="session")
def nodus_mock_url():
    """One server per session, on a free port, with a manual clock and a throwaway database."""
    folder = tempfile.mkdtemp(prefix="nodus-mock-")
    command = shlex.split(NODUS_MOCK_CMD) + [
        "--port", "0", "--db", os.path.join(folder, "mock.db"), "--clock", "manual", "--log-level", "warn",
    ]
    # Its own process group: npx (or npm) is a wrapper, and stopping the wrapper alone would leave
    # the server running after the session; the group is the wrapper and the server together.
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True)

    def stop():
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        except ProcessLookupError:
            pass
        shutil.rmtree(folder, ignore_errors=True)

    url = None
    for line in server.stdout:
        match = re.search(r"listening on (http://\S+)", line)
        if match:
            url = match.group(1)
            break
    if url is None:
        stop()
        raise RuntimeError("nodus-mock did not start; run `npx nodus-mock --help` to check the install")
    try:
        yield url
    finally:
        stop()


class NodusMock:
    """The control API of one tenant: move its clock, inject faults, read what the client sent."""

    def __init__(self, url, api_key):
        self.url = url
        self.api_key = api_key

    def control(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": "Bearer " + self.api_key, "Content-Type": "application/json",
        })
        with urllib.request.urlopen(request) as response:
            text = response.read().decode()
            return json.loads(text) if text else None

    def advance(self, seconds):
        return self.control("POST", "/_mock/clock/advance", {"seconds": seconds})["now"]

    def fault(self, rule):
        return self.control("POST", "/_mock/faults", rule)

    def requests(self, path=None):
        query = "" if path is None else "?path=" + urllib.parse.quote(path)
        return self.control("GET", "/_mock/requests" + query)["requests"]

    def inspector(self, workload_id=None):
        """A link to the inspector for this tenant, or for one of its runs: open it in a browser.

        The key is in the fragment (after #), which the browser keeps to itself."""
        fragment = {"key": self.api_key}
        if workload_id is not None:
            fragment["workload"] = workload_id
        return self.url + "/_mock/ui/#" + urllib.parse.urlencode(fragment)


@pytest.fixture
def nodus_mock(nodus_mock_url, monkeypatch):
    """A fresh tenant per test, with the SDK's environment pointing at it."""
    api_key = "nk_test_" + secrets.token_hex(8)
    monkeypatch.setenv("NODUS_BASE_URL", nodus_mock_url)
    monkeypatch.setenv("NODUS_API_KEY", api_key)
    mock = NodusMock(nodus_mock_url, api_key)
    # pytest shows a test's captured output only when it fails: then this is the way in.
    print("nodus-mock inspector:", mock.inspector())
    return mock

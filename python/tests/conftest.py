"""The plugin's own tests drive pytest in subprocesses (pytester) against a real nodus-mock.

The server command is NODUS_MOCK_CMD, else the bundle of the checkout these tests sit in
(`npm run build` makes it)."""
import os
import pathlib
import shlex
import time
import uuid

import pytest
from pytest_nodus_mock import NodusMockError, start_server

pytest_plugins = ["pytester"]

# The checkout these tests belong to; NODUS_MOCK_CHECKOUT names it when they run from a copy.
CHECKOUT = pathlib.Path(os.environ.get("NODUS_MOCK_CHECKOUT") or pathlib.Path(__file__).resolve().parents[2])
CHECKOUT_BUNDLE = CHECKOUT / "dist" / "bundle" / "main.js"
TAG = "NODUS_MOCK_PLUGIN_TEST_TAG"


@pytest.fixture(scope="session")
def server_command():
    command = os.environ.get("NODUS_MOCK_CMD")
    if command:
        return command
    if not CHECKOUT_BUNDLE.exists():
        pytest.fail(f"set NODUS_MOCK_CMD, or run `npm run build` so that {CHECKOUT_BUNDLE} exists", pytrace=False)
    return f"node {shlex.quote(str(CHECKOUT_BUNDLE))}"


@pytest.fixture(scope="session")
def shared_server(server_command):
    """One server for the tests that need no session of their own, started as a script would."""
    with start_server(server_command) as server:
        yield server


@pytest.fixture(scope="session")
def journal_part(shared_server):
    """Whether the server journals control calls and matches requests (issue 35's server part)."""
    try:
        shared_server.tenant().match(None, "/v1/me")
    except NodusMockError as err:
        if err.status == 404:
            return False
        raise
    return True


@pytest.fixture
def tagged(server_command, monkeypatch):
    """Every process the inner pytest starts carries a tag in its environment, to find leftovers by."""
    tag = uuid.uuid4().hex
    monkeypatch.setenv(TAG, tag)
    monkeypatch.setenv("NODUS_MOCK_CMD", server_command)
    return tag


def tagged_processes(tag):
    """Live processes (zombies aside) whose environment carries the tag."""
    needle = f"{TAG}={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
            with open(f"/proc/{entry}/environ", "rb") as environ:
                if needle in environ.read().split(b"\0"):
                    with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                        found.append((int(entry), cmdline.read().replace(b"\0", b" ").decode(errors="replace")))
        except OSError:
            continue
    return found


def wait_for_no_process(tag, seconds=20):
    """The tagged processes still alive after `seconds` (an empty list once they have all gone)."""
    deadline = time.monotonic() + seconds
    while True:
        left = tagged_processes(tag)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture
def run(pytester, tagged):
    """Runs pytest on the files made with pytester in a subprocess; afterwards, no process it started is left."""
    def run_pytest(*args, timeout=180):
        result = pytester.runpytest_subprocess(*args, timeout=timeout)
        assert wait_for_no_process(tagged) == [], "a process outlived the session"
        return result
    return run_pytest


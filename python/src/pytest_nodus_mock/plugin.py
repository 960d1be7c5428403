"""The pytest11 entry point: options, the marker, the fixtures, and the report of a failed test."""
import os
import secrets

import pytest

from .marker import MARKER, MARKER_HELP, MarkerError, apply_marker
from .report import failure_section
from .server import DEFAULT_COMMAND, NodusMockStartError, start_server

_MOCK = pytest.StashKey()
_REPORTED = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("nodus-mock")
    group.addoption("--nodus-mock-cmd", default=None, metavar="COMMAND",
                    help=f"command line that starts nodus-mock (default: $NODUS_MOCK_CMD, else `{DEFAULT_COMMAND}`)")
    group.addoption("--nodus-mock-artifacts", default=None, metavar="DIR",
                    help="folder for the snapshots of failed tests (default: nodus-mock under pytest's cache folder)")


def pytest_configure(config):
    config.addinivalue_line("markers", MARKER_HELP)


@pytest.fixture(scope="session")
def nodus_mock_server(request):
    """The session's nodus-mock (under pytest-xdist, the worker's): a free port, a manual clock, a throwaway database."""
    command = request.config.getoption("nodus_mock_cmd") or os.environ.get("NODUS_MOCK_CMD") or DEFAULT_COMMAND
    try:
        server = start_server(command)
    except NodusMockStartError as err:
        raise pytest.fail.Exception(f"nodus-mock: {err}", pytrace=False) from None
    yield server
    server.stop()


@pytest.fixture
def nodus_mock(nodus_mock_server, request, monkeypatch):
    """A fresh tenant for this test, with NODUS_BASE_URL and NODUS_API_KEY pointing the SDK at it."""
    mock = nodus_mock_server.tenant("nk_test_" + secrets.token_hex(8))
    monkeypatch.setenv("NODUS_BASE_URL", mock.url)
    monkeypatch.setenv("NODUS_API_KEY", mock.api_key)
    request.node.stash[_MOCK] = mock
    try:
        apply_marker(mock, request.node.get_closest_marker(MARKER), os.path.dirname(str(request.node.path)))
    except MarkerError as err:
        raise pytest.fail.Exception(str(err), pytrace=False) from None
    return mock


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    mock = item.stash.get(_MOCK, None)
    if mock is None or not report.failed or item.stash.get(_REPORTED, False):
        return
    item.stash[_REPORTED] = True
    report.sections.append(("nodus-mock", failure_section(mock, item.nodeid, artifacts_folder(item.config))))


def artifacts_folder(config):
    """--nodus-mock-artifacts, else nodus-mock under pytest's cache folder; made only when a test fails."""
    chosen = config.getoption("nodus_mock_artifacts")
    if chosen:
        return os.path.abspath(os.path.join(str(config.invocation_params.dir), chosen))
    cache = getattr(config, "cache", None)
    if cache is not None:
        return str(cache.mkdir("nodus-mock"))
    return os.path.join(str(config.rootpath), ".pytest_cache", "nodus-mock")

"""The pytest11 entry point: options, the marker, the fixtures, and the report of a failed test."""
from __future__ import annotations

import os
import warnings
from typing import Any, Generator, Iterator, Optional

import pytest

from .client import NodusMock, NodusMockError
from .marker import MARKER, MARKER_HELP, MarkerError, apply_marker
from .report import failure_section, rule_outcomes
from .server import DEFAULT_COMMAND, NodusMockServer, NodusMockStartError, start_server
from .webhooks import WebhookReceiver

_MOCK = pytest.StashKey[NodusMock]()
_SERVER = pytest.StashKey[NodusMockServer]()
_REPORTED = pytest.StashKey[bool]()
_CALL_FAILED = pytest.StashKey[bool]()


class NodusMockWarning(UserWarning):
    """A rule the test declared never fired: the test may not exercise what it set up."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nodus-mock")
    group.addoption("--nodus-mock-cmd", default=None, metavar="COMMAND",
                    help=f"command line that starts nodus-mock (default: $NODUS_MOCK_CMD, else `{DEFAULT_COMMAND}`)")
    group.addoption("--nodus-mock-image", default=None, metavar="IMAGE",
                    help="run nodus-mock as a container of this image with the docker CLI (default: $NODUS_MOCK_IMAGE)")
    group.addoption("--nodus-mock-artifacts", default=None, metavar="DIR",
                    help="folder for the snapshots of failed tests (default: nodus-mock under pytest's cache folder)")
    parser.addini("nodus_mock_strict", type="bool", default=False,
                  help="a fault or workload rule a test declared that never fired fails the test (marker: strict=)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


@pytest.fixture(scope="session")
def nodus_mock_server(request: pytest.FixtureRequest) -> Iterator[NodusMockServer]:
    """The session's nodus-mock (under pytest-xdist, the worker's): a free port, a manual clock, a throwaway database."""
    config = request.config
    command = config.getoption("nodus_mock_cmd")
    image = None if command else config.getoption("nodus_mock_image")
    if not command and not image:
        command = os.environ.get("NODUS_MOCK_CMD") or None
        image = None if command else os.environ.get("NODUS_MOCK_IMAGE") or None
    try:
        server = start_server(command or (None if image else DEFAULT_COMMAND), image=image)
    except NodusMockStartError as err:
        raise pytest.fail.Exception(f"nodus-mock: {err}", pytrace=False) from None
    yield server
    server.stop()


@pytest.fixture
def nodus_mock(nodus_mock_server: NodusMockServer, request: pytest.FixtureRequest,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[NodusMock]:
    """A fresh tenant for this test, with NODUS_BASE_URL and NODUS_API_KEY pointing the SDK at it."""
    mock = nodus_mock_server.tenant()
    monkeypatch.setenv("NODUS_BASE_URL", mock.url)
    monkeypatch.setenv("NODUS_API_KEY", mock.api_key)
    node = request.node
    node.stash[_MOCK] = mock
    node.stash[_SERVER] = nodus_mock_server
    marker = node.get_closest_marker(MARKER)
    try:
        apply_marker(mock, marker, os.path.dirname(str(node.path)))
        strict = _strict(marker, request.config)
    except MarkerError as err:
        raise pytest.fail.Exception(str(err), pytrace=False) from None
    yield mock
    if node.stash.get(_CALL_FAILED, False):
        return  # the failure's section names the rules that never fired
    try:
        _, never = rule_outcomes(mock)
    except (NodusMockError, OSError):
        return
    if never:
        message = "nodus-mock: rules the test declared never fired:\n" + "\n".join(f"  {what}" for what in never)
        if strict:
            raise pytest.fail.Exception(message, pytrace=False)
        warnings.warn(NodusMockWarning(message), stacklevel=1)


def _strict(marker: Optional[pytest.Mark], config: pytest.Config) -> bool:
    chosen = None if marker is None else marker.kwargs.get("strict")
    if chosen is None:
        return bool(config.getini("nodus_mock_strict"))
    if not isinstance(chosen, bool):
        raise MarkerError(f"nodus_mock: strict must be True or False, not {chosen!r}")
    return chosen


@pytest.fixture
def nodus_webhook_receiver(nodus_mock: NodusMock, nodus_mock_server: NodusMockServer) -> Iterator[WebhookReceiver]:
    """A local receiver registered as the test's webhook: it verifies every delivery's signature
    with the endpoint's secret and answers `.respond` in order; `.wait_for(type)` moves the clock."""
    # A server in a container reaches this machine through the docker host's gateway, not loopback.
    host = "0.0.0.0" if nodus_mock_server.image else "127.0.0.1"
    receiver = WebhookReceiver(nodus_mock, host=host, advertised_host=nodus_mock_server.webhook_host)
    try:
        receiver.register()
        yield receiver
    finally:
        receiver.close()
    if receiver.rejected:
        first = receiver.rejected[0]
        raise pytest.fail.Exception(f"nodus-mock: {len(receiver.rejected)} webhook deliveries did not verify: {first['why']}",
                                    pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if call.when == "call":
        item.stash[_CALL_FAILED] = report.failed
    mock = item.stash.get(_MOCK, None)
    if mock is None or not report.failed or call.when == "teardown" or item.stash.get(_REPORTED, False):
        return
    item.stash[_REPORTED] = True
    # A setup error leaves a state the test did not make: no snapshot of it.
    folder = artifacts_folder(item.config) if call.when == "call" else None
    report.sections.append(("nodus-mock", failure_section(mock, item.nodeid, folder, item.stash[_SERVER].restore_command)))


def artifacts_folder(config: pytest.Config) -> str:
    """--nodus-mock-artifacts, else nodus-mock under pytest's cache folder; made only when a test fails."""
    chosen = config.getoption("nodus_mock_artifacts")
    if chosen:
        return os.path.abspath(os.path.join(str(config.invocation_params.dir), chosen))
    cache = getattr(config, "cache", None)
    if cache is not None:
        return str(cache.mkdir("nodus-mock"))
    return os.path.join(str(config.rootpath), ".pytest_cache", "nodus-mock")

"""The session's server: started from a command line, or as a container of the project's image, on a
free port, and stopped with the session (or the `with` block)."""
from __future__ import annotations

import atexit
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, List, Optional

from .client import NodusMock

DEFAULT_COMMAND = "npx --no nodus-mock"
# What a person types for the default command.
DEFAULT_COMMAND_SHOWN = "npx nodus-mock"
CONTAINER_PORT = 8080
START_TIMEOUT_SECONDS = 120
INSTALL_HINT = (
    "Is nodus-mock installed where pytest runs? Install it into this project with npm "
    "(`npm pack` in a nodus-mock checkout, then `npm install --save-dev /path/to/nodus-mock-<version>.tgz`), "
    "or name the command with --nodus-mock-cmd or NODUS_MOCK_CMD, "
    "e.g. NODUS_MOCK_CMD=\"node /path/to/nodus-mock/dist/bundle/main.js\""
)

IMAGE_HINT = (
    "Is the docker CLI installed, its engine running and the image there? Build it from a nodus-mock "
    "checkout with `docker build -t nodus-mock:local .` (docs/pytest.md)"
)

_running: "set[NodusMockServer]" = set()
_previous_handlers: "dict[int, Any]" = {}


class NodusMockStartError(Exception):
    """The server command did not come up; the message says why and how to fix it."""


class NodusMockServer:
    """One nodus-mock process (or container) with a throwaway database, and a way to reach any of its
    tenants. A context manager: `with start_server() as server:` stops it at the block's end."""

    def __init__(self, command: str, folder: str, keeper: "subprocess.Popen[bytes]", url: Optional[str],
                 image: Optional[str] = None, container: Optional[str] = None) -> None:
        self.command = command
        self.image = image
        self.url: str = url or ""
        # Where this server reaches a receiver on this machine: a container goes through the host's gateway.
        self.webhook_host = "host.docker.internal" if image else "127.0.0.1"
        # The container's name, for `docker logs` (None for a command).
        self.container = container
        self._folder = folder
        self._keeper = keeper

    def __enter__(self) -> "NodusMockServer":
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop()

    def tenant(self, api_key: Optional[str] = None) -> NodusMock:
        """The control client of the tenant that `api_key` names; without one, a fresh tenant of its own."""
        return NodusMock(self.url, api_key or "nk_test_" + secrets.token_hex(8))

    def restore_command(self, path: str, api_key: str) -> str:
        """The shell command that serves the snapshot at `path` again under `api_key`, started as this server was."""
        if self.image:
            folder, name = os.path.split(os.path.abspath(path))
            return (f"docker run --rm -p 127.0.0.1:{CONTAINER_PORT}:{CONTAINER_PORT} -v {shlex.quote(folder + ':/restore:ro')}"
                    f" -e NODUS_MOCK_RESTORE={shlex.quote('/restore/' + name)} -e NODUS_MOCK_RESTORE_KEY={shlex.quote(api_key)}"
                    f" {shlex.quote(self.image)}")
        command = DEFAULT_COMMAND_SHOWN if self.command == DEFAULT_COMMAND else self.command
        return f"{command} --restore {shlex.quote(path)} --restore-key {shlex.quote(api_key)}"

    @property
    def log(self) -> str:
        """What the server wrote so far (its start lines, then warnings and errors)."""
        with open(os.path.join(self._folder, "server.log"), errors="replace") as log:
            return log.read()

    def stop(self) -> None:
        """Stops the server and everything its command started; safe to call more than once."""
        if self not in _running:
            return
        _running.discard(self)
        keeper = self._keeper
        if keeper.stdin is not None:
            keeper.stdin.close()
        try:
            os.killpg(keeper.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            keeper.wait(timeout=30)
        except subprocess.TimeoutExpired:
            keeper.kill()
            keeper.wait()
        shutil.rmtree(self._folder, ignore_errors=True)
        if not _running:
            _restore_handlers()


def start_server(command: Optional[str] = None, *, image: Optional[str] = None) -> NodusMockServer:
    """Starts nodus-mock with a free port, a manual clock and a database of its own: `command` (a
    shell-like string; default $NODUS_MOCK_CMD, else npx), or, with `image` (default
    $NODUS_MOCK_IMAGE when no command is given), a container of that image through the docker CLI."""
    if command is None and image is None:
        command = os.environ.get("NODUS_MOCK_CMD") or None
        image = None if command else os.environ.get("NODUS_MOCK_IMAGE") or None
    folder = tempfile.mkdtemp(prefix="nodus-mock-")
    container = None
    if image:
        container = "nodus-mock-" + secrets.token_hex(6)
        shown = f"docker run {image}"
        keeper_args = ["--stop-with", json.dumps(["docker", "stop", "--time", "10", container]), "--folder", folder,
                       *_docker_argv(image, container)]
    else:
        shown = command or DEFAULT_COMMAND
        keeper_args = ["--folder", folder, *shlex.split(shown),
                       "--port", "0", "--db", os.path.join(folder, "mock.db"), "--clock", "manual", "--log-level", "warn"]
    log_path = os.path.join(folder, "server.log")
    with open(log_path, "wb") as log:
        try:
            keeper = subprocess.Popen(
                [sys.executable, "-m", "pytest_nodus_mock._keeper", *keeper_args],
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        except OSError as err:
            shutil.rmtree(folder, ignore_errors=True)
            raise NodusMockStartError(f"cannot run the nodus-mock keeper: {err}") from None
    server = NodusMockServer(shown, folder, keeper, None, image=image, container=container)
    _running.add(server)
    _install_handlers()
    server.url = _wait_for_url(server, log_path)
    return server


def _docker_argv(image: str, container: str) -> List[str]:
    """The image's own command, configured through its environment: the port published on loopback
    only (open mode takes any nk_test_ key), the database in the container, gone with it."""
    return ["docker", "run", "--rm", "--name", container, "-p", f"127.0.0.1::{CONTAINER_PORT}",
            "--add-host", "host.docker.internal:host-gateway",
            "-e", "NODUS_MOCK_CLOCK=manual", "-e", "LOG_LEVEL=warn", image]


def _published_url(container: str) -> Optional[str]:
    """The host address docker published the container's port on, once it has."""
    answer = subprocess.run(["docker", "port", container, f"{CONTAINER_PORT}/tcp"], capture_output=True, text=True)
    match = re.search(r"^(\d+\.\d+\.\d+\.\d+):(\d+)$", answer.stdout, re.M)
    return f"http://{match.group(1)}:{match.group(2)}" if answer.returncode == 0 and match else None


def _wait_for_url(server: NodusMockServer, log_path: str) -> str:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        exited = server._keeper.poll() is not None
        with open(log_path, errors="replace") as log:
            text = log.read()
        match = re.search(r"listening on (http://\S+)\n", text)
        if match and "inspector:" in text:
            if server.container is None:
                return match.group(1)
            published = _published_url(server.container)
            if published:
                return published
        if exited:
            server.stop()
            raise NodusMockStartError(_exit_reason(server.command, text))
        time.sleep(0.05)
    server.stop()
    raise NodusMockStartError(f"`{server.command}` printed no `listening on` line within {START_TIMEOUT_SECONDS} s")


def _exit_reason(command: str, output: str) -> str:
    tail = "\n".join(output.strip().splitlines()[-15:])
    if command.startswith("docker run "):
        return f"`{command}` exited before it listened:\n{tail or '(no output)'}\n{IMAGE_HINT}"
    missing = command == DEFAULT_COMMAND or re.search(r"not found|no such file|could not determine executable", output, re.I)
    hint = f"\n{INSTALL_HINT}" if missing or not tail else ""
    return f"`{command}` exited before it listened:\n{tail or '(no output)'}{hint}"


def stop_all() -> None:
    for server in list(_running):
        server.stop()


def _on_signal(number: int, frame: Any) -> None:
    """SIGTERM or SIGHUP to pytest: stop the servers first, then do what the signal did before."""
    stop_all()
    previous = _previous_handlers.get(number, signal.SIG_DFL)
    if callable(previous):
        previous(number, frame)
        return
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


def _install_handlers() -> None:
    if _previous_handlers:
        return
    for number in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(number) == signal.SIG_IGN:
            continue
        try:
            _previous_handlers[number] = signal.signal(number, _on_signal)
        except ValueError:
            # Only the main thread may set handlers; the keeper still sees pytest leave.
            return


def _restore_handlers() -> None:
    for number, previous in _previous_handlers.items():
        signal.signal(number, signal.SIG_DFL if previous is None else previous)
    _previous_handlers.clear()


atexit.register(stop_all)

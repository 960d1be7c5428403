"""The session's server: started from a command line on a free port, stopped with the session."""
import atexit
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .client import NodusMock

DEFAULT_COMMAND = "npx --no nodus-mock"
START_TIMEOUT_SECONDS = 120
INSTALL_HINT = (
    "Is nodus-mock installed where pytest runs? Install it into this project with npm "
    "(`npm pack` in a nodus-mock checkout, then `npm install --save-dev /path/to/nodus-mock-<version>.tgz`), "
    "or name the command with --nodus-mock-cmd or NODUS_MOCK_CMD, "
    "e.g. NODUS_MOCK_CMD=\"node /path/to/nodus-mock/dist/bundle/main.js\""
)

_running = set()
_previous_handlers = {}


class NodusMockStartError(Exception):
    """The server command did not come up; the message says why and how to fix it."""


class NodusMockServer:
    """One nodus-mock process with a throwaway database, and a way to reach any of its tenants."""

    def __init__(self, command, folder, keeper, url):
        self.command = command
        self.url = url
        self._folder = folder
        self._keeper = keeper

    def tenant(self, api_key):
        """The control client of the tenant that `api_key` names."""
        return NodusMock(self.url, api_key)

    @property
    def log(self):
        """What the server wrote so far (its start lines, then warnings and errors)."""
        with open(os.path.join(self._folder, "server.log"), errors="replace") as log:
            return log.read()

    def stop(self):
        """Stops the server and everything its command started; safe to call more than once."""
        if self not in _running:
            return
        _running.discard(self)
        keeper = self._keeper
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


def start_server(command):
    """Starts `command` (a shell-like string) with a free port, a manual clock and a database of its own."""
    folder = tempfile.mkdtemp(prefix="nodus-mock-")
    argv = shlex.split(command) + [
        "--port", "0", "--db", os.path.join(folder, "mock.db"), "--clock", "manual", "--log-level", "warn",
    ]
    log_path = os.path.join(folder, "server.log")
    with open(log_path, "wb") as log:
        try:
            keeper = subprocess.Popen(
                [sys.executable, "-m", "pytest_nodus_mock._keeper", *argv],
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        except OSError as err:
            shutil.rmtree(folder, ignore_errors=True)
            raise NodusMockStartError(f"cannot run the nodus-mock keeper: {err}") from None
    server = NodusMockServer(command, folder, keeper, None)
    _running.add(server)
    _install_handlers()
    server.url = _wait_for_url(server, log_path)
    return server


def _wait_for_url(server, log_path):
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        exited = server._keeper.poll() is not None
        with open(log_path, errors="replace") as log:
            text = log.read()
        match = re.search(r"listening on (http://\S+)\n", text)
        if match and "inspector:" in text:
            return match.group(1)
        if exited:
            server.stop()
            raise NodusMockStartError(_exit_reason(server.command, text))
        time.sleep(0.05)
    server.stop()
    raise NodusMockStartError(f"`{server.command}` printed no `listening on` line within {START_TIMEOUT_SECONDS} s")


def _exit_reason(command, output):
    tail = "\n".join(output.strip().splitlines()[-15:])
    missing = command == DEFAULT_COMMAND or re.search(r"not found|no such file|could not determine executable", output, re.I)
    hint = f"\n{INSTALL_HINT}" if missing or not tail else ""
    return f"`{command}` exited before it listened:\n{tail or '(no output)'}{hint}"


def stop_all():
    for server in list(_running):
        server.stop()


def _on_signal(number, frame):
    """SIGTERM or SIGHUP to pytest: stop the servers first, then do what the signal did before."""
    stop_all()
    previous = _previous_handlers.get(number, signal.SIG_DFL)
    if callable(previous):
        previous(number, frame)
        return
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


def _install_handlers():
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


def _restore_handlers():
    for number, previous in _previous_handlers.items():
        signal.signal(number, signal.SIG_DFL if previous is None else previous)
    _previous_handlers.clear()


atexit.register(stop_all)

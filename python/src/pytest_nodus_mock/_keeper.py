"""Runs the server command in a process group of its own and ends that group when pytest goes.

pytest holds the write end of this process's stdin. When pytest exits, cleanly or by SIGKILL, the
pipe reaches end of file and the keeper stops the group: the command (often a wrapper such as npx,
which would not pass a signal on) and the server under it. SIGTERM, SIGINT and SIGHUP do the same.
The keeper also leaves when the command does, so pytest sees a server that could not start exit.

`--stop-with JSON-ARGV` names a command run first when stopping: for `docker run`, `docker stop`,
since a container outlives a killed docker client. `--folder PATH` names the server's folder (its
database and log), removed once the server is stopped because pytest went: a pytest killed by
SIGKILL cannot remove it itself. A command that exits on its own leaves it, for pytest to read
the log and say why.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Iterator, Tuple

GRACE_SECONDS = 10
# How often the main thread looks for a signal, pytest's going and the command's end.
POLL_SECONDS = 0.2


def processes() -> Iterator[Tuple[int, int, int]]:
    """Each live process (zombies aside): its id, its parent's and its group's."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            yield int(entry), int(fields[1]), int(fields[2])


def _alive(group: int) -> bool:
    """Whether a process that is not a zombie is still in the group."""
    return any(pgrp == group for _, _, pgrp in processes())


def stop_group(group: int) -> None:
    """SIGTERM to the whole group, SIGKILL to what is left of it after the grace period."""
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline and _alive(group):
        time.sleep(0.05)
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _until_end_of_file(fd: int) -> None:
    # os.read, not sys.stdin: a buffered reader's lock held by this thread at shutdown aborts Python.
    while os.read(fd, 4096):
        pass


def main() -> None:
    done = threading.Event()
    # A handler only notes the signal. Python runs it in the main thread between two bytecodes,
    # which may be where that thread holds the lock of the Event it polls: a done.set() there
    # waited on that lock forever, the group was never stopped, and pytest killed the keeper.
    signalled: list[int] = []
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda number, _frame: signalled.append(number))
    argv, stop_with, folder = sys.argv[1:], None, None
    if argv[:1] == ["--stop-with"]:
        stop_with, argv = json.loads(argv[1]), argv[2:]
    if argv[:1] == ["--folder"]:
        folder, argv = argv[1], argv[2:]
    server = subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True)
    pytest_gone = threading.Event()
    threading.Thread(target=lambda: (_until_end_of_file(0), pytest_gone.set(), done.set()), daemon=True).start()
    threading.Thread(target=lambda: (server.wait(), done.set()), daemon=True).start()
    while not signalled and not done.wait(POLL_SECONDS):
        pass
    if stop_with is not None and server.poll() is None:
        try:
            subprocess.run(stop_with, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=GRACE_SECONDS + 20)
        except (OSError, subprocess.TimeoutExpired):
            pass
    stop_group(server.pid)
    code = server.wait()
    if folder is not None and pytest_gone.is_set():
        shutil.rmtree(folder, ignore_errors=True)
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()

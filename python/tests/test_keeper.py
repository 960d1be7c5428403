"""The keeper ends its command's group on a signal, wherever in its loop the signal lands."""
import os
import signal
import subprocess
import sys
import time

from pytest_nodus_mock._keeper import processes

# The keeper polling without pause: its main thread is then nearly always inside Event.wait,
# holding the lock that a handler calling done.set() waited on forever (about half of the signals,
# measured before the handlers only noted the signal).
KEEPER_POLLING_WITHOUT_PAUSE = (
    "import sys\n"
    "import pytest_nodus_mock._keeper as keeper\n"
    "keeper.POLL_SECONDS = 0\n"
    "sys.argv = ['keeper', 'sleep', '600']\n"
    "keeper.main()\n"
)


def children(pid):
    return [child for child, parent, _ in processes() if parent == pid]


def test_a_signal_stops_the_command_wherever_it_lands():
    for _ in range(30):
        keeper = subprocess.Popen([sys.executable, "-c", KEEPER_POLLING_WITHOUT_PAUSE], stdin=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while not children(keeper.pid):
            assert time.monotonic() < deadline, "the keeper never started its command"
            time.sleep(0.01)
        [command] = children(keeper.pid)
        keeper.send_signal(signal.SIGTERM)
        try:
            keeper.wait(timeout=20)
        except subprocess.TimeoutExpired:
            keeper.kill()
            os.kill(command, signal.SIGKILL)
            raise AssertionError("the keeper hung on SIGTERM and left its command running") from None
        finally:
            keeper.stdin.close()
        assert not os.path.exists(f"/proc/{command}"), "the command outlived the keeper"

"""The plugin as a user meets it: installed by pip, found through its entry point, no conftest."""
import datetime
import json
import os
import pathlib
import re
import signal
import subprocess
import shlex
import time
import urllib.parse
import urllib.request

import pytest

import wire
from conftest import tagged_processes, wait_for_no_process

# What an inner test uses to talk to /v1 the way an SDK would: from the environment only.
WIRE = pathlib.Path(wire.__file__).read_text()

SECTION = re.compile(r"-+ nodus-mock -+\n(.*?)(?:\n=+ |\n_+ )", re.S)


def sections(result):
    return SECTION.findall(result.stdout.str())


def test_a_passing_test_reaches_its_own_tenant_and_writes_nothing(pytester, run):
    pytester.makepyfile(wire=WIRE)
    pytester.makepyfile(test_pass='''
from wire import get
import os

keys = []

def test_one(nodus_mock, nodus_mock_server):
    assert os.environ["NODUS_BASE_URL"] == nodus_mock.url == nodus_mock_server.url
    assert os.environ["NODUS_API_KEY"] == nodus_mock.api_key and nodus_mock.api_key.startswith("nk_test_")
    status, me = get("/v1/me")
    assert status == 200
    before = nodus_mock.control("GET", "/_mock/clock")
    assert before["mode"] == "manual"
    after = nodus_mock.advance(3600)
    assert after > before["now"]
    rule = nodus_mock.fault({"method": "GET", "path": "/v1/rl-recipes", "action": {"type": "error", "status": 503, "error": "unavailable"}})
    assert get("/v1/rl-recipes")[0] == 503
    assert [r["path"] for r in nodus_mock.requests() if r["path"].startswith("/v1/")] == ["/v1/rl-recipes", "/v1/me"]
    assert [r["fault_id"] for r in nodus_mock.requests(path="/v1/rl-recipes")] == [rule["id"]]
    assert nodus_mock.inspector("wl_1") == nodus_mock.url + "/_mock/ui/#key=" + nodus_mock.api_key + "&workload=wl_1"
    keys.append((nodus_mock.api_key, me["tenant"]))

def test_two_is_another_tenant(nodus_mock):
    status, me = get("/v1/me")
    assert nodus_mock.api_key != keys[0][0] and me["tenant"] != keys[0][1]
    assert nodus_mock.requests() == [{**nodus_mock.requests()[0]}] and nodus_mock.control("GET", "/_mock/faults")["faults"] == []
''')
    result = run("--nodus-mock-artifacts", "artifacts", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    assert sections(result) == []
    assert not (pytester.path / "artifacts").exists()
    assert not list(pytester.path.glob(".pytest_cache/d/nodus-mock"))


FAILING = '''
import json
from wire import get, launch

def test_fails(nodus_mock):
    workload = launch("before-failing")
    nodus_mock.advance(3600)
    workload = get(f"/v1/workloads/{workload}")[1]
    for n in range(25):
        get(f"/v1/workloads/wl_{n}")
    nodus_mock.fault({"method": "GET", "path": "/v1/me", "action": {"type": "reset"}})
    try:
        get("/v1/me")
    except OSError:
        pass
    nodus_mock.fault({"method": "POST", "path": "/v1/rl-runs", "action": {"type": "error", "status": 429, "error": "rate_limited"}})
    with open("state.json", "w") as file:
        json.dump({"key": nodus_mock.api_key, "url": nodus_mock.url, "workload": workload,
                   "clock": nodus_mock.control("GET", "/_mock/clock"),
                   "faults": nodus_mock.control("GET", "/_mock/faults")["faults"],
                   "journal": nodus_mock.requests(limit=20)}, file)
    assert False, "on purpose"

def test_passes(nodus_mock):
    get("/v1/me")
'''


def failing_run(pytester, run, *args):
    pytester.makepyfile(wire=WIRE)
    pytester.makepyfile(test_fail=FAILING)
    result = run(*args)
    result.assert_outcomes(passed=1, failed=1)
    [section] = sections(result)
    state = json.loads((pytester.path / "state.json").read_text())
    return section, state


def snapshot_line(section):
    """The snapshot's path, or a skip when the server predates GET /_mock/snapshot."""
    match = re.search(r"^snapshot: (.*)$", section, re.M)
    assert match, section
    if "could not be taken" in match.group(1):
        assert "no GET /_mock/snapshot (404 not_found); a newer one has" in match.group(1)
        pytest.skip("this nodus-mock answers 404 to GET /_mock/snapshot")
    return match.group(1)


def test_advance_until_ends_a_run_in_one_call_and_a_condition_that_cannot_hold_raises(pytester, run):
    pytester.makepyfile(wire=WIRE)
    pytester.makepyfile(test_until='''
import pytest
from pytest_nodus_mock.client import NodusMockError
from wire import get, launch

def test_until(nodus_mock):
    workload = launch("until")
    now = nodus_mock.advance_until("idle")
    assert get(f"/v1/workloads/{workload}")[1]["status"] == "completed"
    assert nodus_mock.control("GET", "/_mock/clock")["now"] == now
    with pytest.raises(NodusMockError) as refused:
        nodus_mock.advance_until({"workload_id": workload, "status": "failed"})
    assert (refused.value.status, refused.value.code) == (409, "condition_unreachable")
    assert "ended completed" in refused.value.message
    other = launch("bounded")
    with pytest.raises(NodusMockError) as bounded:
        nodus_mock.advance_until({"workload_id": other, "status": "completed"}, max_seconds=1)
    assert bounded.value.code == "max_seconds_reached"
    assert nodus_mock.control("GET", "/_mock/clock")["now"] == now
''')
    run("-p", "no:randomly").assert_outcomes(passed=1)


RECOVERED_TRAIN_RUN = {"keys": {"nk_test_x": {
    # A thousand virtual seconds a wall second: the run lasts about one, so the reader, which never
    # sleeps, polls it while active; the rows it gets are the same however its polls fall.
    "clock": {"mode": "realtime", "scale": 1000},
    "workload_rules": [{"match": {"mode": "train"}, "at": {"phase": "training", "step": 3},
                        "action": [{"type": "recover", "replay_last": 5}, {"type": "drop_events", "count": 2}]}]}}}

# The code under test: it launches its own run and reads its task events as the SDK's reader does,
# so the test never holds the workload id.
APPLICATION = '''
import urllib.parse
from wire import call

TRAIN = {"recipe_id": "reasoning-gym-leg-counting", "recipe_version": "1.0.0", "mode": "train", "training_steps": 10}


def train_and_read_events(base_url, api_key):
    """Launches a train run (client.rl.launch), then pages its events (client.rl.events) with the
    cursor, polling while the run is active and once more after it ended; answers the rows and the last page."""
    where = {"url": base_url, "key": api_key}
    status, preview = call("POST", "/v1/rl-runs/preview", TRAIN, **where)
    assert status == 200, preview
    launch = {**preview["configuration"], "review_token": preview["review_token"]}
    status, run = call("POST", "/v1/rl-runs", launch, idempotency_key="train-1", **where)
    assert status == 202, run
    workload = run["workload_id"]
    rows, cursor, ended = [], None, False
    while True:
        query = {"limit": 100} if cursor is None else {"limit": 100, "after": cursor}
        status, page = call("GET", f"/v1/workloads/{workload}/rl-events?" + urllib.parse.urlencode(query), **where)
        assert status == 200, page
        rows += page["events"]
        cursor = page["next_cursor"]
        if page["has_more"]:
            continue
        if ended:
            return rows, page
        ended = call("GET", f"/v1/workloads/{workload}", **where)[1]["status"] in ("completed", "failed", "cancelled")
'''


def test_workload_rules_of_the_marker_scenario_and_of_the_client_act_on_the_runs_the_code_under_test_launches(pytester, run):
    pytester.makefile(".json", recovered=json.dumps(RECOVERED_TRAIN_RUN))
    pytester.makepyfile(wire=WIRE, application=APPLICATION)
    pytester.makepyfile(test_rules='''
import os
import pytest
from application import train_and_read_events
from wire import get, launch

@pytest.mark.nodus_mock(scenario="recovered.json")
def test_the_reader_sees_the_recovery_the_scenario_scripted(nodus_mock):
    rows, last = train_and_read_events(os.environ["NODUS_BASE_URL"], os.environ["NODUS_API_KEY"])
    generations = [row["generation"] for row in rows]
    assert sorted(set(generations)) == [1, 2] and generations == sorted(generations)
    first = [row["event"]["event_id"] for row in rows if row["generation"] == 1]
    second = [row["event"]["event_id"] for row in rows if row["generation"] == 2]
    assert len(second[:5]) == 5 and second[:5] == first[-5:]
    assert (last["dropped_events"], last["truncated"]) == (2, True)
    [rule] = nodus_mock.workload_rules()
    assert (rule["source"], rule["bound"], rule["applied"]) == ("api", 1, 1)

def test_rules_made_and_cleared_by_the_test(nodus_mock):
    rule = nodus_mock.workload_rule({"at": {"running_seconds": 5}, "action": {"type": "fail", "reason": "node lost"}})
    assert rule["id"].startswith("wr_") and rule["bound"] == 0
    failed = launch("failed-by-the-rule")
    nodus_mock.advance_until({"rule": rule["id"]})
    assert get(f"/v1/workloads/{failed}")[1]["status"] == "failed"
    assert [(r["id"], r["applied"], [w["workload_id"] for w in r["workloads"]]) for r in nodus_mock.workload_rules()] == [(rule["id"], 1, [failed])]
    nodus_mock.clear_workload_rules()
    assert nodus_mock.workload_rules() == []
    spared = launch("after-the-rules")
    nodus_mock.advance_until("idle")
    assert get(f"/v1/workloads/{spared}")[1]["status"] == "completed"
''')
    run("-p", "no:randomly").assert_outcomes(passed=2)


def check_the_section(section, state):
    """The inspector link, the last 20 requests, the rules that fired and those that never did."""
    lines = section.splitlines()
    assert lines[0] == f"inspector: {state['url']}/_mock/ui/#key={state['key']}"
    assert lines[1] == "journal (last 20, oldest first):"
    # The journal as the test left it, its own control calls among the /v1 ones where the server journals them.
    journal = lines[2:22]
    assert journal == [shown(row) for row in reversed(state["journal"])]
    assert [line for line in journal if line.startswith("  GET /v1/")][-2:] == ["  GET /v1/workloads/wl_24 404", "  GET /v1/me unanswered (reset)"]
    [reset, limited] = state["faults"]
    # The rule that acted, and the one the test declared that never did.
    assert lines[lines.index("rules that fired:") + 1] == f"  fault {reset['id']} GET /v1/me reset (applied 1)"
    assert lines[lines.index("rules the test declared that never fired:") + 1] == f"  fault {limited['id']} POST /v1/rl-runs error"
    assert lines[-2].startswith("snapshot: ")
    # Only the failing test's section, and only its snapshot.
    assert section.count("inspector:") == 1


def shown(row):
    """A journal row as the report's line: method, path and query string, status, what acted."""
    query = "?" + urllib.parse.urlencode(row["query"], doseq=True) if row.get("query") else ""
    notes = ["replayed"] * row["replayed"] + [row["fault"]] * bool(row["fault"])
    return f"  {row['method']} {row['path']}{query} {row['status'] or 'unanswered'}" + (f" ({', '.join(notes)})" if notes else "")


def test_a_failing_test_reports_its_requests_and_rules_and_a_snapshot_its_command_restores_under_the_test_key(pytester, run, server_command):
    section, state = failing_run(pytester, run, "--nodus-mock-artifacts", "artifacts")
    check_the_section(section, state)
    path = snapshot_line(section)
    assert os.path.dirname(path) == str(pytester.path / "artifacts")
    assert re.fullmatch(r"test_fail\.py_test_fails-[0-9a-f]{8}\.json", os.path.basename(path))
    assert os.listdir(pytester.path / "artifacts") == [os.path.basename(path)], "the passing test wrote nothing"
    # The command is the one that started the session's server (NODUS_MOCK_CMD here), not npx.
    command = re.search(r"^  open it: (.*)   \(then the inspector link it prints\)$", section, re.M)
    assert command, section
    assert command.group(1) == f"{server_command} --restore {shlex.quote(path)} --restore-key {state['key']}"
    with open(path) as file:
        document = json.load(file)
    assert document["format"] == "nodus-mock.snapshot" and document["version"] == 4
    restored = restore(command.group(1), "/v1/workloads/" + state["workload"]["id"])
    # The link the restored server prints is the test's tenant, at the run the test launched, as it was.
    assert restored["inspector"] == f"{restored['url']}/_mock/ui/#key={state['key']}&workload={state['workload']['id']}"
    assert restored["read"] == state["workload"]
    assert restored["clock"] == state["clock"]
    assert restored["faults"] == state["faults"]


def restore(command, route):
    """Starts `command` as a user would; answers its URL and inspector link, and its clock, faults and `route` read with the key it printed."""
    server = subprocess.Popen([*shlex.split(command), "--port", "0", "--db", ":memory:", "--log-level", "warn"],
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        printed = ""
        for line in server.stdout:
            printed += line
            if line.startswith("inspector:"):
                break
        url = re.search(r"listening on (http://\S+)", printed).group(1)
        key = re.search(r"NODUS_API_KEY=(\S+)", printed).group(1)

        def control(path):
            request = urllib.request.Request(url + path, headers={"Authorization": "Bearer " + key})
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        return {"url": url, "inspector": re.search(r"^inspector: (\S+)$", printed, re.M).group(1), "read": control(route),
                "clock": control("/_mock/clock"), "faults": control("/_mock/faults")["faults"]}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_without_the_option_the_snapshot_goes_under_the_pytest_cache(pytester, run):
    section, _ = failing_run(pytester, run)
    path = snapshot_line(section)
    assert os.path.dirname(path) == str(pytester.path / ".pytest_cache" / "d" / "nodus-mock")
    assert os.path.exists(path)


def test_the_marker_sets_clock_levers_and_a_scenario_entry(pytester, run):
    pytester.makefile(".json", one=json.dumps({"keys": {"nk_test_any": {
        "clock": {"mode": "manual", "advance_seconds": 7200},
        "faults": [{"method": "GET", "path": "/v1/rl-recipes", "action": {"type": "error", "status": 429, "error": "rate_limited", "retry_after": 1}}],
        "recipes": {"reasoning-gym-leg-counting": {"available": False, "unavailable_reason": "paused"}},
        "budget": {"monthly_spend_cap_usd": 10},
        "levers": {"unrecoverable_error_rate": 1}}}}))
    pytester.makefile(".json", two=json.dumps({"keys": {"nk_test_a": {"levers": {"review_expiry": True}},
                                                        "nk_test_b": {"clock": {"mode": "realtime", "scale": 5}}}}))
    pytester.makepyfile(test_marker='''
import pytest
from datetime import datetime

def now(mock):
    return datetime.fromisoformat(mock.control("GET", "/_mock/clock")["now"].replace("Z", "+00:00"))

@pytest.mark.nodus_mock(clock="realtime")
def test_realtime(nodus_mock):
    assert nodus_mock.control("GET", "/_mock/clock")["mode"] == "realtime"

@pytest.mark.nodus_mock(levers={"review_expiry": True})
def test_levers(nodus_mock):
    assert nodus_mock.control("PUT", "/_mock/levers", {})["review_expiry"] is True

@pytest.mark.nodus_mock(scenario="one.json")
def test_scenario(nodus_mock):
    faults = nodus_mock.control("GET", "/_mock/faults")["faults"]
    assert [(f["path"], f["action"]["status"]) for f in faults] == [("/v1/rl-recipes", 429)]
    assert nodus_mock.control("PUT", "/_mock/levers", {})["unrecoverable_error_rate"] == 1
    assert nodus_mock.control("PATCH", "/_mock/recipes/reasoning-gym-leg-counting", {"available": True})["available"] is True

@pytest.mark.nodus_mock(scenario="two.json", scenario_key="nk_test_b", clock="manual")
def test_scenario_key_and_clock_after_it(nodus_mock):
    clock = nodus_mock.control("GET", "/_mock/clock")
    assert (clock["mode"], clock["scale"]) == ("manual", 5)

@pytest.mark.nodus_mock(clock="sometimes")
def test_bad_clock(nodus_mock):
    pass

@pytest.mark.nodus_mock(scenario="two.json")
def test_two_entries(nodus_mock):
    pass

@pytest.mark.nodus_mock(colour="blue")
def test_unknown(nodus_mock):
    pass
''')
    result = run("-p", "no:randomly")
    result.assert_outcomes(passed=4, errors=3)
    out = result.stdout.str()
    assert "nodus_mock: clock must be 'manual' or 'realtime', not 'sometimes'" in out
    assert "has 2 entries; choose one with scenario_key= (nk_test_a, nk_test_b)" in out
    assert "nodus_mock: unknown argument colour" in out


def test_a_scenario_or_baseline_the_server_refuses_fails_setup_with_its_answer(pytester, run):
    pytester.makefile(".json", bad=json.dumps({"keys": {"nk_test_x": {"faults": [{"path": "/v1/me", "action": {"type": "error", "status": 700}}]}}}))
    pytester.makefile(".json", newer=json.dumps({"format": "nodus-mock.snapshot", "version": 99}))
    pytester.makefile(".json", torn='{"format": "nodus-mock.snapshot", "version": 2, "tenant": {')
    pytester.makepyfile(test_bad='''
import pytest

@pytest.mark.nodus_mock(scenario="bad.json")
def test_scenario(nodus_mock):
    pass

@pytest.mark.nodus_mock(baseline="newer.json")
def test_newer_baseline(nodus_mock):
    pass

@pytest.mark.nodus_mock(baseline="torn.json")
def test_torn_baseline(nodus_mock):
    pass

@pytest.mark.nodus_mock(baseline="missing.json")
def test_missing_baseline(nodus_mock):
    pass
''')
    result = run()
    result.assert_outcomes(errors=4)
    out = result.stdout.str()
    assert f'nodus_mock: scenario {pytester.path / "bad.json"}: keys["nk_test_x"]: POST /_mock/faults: 400 invalid_request: body.action.status' in out
    assert f"nodus_mock: baseline {pytester.path / 'newer.json'}: PUT /_mock/snapshot: 400 invalid_snapshot: body.version: is newer than this server reads" in out
    assert f"nodus_mock: baseline {pytester.path / 'torn.json'}: PUT /_mock/snapshot: 400 invalid_json: request body is not valid JSON" in out
    assert f"nodus_mock: baseline {pytester.path / 'missing.json'}: No such file or directory" in out
    assert "During handling" not in out and "Traceback" not in out and "urllib" not in out


BASELINE_TESTS = '''
import json, os, pytest
from wire import get, launch

def seen(nodus_mock):
    return {"worker": os.environ.get("PYTEST_XDIST_WORKER"), "url": nodus_mock.url,
            "workloads": get("/v1/workloads")[1]["workloads"],
            "clock": nodus_mock.control("GET", "/_mock/clock"),
            "faults": nodus_mock.control("GET", "/_mock/faults")["faults"]}

@pytest.mark.nodus_mock(baseline="data/base.json")
@pytest.mark.parametrize("n", range(4))
def test_forked(nodus_mock, n):
    before = seen(nodus_mock)
    mine = launch(f"mine-{n}")
    nodus_mock.advance(60)
    after = [w["id"] for w in get("/v1/workloads")[1]["workloads"]]
    with open(f"forked-{n}.json", "w") as file:
        json.dump({**before, "mine": mine, "after": after}, file)

@pytest.mark.nodus_mock(baseline="data/base.json", scenario="data/scenario.json")
def test_a_scenario_on_a_baseline(nodus_mock):
    with open("on-scenario.json", "w") as file:
        json.dump(seen(nodus_mock), file)
'''


def make_baseline(server, path):
    """A tenant with two runs, a fault rule and its clock moved on, snapshotted to `path`; answers what it read."""
    source = server.tenant()
    where = {"url": server.url, "key": source.api_key}
    for n in range(2):
        wire.launch(f"run-{n}", **where)
    source.fault({"method": "GET", "path": "/v1/rl-recipes", "action": {"type": "error", "status": 503, "error": "unavailable"}})
    source.advance(600)
    source.snapshot(path)
    return {"workloads": wire.get("/v1/workloads", **where)[1]["workloads"],
            "clock": source.control("GET", "/_mock/clock"), "faults": source.control("GET", "/_mock/faults")["faults"]}


def without_ids(rows):
    return [{name: value for name, value in row.items() if name != "id"} for row in rows]


def test_a_baseline_starts_each_test_from_its_state_under_ids_of_its_own(pytester, run, shared_server):
    # The test file sits in a folder of its own, run from above it: the path is the test file's folder's.
    data = pytester.mkdir("suite") / "data"
    data.mkdir()
    source = make_baseline(shared_server, data / "base.json")
    (data / "scenario.json").write_text(json.dumps({"keys": {"nk_test_any": {
        "clock": {"mode": "manual", "advance_seconds": 3600},
        "faults": [{"method": "GET", "path": "/v1/me", "action": {"type": "error", "status": 429, "error": "rate_limited"}}]}}}))
    (data.parent / "wire.py").write_text(WIRE)
    (data.parent / "test_baseline.py").write_text(BASELINE_TESTS)
    result = run("-n", "2")
    result.assert_outcomes(passed=5)

    forked = [json.loads((pytester.path / f"forked-{n}.json").read_text()) for n in range(4)]
    ids = [row["id"] for row in source["workloads"] + source["faults"]]
    for seen in forked:
        assert without_ids(seen["workloads"]) == without_ids(source["workloads"])
        assert without_ids(seen["faults"]) == without_ids(source["faults"])
        assert seen["clock"] == source["clock"]
        assert [len(row["id"]) for row in seen["workloads"]] == [len(row["id"]) for row in source["workloads"]]
        # Its own run joined the baseline's, and no other test's did.
        assert seen["after"] == [seen["mine"]] + [row["id"] for row in seen["workloads"]]
        ids += [row["id"] for row in seen["workloads"] + seen["faults"]] + [seen["mine"]]
    assert len(set(ids)) == len(ids), "every fork has ids of its own"
    # Four tests on two workers' servers: some server forked the baseline into two of its tenants.
    urls = [seen["url"] for seen in forked]
    assert {seen["worker"] for seen in forked} <= {"gw0", "gw1"} and len(set(urls)) < len(urls)

    # The scenario's entry lands on the restored state: the baseline's fault, then its own, and its clock moved from the baseline's.
    on = json.loads((pytester.path / "on-scenario.json").read_text())
    assert [(rule["path"], rule["action"]["status"]) for rule in on["faults"]] == [("/v1/rl-recipes", 503), ("/v1/me", 429)]
    assert moment(on["clock"]["now"]) - moment(source["clock"]["now"]) == datetime.timedelta(hours=1)


def moment(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_under_xdist_each_worker_has_its_own_server(pytester, run):
    pytester.makepyfile(test_workers='''
import json, os, pytest, time

@pytest.mark.parametrize("n", range(8))
def test_it(nodus_mock, n):
    time.sleep(0.2)
    with open(f"seen-{n}.json", "w") as file:
        json.dump([os.environ["PYTEST_XDIST_WORKER"], nodus_mock.url], file)
''')
    result = run("-n", "2")
    result.assert_outcomes(passed=8)
    seen = {tuple(json.loads(p.read_text())) for p in pytester.path.glob("seen-*.json")}
    workers = {worker for worker, _ in seen}
    assert workers == {"gw0", "gw1"}
    assert len({url for _, url in seen}) == 2, seen


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_no_server_outlives_an_interrupted_session(pytester, tagged, server_command, monkeypatch, how):
    temp = pytester.mkdir("temp")
    monkeypatch.setenv("TMPDIR", str(temp))
    pytester.makepyfile(test_interrupted=f'''
import os, signal, urllib.request

def test_it(nodus_mock):
    urllib.request.urlopen(nodus_mock.url + "/healthz")
    with open("url", "w") as file:
        file.write(nodus_mock.url)
    os.kill(os.getpid(), signal.{how})
''')
    pytester.runpytest_subprocess(timeout=120)
    url = (pytester.path / "url").read_text()
    assert wait_for_no_process(tagged) == []
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/healthz", timeout=5)
    # Nor its folder (database and log): SIGKILL leaves it to the keeper.
    assert [path.name for path in temp.iterdir()] == []


def test_a_command_that_is_not_there_says_how_to_install_nodus_mock(pytester, run):
    pytester.makepyfile(test_missing='''
def test_it(nodus_mock):
    pass
''')
    result = run("--nodus-mock-cmd", "nodus-mock-that-is-not-installed --flag")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "`nodus-mock-that-is-not-installed --flag` exited before it listened" in out
    assert "Is nodus-mock installed where pytest runs?" in out and "npm install --save-dev /path/to/nodus-mock-<version>.tgz" in out
    assert "NODUS_MOCK_CMD" in out


def test_the_server_is_gone_after_a_normal_session(pytester, run, tagged):
    pytester.makepyfile(test_url='''
def test_it(nodus_mock_server):
    open("url", "w").write(nodus_mock_server.url)
''')
    run().assert_outcomes(passed=1)
    assert tagged_processes(tagged) == []
    with pytest.raises(OSError):
        urllib.request.urlopen((pytester.path / "url").read_text() + "/healthz", timeout=5)

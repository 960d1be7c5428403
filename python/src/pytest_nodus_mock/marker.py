"""`@pytest.mark.nodus_mock(...)`: how a test's tenant starts, set through the control API."""
from __future__ import annotations

import json
import os
import urllib.parse
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Tuple

from .client import NodusMock, NodusMockError

MARKER = "nodus_mock"
MARKER_HELP = (
    "nodus_mock(baseline=PATH, scenario=PATH, scenario_key=KEY, clock='manual'|'realtime', scale=N, levers={...}, strict=BOOL): "
    "the test's tenant starts from a snapshot, then takes the entry of a scenario file, this clock mode and scale and these levers; "
    "strict=True makes a declared rule that never fired an error"
)
OPTIONS = {"baseline", "clock", "scale", "scenario", "scenario_key", "levers", "strict"}


class MarkerError(Exception):
    """A marker argument the plugin cannot apply; the message names it."""


def apply_marker(mock: NodusMock, marker: Optional[Any], test_folder: str) -> None:
    """The baseline first, as a restore replaces everything; then the scenario entry, `clock` and
    `levers`, each adjusting what came before, so the marker's own words win."""
    if marker is None:
        return
    if marker.args:
        raise MarkerError("nodus_mock takes keyword arguments only: " + ", ".join(f"{name}=" for name in sorted(OPTIONS)))
    unknown = sorted(set(marker.kwargs) - OPTIONS)
    if unknown:
        raise MarkerError(f"nodus_mock: unknown argument {', '.join(unknown)} (known: {', '.join(sorted(OPTIONS))})")
    options = marker.kwargs
    if options.get("baseline") is not None:
        restore_baseline(mock, os.path.join(test_folder, os.fspath(options["baseline"])))
    if options.get("scenario") is not None:
        path = os.path.join(test_folder, os.fspath(options["scenario"]))
        apply_entry(mock, path, *scenario_entry(path, options.get("scenario_key")))
    elif options.get("scenario_key") is not None:
        raise MarkerError("nodus_mock: scenario_key= needs scenario=")
    clock, scale = options.get("clock"), options.get("scale")
    if clock is not None and clock not in ("manual", "realtime"):
        raise MarkerError(f"nodus_mock: clock must be 'manual' or 'realtime', not {clock!r}")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0):
        raise MarkerError(f"nodus_mock: scale must be a number of virtual seconds per wall second above 0, not {scale!r}")
    if clock is not None or scale is not None:
        try:
            mock.set_clock(clock or mock.clock()["mode"], scale)
        except NodusMockError as err:
            raise MarkerError(f"nodus_mock: clock={clock!r}, scale={scale!r}: {err}") from None
    levers = options.get("levers")
    if levers is not None:
        if not isinstance(levers, dict):
            raise MarkerError(f"nodus_mock: levers must be a dict such as {{'review_expiry': True}}, not {levers!r}")
        mock.control("PUT", "/_mock/levers", levers)


def restore_baseline(mock: NodusMock, path: str) -> None:
    """The snapshot at `path`, forked into the test's tenant by the server."""
    try:
        mock.restore(path)
    except NodusMockError as err:
        raise MarkerError(f"nodus_mock: baseline {path}: {err}") from None
    except OSError as err:
        # The file cannot be read, or the connection failed: strerror says which, without the path again.
        raise MarkerError(f"nodus_mock: baseline {path}: {err.strerror or err}") from None


def scenario_entry(path: str, key: Optional[str]) -> Tuple[str, Dict[str, Any]]:
    """The file's entry for `key`, or its only entry; answers (key, entry)."""
    try:
        with open(path, encoding="utf-8") as file:
            keys = json.load(file)["keys"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise MarkerError(f"nodus_mock: scenario {path}: cannot read its `keys`: {err}") from None
    if key is None:
        if len(keys) != 1:
            raise MarkerError(f"nodus_mock: scenario {path} has {len(keys)} entries; choose one with scenario_key= ({', '.join(keys)})")
        key = next(iter(keys))
    if key not in keys:
        raise MarkerError(f"nodus_mock: scenario {path} has no entry {key!r} ({', '.join(keys)})")
    return key, keys[key]


def apply_entry(mock: NodusMock, path: str, key: str, entry: Dict[str, Any]) -> None:
    """What the server does with an entry at start, as control calls in the same order."""
    where = f'{path}: keys["{key}"]'
    unknown = sorted(set(entry) - {"clock", "faults", "workload_rules", "recipes", "budget", "levers"})
    if unknown:
        raise MarkerError(f"nodus_mock: scenario {where}: unknown field {', '.join(unknown)}")
    # Faults and workload rules go through the client's own methods, so teardown knows them as declared.
    calls: List[Callable[[], Any]] = [partial(mock.fault, rule) for rule in entry.get("faults", [])]
    calls += [partial(mock.workload_rule, rule) for rule in entry.get("workload_rules", [])]
    calls += [partial(mock.control, "PATCH", "/_mock/recipes/" + urllib.parse.quote(recipe, safe=""), update)
              for recipe, update in entry.get("recipes", {}).items()]
    if "budget" in entry:
        calls.append(partial(mock.control, "PUT", "/_mock/budget", entry["budget"]))
    if "levers" in entry:
        calls.append(partial(mock.control, "PUT", "/_mock/levers", entry["levers"]))
    if "clock" in entry:
        clock = dict(entry["clock"])
        seconds = clock.pop("advance_seconds", None)
        calls.append(partial(mock.control, "PUT", "/_mock/clock", clock))
        if seconds is not None:
            calls.append(partial(mock.advance, seconds))
    for call in calls:
        try:
            call()
        except NodusMockError as err:
            raise MarkerError(f"nodus_mock: scenario {where}: {err}") from None

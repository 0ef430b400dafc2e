# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The component skeleton: declared settings, the entry point, the manager's cache sync policy."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import threading
from collections.abc import Mapping

import pytest
from dvp_common.kube import ConfigError, KubeClient
from dvp_common.runtime.entry import Started, main
from dvp_common.runtime.manager import Manager, ManagerSettings
from dvp_common.runtime.settings import ConfigInvalid, Opt, group, load, log_level, setting


@dataclasses.dataclass(frozen=True)
class Timing:
    grace: float = 60.0
    hold: float = 30.0


def _region(env: Mapping[str, str]) -> str:
    if env.get("REGION") == "bad":
        raise ValueError("REGION: not a region")
    return env.get("REGION", "default")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Declared:
    region: str = setting(source=_region)
    level: str = log_level(env="LEVEL")
    leader_elect: bool = False
    labels: Mapping[str, str] = setting(default_factory=dict, env="LABELS")
    controllers: frozenset[str] = frozenset({"a", "b"})
    timing: Timing = group(lambda: Timing(grace=90.0), grace=Opt(flag="--grace-period", positive=True))
    token: str = setting("", flag="", env="TOKEN", secret=True, choices=("", "s3cr3t-ok"))
    derived: str = setting("", derived=True)

    def validate(self) -> Declared:
        return dataclasses.replace(self, derived=f"{self.region}/{self.level}")


def test_declared_settings_defaults_env_flags_groups_sources():
    s = load(Declared, [], {}, prefix=None)
    assert s == Declared(region="default", level="Info", timing=Timing(grace=90.0, hold=30.0),
                         derived="default/Info")
    s = load(Declared, ["--leader-elect", "--grace-period=2m", "--hold=5s", "--controllers=b, c",
                        "--level=Debug"], {"REGION": "eu", "LABELS": '{"team": "a"}', "LEVEL": "Warn"}, prefix=None)
    assert (s.leader_elect, s.timing, s.controllers, s.level, s.labels, s.derived) == (
        True, Timing(grace=120.0, hold=5.0), frozenset({"b", "c"}), "Debug", {"team": "a"}, "eu/Debug")
    assert load(Declared, ["--leader-elect=false"], {}, prefix=None).leader_elect is False
    assert "s3cr3t" not in repr(load(Declared, [], {"TOKEN": "s3cr3t-ok"}, prefix=None))


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["--grace-period=0"], {}, "--grace-period: must be positive, got 0.0"),
    (["--level=Loud"], {}, "--level: 'Loud' is not one of Debug, Info, Warn, Error"),
    ([], {"LEVEL": "Loud"}, "environment variable LEVEL: 'Loud' is not one of Debug, Info, Warn, Error"),
    ([], {"LABELS": "[1]"}, "environment variable LABELS: must map strings to strings"),
    ([], {"TOKEN": "s3cr3t-no"}, "environment variable TOKEN: invalid value"),
    (["--derived=x"], {}, "unknown flag --derived"),
    ([], {"REGION": "bad"}, "REGION: not a region"),
    (["--grace-period=soon"], {"REGION": "bad"}, "--grace-period: 'soon' is not a duration (e.g. 30s, 5m, 1h)"),
])
def test_declared_settings_errors_are_one_line(argv, env, message):
    with pytest.raises(ConfigInvalid) as info:
        load(Declared, argv, env, prefix=None)
    assert str(info.value) == message


def test_manager_settings_leader_timings_are_ordered():
    with pytest.raises(ConfigInvalid, match="--leader-elect-lease-duration > --leader-elect-renew-deadline"):
        load(ManagerSettings, ["--leader-elect-renew-deadline=20s"], {}, prefix=None)
    s = load(ManagerSettings, ["--health-probe-bind-address=:8081", "--metrics-bind-address=0"], {}, prefix=None)
    assert (s.health_bind, s.metrics_bind) == ("0.0.0.0:8081", None)  # noqa: S104


class FakeInformer:
    """An informer whose cache fills when the test says so."""

    def __init__(self, plural: str) -> None:
        self.resource = type("R", (), {"plural": plural})()
        self.synced, self.fill = threading.Event(), threading.Event()
        self.last_error = "403 Forbidden"

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            if self.fill.wait(0.05):
                self.synced.set()
                return


class FakeController:
    def __init__(self) -> None:
        self.started = threading.Event()
        self.stopped = False

    def start(self) -> None:
        self.started.set()

    def stop(self) -> None:
        self.stopped = True


def _manager(timeout: float, exits: list[str], exited: threading.Event) -> tuple[Manager, list[FakeInformer]]:
    settings = ManagerSettings(cache_sync_timeout=timeout)

    def exit_() -> None:
        exits.append("exit")
        exited.set()
    m = Manager(settings, KubeClient.from_url("https://127.0.0.1:9"), exit_on_lost_lease=exit_)
    informers = [FakeInformer("nodes"), FakeInformer("virtualmachines")]
    m.informers = informers  # type: ignore[assignment]
    m.controllers = [FakeController()]  # type: ignore[list-item]
    return m, informers


def test_controllers_start_once_every_cache_is_synced():
    exits: list[str] = []
    m, (nodes, vms) = _manager(60.0, exits, threading.Event())
    m.start()
    try:
        nodes.fill.set()
        assert nodes.synced.wait(5)
        assert m._ready() == "caches not synced: virtualmachines"  # noqa: SLF001
        vms.fill.set()
        assert m.leading.wait(5)
        assert m.controllers[0].started.is_set() and m._ready() is None and not exits  # noqa: SLF001
    finally:
        m.shutdown()
    assert m.controllers[0].stopped


def test_a_cache_that_never_syncs_ends_the_process_without_controllers():
    exits: list[str] = []
    exited = threading.Event()
    m, (nodes, _) = _manager(0.3, exits, exited)
    nodes.fill.set()
    m.start()
    try:
        assert exited.wait(10)
        assert exits == ["exit"] and not m.leading.is_set() and not m.controllers[0].started.is_set()
    finally:
        m.shutdown()


@dataclasses.dataclass(frozen=True)
class Plain:
    log_level: str = log_level()
    broken: bool = False


def _load(argv, env) -> Plain:
    return load(Plain, argv, env, prefix=None)


@pytest.fixture
def restored():
    root = logging.getLogger()
    saved = root.handlers[:], root.level, {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    yield
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    for s, handler in saved[2].items():
        signal.signal(s, handler)


def test_entry_point_bad_settings_and_bad_credentials_exit_2(capsys, restored):
    assert main("comp", _load, lambda s: (Started(lambda: None, lambda: None), ""), ["--log-level=Loud"]) == 2
    assert capsys.readouterr().err == "comp: --log-level: 'Loud' is not one of Debug, Info, Warn, Error\n"

    def build(s):
        raise ConfigError("DVP settings: kubeconfig users[0].user: no credentials")
    assert main("comp", _load, build, []) == 2
    line = json.loads(capsys.readouterr().err.strip())
    assert (line["level"], line["msg"]) == ("error", "comp: DVP settings: kubeconfig users[0].user: no credentials")


def test_entry_point_help_lists_the_settings(capsys, restored):
    assert main("comp", _load, lambda s: pytest.fail("built on --help"), ["--help"]) == 0
    assert capsys.readouterr().out == ("python -m comp [flags]\n  --log-level [Debug|Info|Warn|Error] (default Info)\n"
                                       "  --broken (default False)\n")


def test_entry_point_runs_until_sigterm_then_shuts_down(capsys, restored):
    calls: list[str] = []

    def build(s):
        def start() -> None:
            calls.append("start")
            os.kill(os.getpid(), signal.SIGTERM)  # as the kubelet stops the pod
        return Started(start, lambda: calls.append("shutdown")), "serving nothing"
    assert main("comp", _load, build, ["--log-level=Debug"]) == 0
    assert calls == ["start", "shutdown"]
    msgs = [json.loads(line)["msg"] for line in capsys.readouterr().err.splitlines()]
    # the signal's line may come before or after "started": the handler runs as soon as the signal arrives
    assert sorted(msgs) == ["comp started (serving nothing)", "comp stopped", "signal SIGTERM: stopping"]
    assert msgs[-1] == "comp stopped"

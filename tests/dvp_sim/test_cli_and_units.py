# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`python -m sim` as a process, settings validation and quantities."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from dvp_common.dvp import resources as R

from sim import SettingsInvalid, SimConfig, quantity
from sim.__main__ import parse
from sim.builders import WAIT, disk, phase_is

TOP = Path(__file__).resolve().parents[2]


def sim_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(str(TOP / p) for p in ("tests", "images/dvp-common"))}


def test_the_cli_plays_dvp_against_a_kubeconfig_until_terminated(dvp_api, dvp, ns, kubeconfig_for, tmp_path):
    kubeconfig = tmp_path / "dvp.kubeconfig"
    kubeconfig.write_text(kubeconfig_for(dvp_api, ns))
    proc = subprocess.Popen([sys.executable, "-m", "sim", "--kubeconfig", str(kubeconfig), "--namespace", ns,
                             "--default-latency", "0.02"], env=sim_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == f"dvp_sim: running (namespace {ns}, DVP API v1.8.0)"
        dvp.create(R.VIRTUAL_DISK, disk("cli", "1Gi"), ns)
        assert dvp.wait_for(R.VIRTUAL_DISK, "cli", phase_is("Ready"), WAIT, ns)["status"]["capacity"] == "1Gi"
    finally:
        proc.terminate()
        assert proc.wait(15) == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["--kubeconfig", "/nonexistent/kubeconfig"], "dvp_sim: [Errno 2] No such file or directory"),
    (["--kubeconfig", "x", "--ip-pool", "not-a-cidr"], "dvp_sim: SimConfig.ip_pool: "),
    (["--kubeconfig", "x", "--quota", "lots"], "dvp_sim: not a byte quantity: 'lots'"),
])
def test_the_cli_refuses_bad_input_with_one_line(argv, message, tmp_path):
    res = subprocess.run([sys.executable, "-m", "sim", *argv], env=sim_env(), capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert res.returncode == 2
    assert res.stderr.startswith(message)
    assert len(res.stderr.strip().splitlines()) == 1


def test_cli_options_become_settings():
    _, cfg = parse(["--kubeconfig", "k", "--namespace", "p", "--latency", "VirtualDisk.Provisioning=1.5",
                    "--stuck", "VirtualMachine.Starting", "--quota", "10Gi", "--error-rate", "update=0.2"])
    assert (cfg.namespace, cfg.latency, cfg.stuck, cfg.quota_bytes) == (
        "p", {"VirtualDisk.Provisioning": 1.5}, {"VirtualMachine.Starting"}, 10 * 2**30)
    assert cfg.faults is not None and cfg.faults.error_rate == {"update": 0.2}
    assert cfg.delay("VirtualDisk", "Provisioning") == 1.5
    assert cfg.delay("VirtualMachine", "Starting") is None
    assert cfg.dvp_api_version == "v1.8.0"
    assert parse(["--kubeconfig", "k", "--dvp-api-version", "v1.0.0"])[1].dvp_api_version == "v1.0.0"


def test_cli_node_labels_become_settings_and_a_bad_one_is_refused(capsys):
    _, cfg = parse(["--kubeconfig", "k", "--node-label", "dvp-node-1:topology.kubernetes.io/zone=zone-a",
                    "--node-label", "dvp-node-1:rack=r1", "--node-label", "dvp-node-2:topology.kubernetes.io/zone="])
    assert cfg.node_labels == {"dvp-node-1": {"topology.kubernetes.io/zone": "zone-a", "rack": "r1"},
                               "dvp-node-2": {"topology.kubernetes.io/zone": ""}}
    with pytest.raises(SystemExit):
        parse(["--kubeconfig", "k", "--node-label", "dvp-node-1=zone-a"])
    assert "expected NODE:KEY=VALUE, got 'dvp-node-1=zone-a'" in capsys.readouterr().err


@pytest.mark.parametrize(("fields", "message"), [
    ({"latency": {"Provisioning": 1.0}}, "SimConfig.latency['Provisioning']: expected '<Kind>.<Phase>'"),
    ({"lb_pool": "10.0.0.0/31"}, "SimConfig.lb_pool: 10.0.0.0/31 is too small"),
    ({"nodes": ()}, "SimConfig.nodes: at least one node"),
    ({"quota_bytes": -1}, "SimConfig.quota_bytes: must be >= 0"),
    ({"node_labels": {"elsewhere": {"topology.kubernetes.io/zone": "a"}}},
     "SimConfig.node_labels: elsewhere not in SimConfig.nodes"),
    ({"dvp_api_version": "v1.5.1"}, "SimConfig.dvp_api_version: 'v1.5.1' is not one of v1.8.0, v1.0.0"),
])
def test_settings_validation(fields, message):
    with pytest.raises(SettingsInvalid, match=message.replace("[", r"\[").replace("]", r"\]")):
        SimConfig(**fields).validate()


@pytest.mark.parametrize(("text", "size"), [("10Gi", 10 * 2**30), ("1G", 10**9), ("512Mi", 2**29), ("1536", 1536),
                                            ("1.5Gi", 3 * 2**29), (7, 7), (".5Gi", 2**29), ("1e3", 1000)])
def test_quantities_parse(text, size):
    assert quantity.parse(text) == size


@pytest.mark.parametrize(("size", "text"), [(10 * 2**30, "10Gi"), (2**29, "512Mi"), (1536, "1536"),
                                            (3 * 2**29, "1536Mi"), (1000, "1k")])
def test_quantities_format(size, text):
    assert quantity.fmt(size) == text


@pytest.mark.parametrize("bad", ["", "ten", "1Gb", "-1Gi", "1.2.3Gi", None])
def test_bad_quantities_are_refused(bad):
    with pytest.raises(ValueError, match="not a byte quantity"):
        quantity.parse(bad)


def test_an_unscoped_simulator_serves_every_namespace(dvp_api, dvp):
    from sim import Simulator

    namespaces = [dvp_api.create_namespace("all") for _ in range(2)]
    with Simulator(dvp_api.client(), SimConfig(default_latency=0.02, watch_timeout=1)) as sim:
        for ns in namespaces:
            dvp.create(R.VIRTUAL_DISK, disk("everywhere", "1Gi", "sim-fast"), ns)
        for ns in namespaces:
            assert dvp.wait_for(R.VIRTUAL_DISK, "everywhere", phase_is("Ready"), WAIT, ns)
    sim.client.close()

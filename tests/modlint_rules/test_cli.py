# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`python -m modlint`: exit code, one line per finding, render failures reported as helm-render."""

from __future__ import annotations

import subprocess
import sys

from modlint import __main__ as cli
from modlint_rules.sample import write_module


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "modlint", *args], capture_output=True, text=True,
                          check=False, timeout=120)


def test_clean_module_exits_zero(module_dir):
    proc = run(str(module_dir), "--files-only")
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == "modlint: 0 error(s), 0 warning(s) (rendered-object rules not run)\n"


def test_findings_are_printed_and_fail_the_run(tmp_path):
    module_dir = write_module(tmp_path / "m", {"oss.yaml": None, "enabled": "exit 0\n"})
    proc = run(str(module_dir), "--files-only")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == ["warning [enabled-script] enabled: the enabled script is deprecated",
                                        "error [oss] oss.yaml: oss.yaml is missing"]
    assert proc.stderr == "modlint: 1 error(s), 1 warning(s) (rendered-object rules not run)\n"


def test_warnings_alone_do_not_fail(tmp_path):
    module_dir = write_module(tmp_path / "m", {"enabled": "exit 0\n"})
    assert run(str(module_dir), "--files-only").returncode == 0


def test_a_render_failure_is_a_helm_render_finding(module_dir, monkeypatch, capsys):
    def broken():
        raise RuntimeError("execution error at (x/templates/a.yaml:3:4): boom\nsecond line")

    monkeypatch.setattr(cli, "render_cases", lambda: iter([("nodes-off", broken)]))
    assert cli.main([str(module_dir)]) == 1
    out, err = capsys.readouterr()
    assert out == ("error [helm-render] -: nodes-off: the module does not render: execution error at "
                   "(x/templates/a.yaml:3:4): boom\n")
    assert err == "modlint: 1 error(s), 0 warning(s) (rendered-object rules not run)\n"


def test_each_configuration_is_linted_and_findings_are_reported_once(module_dir, monkeypatch, capsys):
    from modlint_rules.sample import REGISTRY, good_objects, pod

    def with_missing_probe():
        objects = good_objects()
        pod(objects)["containers"][0].pop("readinessProbe")
        return objects, (REGISTRY,)

    def without_workloads():  # a configuration with the controller switched off: nothing mounts /tmp
        return [o for o in good_objects() if o.kind not in ("Deployment", "VerticalPodAutoscaler",
                                                             "PodDisruptionBudget")], (REGISTRY,)

    monkeypatch.setattr(cli, "render_cases", lambda: iter([("all-on", with_missing_probe), ("a", with_missing_probe),
                                                           ("off", without_workloads)]))
    assert cli.main([str(module_dir)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == ["error [readiness-probe] Deployment d8-test-module/controller; container controller; "
                                "templates/controller/deployment.yaml: readinessProbe is missing"]
    assert err == "modlint: 1 error(s), 0 warning(s) (3 rendered configuration(s))\n"

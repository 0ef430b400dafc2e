# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Hook process times, as shell-operator pays them: `<hook> --config` and one steady-state run (the hook already
ran once on the same cluster; the beforeHelm or afterHelm binding context of every module run) as medians of 20,
next to a bare `python -c 'import deckhouse.hook'`. The migration hooks run with a legacy configuration present;
for them the first run over a new input (parse, validate, build the bundle) is printed too.

Goals (each figure's `goal`): a median run of at most 80 ms per hook, and each hook's steady-state run costs at
most 15 % over the bare SDK import, every hook and the bare import alternating in one rotation (`run_over_bare_sdk`
in wall time, `run_cpu_over_bare_sdk` in user+system CPU time, which other engineers' load moves less); the same
for `*_large` cases whose input is fifty times a typical one (StorageClasses, legacy node groups). The load
average is printed before and after.

The re-implementations a hook imports instead of the standard library or a pinned package (`hooks.import.*`):
each one's cold import after the SDK, as a hook process imports it, against the import it replaces; one stays
only while it saves at least SAVING_GOAL of a hook process's start (bench/README.md says why that much).
"""

from __future__ import annotations

import compileall
import datetime
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from bench.measure import figure, process_ms, sizes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOOKS = os.path.join(ROOT, "hooks")
RUNS = 20
FIRST_RUN = ("legacy_cluster_configuration", "migration_resources")
GOAL_MS = 80
OVER_BARE_GOAL = "<= 1.15"
LARGE = 500  # StorageClasses in the *_large cases (a typical cluster has a handful)
LARGE_GROUPS = 50  # node groups of the legacy configuration in the *_large cases (a typical one has one or two)
GROWTH_RUNS = 5  # per hook and n in the growth curves
# The CPU per class is a difference of two process CPU times that wander by ~10 ms run to run: over 1000 classes
# that noise is 0.01 ms per class, over the default curve's 90 it would be all of the 0.1 ms goal.
PER_CLASS_SPAN = (10, 1000)
# name -> (our module, the import it replaces), each imported in a new hook-like process after `deckhouse.hook`.
REIMPLEMENTATIONS = {
    "digest": ("from lib import digest", "import hashlib"),
    "der": ("from lib import der", "from cryptography import x509"),
    "schema_subset": ("from dvp_common import schema_subset", "import jsonschema"),
}
# A re-implementation stays while it saves at least this share of a hook process's start (its CPU time, which
# other load moves less than wall time): a third of the 15 % a hook may add to the SDK (OVER_BARE_GOAL), ~3 ms.
SAVING_GOAL = 0.05
IMPORT_RUNS = 31  # differences of a few ms between process times that wander by more: medians of many rounds


def _lib():
    if HOOKS not in sys.path:
        sys.path.insert(0, HOOKS)
    import lib.testing as testing
    from lib import tls
    from lib.testing import migration_fixtures

    return testing, migration_fixtures, tls


def _cases() -> dict[str, tuple[dict, dict]]:
    """hook name -> (objects by binding, values): what a steady-state cluster delivers."""
    t, f, tls = _lib()
    # a steady-state cluster: the provider is set (storage_classes changes nothing until it is)
    values = {"global": {"discovery": {"clusterDomain": "cluster.local"}},
              "cloudProviderDvp": {"provider": {"parameters": {"namespace": "demo"}},
                                   "internal": {"providerDiscoveryData": {"zones": ["default"], "storageClasses": [
                  {"name": f"sc-{i}", "reclaimPolicy": "Delete", "allowVolumeExpansion": True, "isDefault": i == 0}
                  for i in range(10)]}}}}
    cases: dict[str, tuple[dict, dict]] = {
        "credentials": ({"credentials": [f.credentials() | {"data": {
            "authScheme": t.b64("kubeconfig"), "secret": t.b64(f.KUBECONFIG_B64)}}]}, values),
        "discovery_data": ({"discoverer": [t.secret("kube-system", "d8-cloud-provider-discovery-data", {
            "discovery-data.json": json.dumps(values["cloudProviderDvp"]["internal"]["providerDiscoveryData"])})]},
            values),
        "storage_classes": ({"storage_classes": [
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "csi.dvp.deckhouse.io",
             "metadata": {"name": f"sc-{i}", "labels": {"module": "cloud-provider-dvp"}},
             "parameters": {"dvpStorageClass": f"sc-{i}"}, "volumeBindingMode": "WaitForFirstConsumer",
             "reclaimPolicy": "Delete", "allowVolumeExpansion": True} for i in range(10)]}, values),
        "disable_load_balancer": ({"disable_lb_configmap": [
            t.configmap("d8-cloud-provider-dvp", "dvp-cloud-controller-manager-disable-lb")]}, values),
        "cni_configuration": ({"cni_configuration": [t.secret("kube-system", "d8-cni-configuration", {
            "cni": "cilium", "cilium": '{"mode":"VXLAN"}'})]}, values),
        "ensure_crds": ({"crds": [c.manifest() for c in importlib.import_module("ensure_crds").SHIPPED]}, values),
        "legacy_cluster_configuration": ({"legacy_cluster_configuration": [f.pcc_secret()]}, values),
    }
    # After Helm, values hold what legacy_cluster_configuration computed before Helm in the same module run.
    legacy = {"legacy_cluster_configuration": [f.pcc_secret()]}
    _, before_helm = _steady(importlib.import_module("legacy_cluster_configuration"), legacy, values)
    cases["migration_resources"] = (legacy, before_helm)
    masters = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"master-{i}", "labels": {
        "node-role.kubernetes.io/master": ""}}, "spec": {"taints": [
            {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]}} for i in range(3)]
    cases["wait_master_nodes_initialized"] = ({"master_nodes": masters}, values)
    # Its working path is a DVP API round trip (tests/hooks_api); here the run that finds isolation off.
    no_isolation = json.loads(json.dumps(values))
    no_isolation["cloudProviderDvp"]["provider"] = {"parameters": {"namespace": "demo", "networkPolicy": "None"}}
    cases["network_policies"] = ({}, no_isolation)
    cases.update(_sized(LARGE, values))
    # Fifty node groups in the legacy configuration (a cluster has one or two): its fingerprint, and after Helm
    # the migration's bundle, over an input fifty times a typical one.
    big_pcc = json.loads(json.dumps(f.PCC))
    big_pcc["nodeGroups"] = [big_pcc["nodeGroups"][0] | {"name": f"ng-{i}"} for i in range(LARGE_GROUPS)]
    legacy_big = {"legacy_cluster_configuration": [f.pcc_secret(big_pcc)]}
    cases["legacy_cluster_configuration_large"] = (legacy_big, values)
    _, before_helm_big = _steady(importlib.import_module("legacy_cluster_configuration"), legacy_big, values)
    cases["migration_resources_large"] = (legacy_big, before_helm_big)
    now = datetime.datetime.now(datetime.UTC)
    for name in ("capdvp_webhook_certificate", "validation_webhook_certificate", "snapshot_webhook_certificate"):
        spec = importlib.import_module(name).CERT
        bundle = tls.issue(spec, spec.names("cluster.local"), now)
        secret = t.secret(spec.namespace, spec.secret, {"tls.crt": bundle["crt"], "tls.key": bundle["key"],
                                                        "ca.crt": bundle["ca"]}, "kubernetes.io/tls")
        steady = json.loads(json.dumps(values))
        steady["cloudProviderDvp"]["internal"][spec.value] = bundle
        cases[name] = ({"tls_secret": [secret]}, steady)
    return cases


def _sized(n: int, values: dict) -> dict[str, tuple[dict, dict]]:
    """storage_classes and discovery_data (as `*_large` cases) over n parent StorageClasses."""
    t, _, _ = _lib()
    big = json.loads(json.dumps(values))
    big["cloudProviderDvp"]["internal"]["providerDiscoveryData"]["storageClasses"] = [
        {"name": f"sc-{i}", "reclaimPolicy": "Delete", "allowVolumeExpansion": True, "isDefault": i == 0}
        for i in range(n)]
    return {
        "storage_classes_large": ({"storage_classes": [
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "csi.dvp.deckhouse.io",
             "metadata": {"name": f"sc-{i}", "labels": {"module": "cloud-provider-dvp"}},
             "parameters": {"dvpStorageClass": f"sc-{i}"}, "volumeBindingMode": "WaitForFirstConsumer",
             "reclaimPolicy": "Delete", "allowVolumeExpansion": True} for i in range(n)]}, big),
        "discovery_data_large": ({"discoverer": [t.secret("kube-system", "d8-cloud-provider-discovery-data", {
            "discovery-data.json": json.dumps(big["cloudProviderDvp"]["internal"]["providerDiscoveryData"])})]},
            big)}


def growth(tmp: str, values: dict, runs: int = GROWTH_RUNS) -> list[dict]:
    """The growth curves (bench.measure.sizes): storage_classes and discovery_data over n parent StorageClasses,
    steady-state runs: median CPU and wall, peak RSS of the hook process; CPU per class over PER_CLASS_SPAN (its
    sizes run too when the curve lacks them, without figures of their own)."""
    out, cpu, curve = [], {}, sizes()
    for n in sorted(set(curve) | set(PER_CLASS_SPAN)):
        folder = os.path.join(tmp, f"n{n}")
        os.makedirs(folder)
        for name, (objects, vals) in _sized(n, values).items():
            argv = [os.path.join(HOOKS, f"{hook_of(name)}.py")]
            env = _run_env(folder, name, objects, vals)
            _timed(argv, env)  # warm-up
            samples = [_timed(argv, env, with_rss=True) for _ in range(runs)]
            hook = hook_of(name)
            cpu[(hook, n)] = statistics.median(c for _, c, _ in samples)
            if n not in curve:
                continue
            out += [figure(f"hooks.{hook}.n{n}.run_cpu", round(cpu[(hook, n)], 2), "ms"),
                    figure(f"hooks.{hook}.n{n}.run", round(statistics.median(w for w, _, _ in samples), 2), "ms"),
                    figure(f"hooks.{hook}.n{n}.peak_rss", round(max(r for _, _, r in samples), 1), "MiB")]
    low, high = PER_CLASS_SPAN
    for hook in ("storage_classes", "discovery_data"):
        per = (cpu[(hook, high)] - cpu[(hook, low)]) / (high - low)
        out.append(figure(f"hooks.{hook}.run_cpu_per_class", round(per, 3), "ms",
                          f"<= 0.1 (one pass over the classes, no pair of them compared; n = {low} to {high})"))
    return out


def _context(module, snaps: dict) -> list:
    """What addon-operator hands the hook on every module run, i.e. in the steady state: the beforeHelm or
    afterHelm binding context (all snapshots); its schedule for a hook that has no kubernetes binding. (The
    Synchronization context, which carries a binding's objects besides the snapshots, comes once per hook start.)"""
    t, _, _ = _lib()
    config = t.hook_config(module)
    if not config.get("kubernetes"):
        return [{"binding": config["schedule"][0]["name"], "type": "Schedule", "snapshots": snaps}]
    if "beforeHelm" in config:
        return t.before_helm(snaps)
    return t.after_helm(snaps)


def _steady(module, objects: dict, values: dict) -> tuple[dict, dict]:
    """The cluster and values after the hook ran once on them: what every later run sees."""
    from deckhouse import hook

    t, _, _ = _lib()
    out = hook.testrun(module.main, binding_context=_context(module, t.snapshots(module, **objects)),
                       config_values={}, initial_values=values)
    objects = {k: list(v) for k, v in objects.items()}
    for op in out.kube_operations.data:
        if op["operation"] == "CreateOrUpdate" and op["object"]["kind"] == "Secret":
            objects["bundle_secret"] = [op["object"]]
        elif op["operation"] == "CreateOrUpdate" and op["object"]["kind"] == "ConfigMap":
            objects["marker_configmap"] = [op["object"]]
    return objects, t.apply(values, out.values_patches.data)


def hook_of(case: str) -> str:
    return case.removesuffix("_large")


def _run_env(tmp: str, name: str, objects: dict, values: dict, steady: bool = True) -> dict:
    t, _, _ = _lib()
    module = importlib.import_module(hook_of(name))
    if steady:
        objects, values = _steady(module, objects, values)
    snaps = t.snapshots(module, **objects)
    files = {"BINDING_CONTEXT_PATH": _context(module, snaps), "VALUES_PATH": values,
             "CONFIG_VALUES_PATH": {}}
    env = t._env()
    for var, content in files.items():
        env[var] = os.path.join(tmp, f"{name}.{var.lower()}")
        with open(env[var], "w") as fh:
            json.dump(content, fh)
    for var in ("VALUES_JSON_PATCH_PATH", "KUBERNETES_PATCH_PATH", "METRICS_PATH"):
        env[var] = os.devnull
    return env


def cpu_ms(argv: list[str], env: dict, runs: int = RUNS) -> float:
    """Median user+system CPU time of a process: unlike wall time, barely moved by other load on the machine."""
    samples = []
    for _ in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return round(statistics.median(samples[1:]), 2)


def interleaved_ratio(hook: list[str], env: dict, runs: int = RUNS) -> float:
    """Median hook time over the median bare-SDK time, the two runs alternating so that machine drift (this
    machine's start-up times wander by tens of ms over a minute) falls on both sides alike."""
    def once(argv: list[str], run_env: dict) -> float:
        start = time.perf_counter()
        subprocess.run(argv, env=run_env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        return time.perf_counter() - start
    bare = [sys.executable, "-c", "import deckhouse.hook"]
    once(bare, dict(os.environ)), once(hook, env)  # warm-up
    pairs = [(once(bare, dict(os.environ)), once(hook, env)) for _ in range(runs)]
    return round(statistics.median(h for _, h in pairs) / statistics.median(b for b, _ in pairs), 2)


def _timed(argv: list[str], env: dict, with_rss: bool = False) -> tuple[float, ...]:
    """(wall, user+system CPU) milliseconds of one process run to completion (and its peak RSS in MiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if status != 0:
        raise RuntimeError(f"{argv[0]} exited with status {status}")
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    return (wall, cpu, usage.ru_maxrss / 1024) if with_rss else (wall, cpu)


def rotation(commands: dict[str, tuple[list[str], dict]], runs: int = RUNS) -> dict[str, tuple[float, float]]:
    """name -> (median wall, median CPU) ms, every command run once per round in turn (after one warm-up round),
    so that the machine's drift over the minutes this takes falls on all of them alike."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for round_ in range(runs + 1):
        for name, (argv, env) in commands.items():
            timed = _timed(argv, env)
            if round_:
                samples[name].append(timed)
    return {name: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s))
            for name, s in samples.items()}


def over_bare_sdk(cases: dict, tmp: str, runs: int = RUNS) -> list[dict]:
    """Each case's steady-state run over the bare SDK import, all in one rotation, with the load around it."""
    bare = "bare import deckhouse.hook"
    commands = {bare: ([sys.executable, "-c", "import deckhouse.hook"], dict(os.environ))}
    for name, (objects, values) in cases.items():
        commands[name] = ([os.path.join(HOOKS, f"{hook_of(name)}.py")], _run_env(tmp, name, objects, values))
    out = [figure("hooks.load_average_before", round(os.getloadavg()[0], 2), "load")]
    medians = rotation(commands, runs)
    out.append(figure("hooks.load_average_after", round(os.getloadavg()[0], 2), "load"))
    wall0, cpu0 = medians.pop(bare)
    out += [figure("hooks.rotation.bare_sdk", round(wall0, 2), "ms"),
            figure("hooks.rotation.bare_sdk_cpu", round(cpu0, 2), "ms")]
    for name, (wall, cpu) in medians.items():
        out.append(figure(f"hooks.{name}.run_over_bare_sdk", round(wall / wall0, 3), "ratio", OVER_BARE_GOAL))
        out.append(figure(f"hooks.{name}.run_cpu_over_bare_sdk", round(cpu / cpu0, 3), "ratio", OVER_BARE_GOAL))
    return out


def _importing(statement: str) -> list[str]:
    """A process that starts as a hook does (the hooks directory first on its path, the SDK imported), then runs
    `statement`."""
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {HOOKS!r}); import deckhouse.hook; {statement}"]


def import_savings(runs: int = IMPORT_RUNS) -> list[dict]:
    """Each re-implementation's cold import against the alternative's, over the hook start (the SDK import alone):
    the import time each adds to a hook process and what ours saves, in wall and user+system CPU time. Every
    round runs the start and each pair in turn (after one warm-up round), and each figure is the median of the
    rounds' differences, so that the machine's drift falls on both sides of a difference alike."""
    t, _, _ = _lib()
    env = t._env()
    commands = {"start": _importing("pass")}
    for name, (ours, theirs) in REIMPLEMENTATIONS.items():
        commands[f"{name}.ours"], commands[f"{name}.alternative"] = _importing(ours), _importing(theirs)
    rounds = []
    for round_ in range(runs + 1):
        timed = {key: _timed(argv, env) for key, argv in commands.items()}
        if round_:
            rounds.append(timed)

    def median(fn) -> tuple[float, float]:
        """(wall, CPU) medians of fn(round, index) over the rounds, index 0 for wall and 1 for CPU."""
        return tuple(round(statistics.median(fn(r, i) for r in rounds), 2) for i in (0, 1))

    start = median(lambda r, i: r["start"][i])
    out = [figure("hooks.import.hook_start", start[0], "ms"), figure("hooks.import.hook_start_cpu", start[1], "ms")]
    goal_ms = round(start[1] * SAVING_GOAL, 1)
    for name, (_, theirs) in REIMPLEMENTATIONS.items():
        ours = median(lambda r, i, n=name: r[f"{n}.ours"][i] - r["start"][i])
        alternative = median(lambda r, i, n=name: r[f"{n}.alternative"][i] - r["start"][i])
        saving = median(lambda r, i, n=name: r[f"{n}.alternative"][i] - r[f"{n}.ours"][i])
        goal = f">= {goal_ms} ({SAVING_GOAL:.0%} of the hook start's CPU; else `{theirs}`)"
        out += [figure(f"hooks.import.{name}.ours", ours[0], "ms"),
                figure(f"hooks.import.{name}.ours_cpu", ours[1], "ms"),
                figure(f"hooks.import.{name}.alternative", alternative[0], "ms"),
                figure(f"hooks.import.{name}.alternative_cpu", alternative[1], "ms"),
                figure(f"hooks.import.{name}.saving", saving[0], "ms", goal),
                figure(f"hooks.import.{name}.saving_cpu", saving[1], "ms", goal)]
    return out


def figures() -> list[dict]:
    # What a deployed module runs: our lib from bytecode, like the SDK (see hooks/lib/bytecode_test.py). The hook
    # file itself is a script and is compiled on each run, as shell-operator's call pays it.
    compileall.compile_dir(HOOKS, quiet=1)
    compileall.compile_dir(os.path.join(ROOT, "images", "dvp-common", "dvp_common"), quiet=1)
    baseline = process_ms([sys.executable, "-c", "import deckhouse.hook"], runs=RUNS)
    out = [figure("hooks.baseline.import_deckhouse_hook", baseline, "ms"),
           figure("hooks.baseline.import_deckhouse_hook_cpu",
                  cpu_ms([sys.executable, "-c", "import deckhouse.hook"], dict(os.environ)), "ms")]
    t, _, _ = _lib()
    out += import_savings()
    with tempfile.TemporaryDirectory() as tmp:
        cases = _cases()
        out += growth(tmp, cases["storage_classes"][1])
        out += over_bare_sdk(cases, tmp)
        for name, (objects, values) in cases.items():
            if name != hook_of(name):
                continue  # the large cases are measured in the rotation only
            path = os.path.join(HOOKS, f"{name}.py")
            out.append(figure(f"hooks.{name}.config", process_ms([path, "--config"], runs=RUNS, env=t._env()), "ms"))
            out.append(figure(f"hooks.{name}.config_over_bare_sdk", interleaved_ratio([path, "--config"], t._env()),
                              "ratio", "<= 1.5"))
            env = _run_env(tmp, name, objects, values)
            run_ms = process_ms([path], runs=RUNS, env=env)
            out.append(figure(f"hooks.{name}.run", run_ms, "ms", f"<= {GOAL_MS}"))
            # What the hook adds to the SDK's own start-up, and its CPU time: comparable across loaded and
            # quiet machines, where the wall time is not.
            out.append(figure(f"hooks.{name}.run_over_baseline", round(run_ms - baseline, 2), "ms"))
            out.append(figure(f"hooks.{name}.run_cpu", cpu_ms([path], env), "ms", f"<= {GOAL_MS}"))
            if name in FIRST_RUN:
                # The run that meets this input for the first time (after a change, or after Deckhouse restarts
                # with empty values) parses and validates it: YAML import, schema, bundle.
                first = _run_env(tmp, name, objects, values, steady=False)
                out.append(figure(f"hooks.{name}.first_run", process_ms([path], runs=RUNS, env=first), "ms"))
    return out


run = figures

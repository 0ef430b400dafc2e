# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A pulled module's hooks run in the sandbox (module_source.sandbox): a hook that tries to write outside,
read the host, reach the network or run for ever gets nowhere, and the verify says so in one line."""

from __future__ import annotations

import json
import shutil
import socket
import sysconfig
import time
from pathlib import Path

import pytest
from module_source import SourceError, hooks, limits

ROOT = Path(__file__).resolve().parents[2]
HOST_PATH = "/var/lib/written-by-a-hook"  # outside /tmp, where a checkout (and the sandbox's own tmpfs) may be

PROBE = """#!/usr/bin/env python3
import json, os, socket, sys
def attempt(fn):
    try:
        fn()
        return "done"
    except OSError as exc:
        return type(exc).__name__
def write(path):
    with open(path, "w") as f:
        f.write("x")
def connect():
    socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
probe = {
    "uid": os.getuid(),
    "write beside the module": attempt(lambda: write(BESIDE)),
    "write a host path it is not given": attempt(lambda: write(HOST)),
    "write into the SDK": attempt(lambda: write(os.path.join(SITE, "new"))),
    "write into the module": attempt(lambda: write(os.path.join(os.path.dirname(__file__), "new"))),
    "write /usr": attempt(lambda: write("/usr/new")),
    "write /tmp": attempt(lambda: write("/tmp/new")),
    "read the secret": attempt(lambda: open(SECRET).read()),
    "read /etc/shadow": attempt(lambda: open("/etc/shadow").read()),
    "connect to loopback": attempt(connect),
}
print(json.dumps({"configVersion": "v1", "probe": probe}))
"""


def module_with(tmp_path: Path, hooks_code: dict[str, str]) -> Path:
    module = tmp_path / "module"
    (module / "hooks").mkdir(parents=True)
    for name, code in hooks_code.items():
        path = module / "hooks" / name
        path.write_text(code)
        path.chmod(0o755)
    return module


def test_a_hook_reaches_nothing_outside_its_sandbox(tmp_path):
    (tmp_path / "secret").write_text("host secret")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        code = PROBE.replace("PORT", str(listener.getsockname()[1])) \
            .replace("BESIDE", repr(str(tmp_path / "written"))).replace("SECRET", repr(str(tmp_path / "secret"))) \
            .replace("HOST", repr(HOST_PATH)).replace("SITE", repr(sysconfig.get_paths()["purelib"]))
        module = module_with(tmp_path, {"disable_load_balancer.py": code})
        probe = hooks.configs(module)["disable_load_balancer.py"]["probe"]
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever connected
    assert probe == {
        "uid": 64535,
        "write beside the module": "done",  # on the sandbox's own /tmp (a tmpfs), never the host's
        "write a host path it is not given": "FileNotFoundError",  # not there: only what it is given is
        "write into the SDK": "OSError",  # the venv's site-packages, bound read-only (EROFS)
        "write into the module": "OSError",  # read-only (EROFS)
        "write /usr": "OSError",
        "write /tmp": "done",
        "read the secret": "FileNotFoundError",
        "read /etc/shadow": "FileNotFoundError",
        "connect to loopback": "ConnectionRefusedError",  # a network namespace of its own: nothing listens there
    }
    assert not (tmp_path / "written").exists() and not Path(HOST_PATH).exists()
    assert sorted(p.name for p in (module / "hooks").iterdir()) == ["disable_load_balancer.py"]


def test_a_hook_that_never_answers_is_killed_at_its_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "HOOK_SECONDS", 1.0)
    module = module_with(tmp_path, {"slow.py": "#!/usr/bin/env python3\nimport time\ntime.sleep(3600)\n"})
    started = time.monotonic()
    with pytest.raises(SourceError) as err:
        hooks.configs(module)
    assert str(err.value) == "hooks/slow.py --config: no answer within 1 s (killed)"
    assert time.monotonic() - started < 10


def test_a_hook_that_floods_its_output_is_stopped_at_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "HOOK_OUTPUT_BYTES", 1 << 20)
    code = "#!/usr/bin/env python3\nimport sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    module = module_with(tmp_path, {"flood.py": code})
    with pytest.raises(SourceError) as err:
        hooks.configs(module)
    assert str(err.value).startswith("hooks/flood.py --config: exit ")
    assert "\n" not in str(err.value)


def test_a_hook_config_that_is_not_yaml_is_one_line(tmp_path):
    module = module_with(tmp_path, {"odd.py": "#!/usr/bin/env python3\nprint('{a: [')\n"})
    with pytest.raises(SourceError) as err:
        hooks.configs(module)
    assert str(err.value) == "hooks/odd.py --config: not a configVersion v1 hook config"


def test_the_disable_load_balancer_hook_runs_with_its_outputs_in_the_exchange_directory(tmp_path):
    """The real hook of the tree, from a copy: its values patch comes back through the one writable directory."""
    module = tmp_path / "module"
    skip = shutil.ignore_patterns("__pycache__", "*_test.py")
    for tree in ("hooks", "crds", "images/dvp-common/dvp_common"):
        shutil.copytree(ROOT / tree, module / tree, ignore=skip)
    config = hooks.configs(module)[hooks.HOOK]
    outputs = hooks.run_one(module, config, {"cloudProviderDvp": {"internal": {}}})
    assert outputs["VALUES_JSON_PATCH_PATH"] == [hooks.EXPECTED_PATCH]
    assert json.loads(json.dumps(outputs))  # plain JSON values only
    assert hooks.dvp_common_origin(module) == str(module / "images/dvp-common/dvp_common/__init__.py")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A stopped demo or test leaves nothing running (harness.lifetime): every descendant process ends and every
temporary folder goes, after SIGTERM to `python -m demo` mid-run and after a SIGKILL of a pytest-like parent.

Waits are on the processes' exit events (pidfd) and on the demo's own progress lines, each bounded."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXIT_WAIT = 30.0
DEMO_WAIT = 240.0  # API servers, simulator: slow on a loaded machine


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def pidfds(pids: set[int]) -> dict[int, int]:
    """pid -> pidfd, taken while the pids are surely ours (before the parent ends, so no pid reuse)."""
    fds = {}
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # already gone
            fds[pid] = os.pidfd_open(pid)
    return fds


def alive(fd: int) -> bool:
    return not select.select([fd], [], [], 0)[0]


def wait_all_exit(fds: dict[int, int], timeout: float = EXIT_WAIT) -> dict[int, str]:
    """Waits on the exit events of every pid; returns those still running at the deadline (pid -> cmdline)."""
    poller = select.poll()
    for fd in fds.values():
        poller.register(fd, select.POLLIN)
    pending = dict(fds)
    deadline = time.monotonic() + timeout
    while pending and (left := deadline - time.monotonic()) > 0:
        for fd, _ in poller.poll(left * 1000):
            poller.unregister(fd)
            pending = {p: f for p, f in pending.items() if f != fd}
    survivors = {pid: cmdline(pid) for pid in pending}
    for fd in fds.values():
        os.close(fd)
    return survivors


PARENT = textwrap.dedent("""
    import json, pathlib, sys, tempfile, threading
    from testkit.harness import lifetime
    from testkit.harness.processes import Process
    from demo.components import Components

    work = pathlib.Path(sys.argv[1])
    comps = Components(work)
    comps.add("sleeper", ["-c", "import time; time.sleep(600)"], {})  # stdin is /dev/null: a read would end it
    # spawned from a thread that then ends: the child must live on (PR_SET_PDEATHSIG is per thread)
    t = threading.Thread(target=comps.items["sleeper"].spawn)
    t.start(); t.join()
    server = Process("server", ["sleep", "600"], work / "server.log")
    own = pathlib.Path(tempfile.mkdtemp(dir=work))
    lifetime.remove_on_exit(own)
    print(json.dumps({"sleeper": comps.items["sleeper"].proc.pid, "server": server.pid,
                      "reaper": lifetime.reaper_pid(), "dirs": [str(comps.tmp), str(own)]}), flush=True)
    sys.stdin.read()
""")


def tied(pid: int, timeout: float = EXIT_WAIT) -> bool:
    """The child runs its program: setpriv has set the parent-death signal and exec'd it (a parent killed before
    that leaves a child the kernel never signals). /proc has no exec event: looked at every 10 ms, bounded."""
    deadline = time.monotonic() + timeout
    while "--pdeathsig" in (line := cmdline(pid)) or not line:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_sigkilled_parent_leaves_no_child_and_no_folder(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        report = json.loads(parent.stdout.readline())
        kids = descendants(parent.pid)
        fds = pidfds(kids)
        assert {report["sleeper"], report["server"], report["reaper"]} <= kids, (report, kids)
        assert alive(fds[report["sleeper"]]), "the child spawned from an ended thread was killed with the thread"
        assert all(Path(d).is_dir() for d in report["dirs"])
        assert all(tied(report[name]) for name in ("sleeper", "server")), [cmdline(p) for p in kids]
        parent.kill()
        assert parent.wait(EXIT_WAIT) == -signal.SIGKILL
        assert wait_all_exit(fds) == {}
    finally:
        parent.kill()
        parent.wait(EXIT_WAIT)
    assert [d for d in report["dirs"] if Path(d).exists()] == []


def read_until(proc: subprocess.Popen, marker: str, timeout: float) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    fd = proc.stdout.fileno()
    buf = b""
    while time.monotonic() < deadline:
        if not select.select([fd], [], [], deadline - time.monotonic())[0]:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
        *done, buf = buf.split(b"\n")
        lines += [ln.decode(errors="replace") for ln in done]
        if any(marker in ln for ln in lines):
            return lines
    raise AssertionError(f"demo never printed {marker!r} within {timeout:.0f}s:\n" + "\n".join(lines[-30:]))


def test_sigterm_to_demo_mid_run_stops_every_child_and_removes_temp_folders(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONUNBUFFERED": "1"}
    demo = subprocess.Popen([sys.executable, "-m", "demo"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
    try:
        # the simulator is up and the hooks are running: API servers, etcd, the DVP API's garbage collector,
        # the simulator and the reaper exist
        read_until(demo, "== run the module's hooks", DEMO_WAIT)
        kids = descendants(demo.pid)
        names = [cmdline(pid) for pid in kids]
        assert any(" -m sim " in f"{n} " for n in names), names
        assert any("kube-controller-manager" in n and "--controllers=garbage-collector-controller " in n
                   for n in names), names
        assert sum("kube-apiserver" in n for n in names) >= 2, names
        assert any("etcd" in n for n in names), names
        assert any("harness.reaper" in n for n in names), names
        fds = pidfds(kids)
        demo.send_signal(signal.SIGTERM)
        rest = demo.communicate(timeout=EXIT_WAIT)[0].decode(errors="replace")
        assert demo.returncode == 128 + signal.SIGTERM, rest
        assert wait_all_exit(fds) == {}
    finally:
        demo.kill()
        demo.wait(EXIT_WAIT)
    assert sorted(p.name for p in tmp.iterdir()) == []

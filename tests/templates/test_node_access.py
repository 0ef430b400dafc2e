# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""nodes.parameters.additionalUsers / sshCAKeys on day 2: the NodeGroupConfigurations rendered, their guards, and
their scripts run under bash with every system command replaced by a recording stand-in and /etc moved into a
temporary directory (so the logic runs for real, and nothing of this machine is touched)."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest
from chart import matrix
from chart.render import RenderError, render_values

from testkit.harness.objects import find, names

CA = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk ops-ca"
CA2 = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 second-ca"
LABELS = {"heritage": "deckhouse", "module": "cloud-provider-dvp"}


def render(users=None, keys=None) -> list[dict]:
    """The chart with these values set after the settings schema ran: the template's own guard is judged."""
    values = matrix.build()
    parameters = values["cloudProviderDvp"]["nodes"]["parameters"]
    parameters.update({k: v for k, v in (("additionalUsers", users), ("sshCAKeys", keys)) if v is not None})
    return render_values(values)


def ngc(objects: list[dict], name: str) -> dict:
    return find(objects, "NodeGroupConfiguration", name)


def test_nothing_is_rendered_without_the_settings(rendered):
    assert names(rendered("defaults"), "NodeGroupConfiguration") == []
    assert names(render([], []), "NodeGroupConfiguration") == []


def test_both_configurations_target_every_node_group_and_bundle(rendered):
    objects = rendered("maximal")
    assert names(objects, "NodeGroupConfiguration") == ["dvp-additional-users.sh", "dvp-ssh-ca-trust.sh"]
    for name in ("dvp-additional-users.sh", "dvp-ssh-ca-trust.sh"):
        obj = ngc(objects, name)
        assert obj["apiVersion"] == "deckhouse.io/v1alpha1"
        assert obj["metadata"] == {"name": name, "labels": LABELS}
        assert {k: v for k, v in obj["spec"].items() if k != "content"} == {
            "weight": 10, "nodeGroups": ["*"], "bundles": ["*"]}


def test_user_script_lists_each_user_once_with_its_rule_number():
    content = ngc(render(["ops", "s.bob"]), "dvp-additional-users.sh")["spec"]["content"]
    assert [line for line in content.splitlines() if line.startswith("dvp_user ")] == [
        'dvp_user "ops" 0', 'dvp_user "s.bob" 1']
    assert '[ "${rule##*-}" -lt 2 ] 2>/dev/null || rm -f "$rule"' in content


@pytest.mark.parametrize(("users", "keys", "message"), [
    (["ops", "Root"], None,
     'cloudProviderDvp.nodes.parameters.additionalUsers[1]: "Root" is not a valid Linux user name'),
    (["ops;reboot"], None, 'additionalUsers[0]: "ops;reboot" is not a valid Linux user name'),
    (["ops\n"], None, 'additionalUsers[0]: "ops\\n" is not a valid Linux user name'),
    (["default"], None, 'cloudProviderDvp.nodes.parameters.additionalUsers[0]: "default" is reserved by cloud-init'),
    (None, [CA, CA + "\nDVP_SSH_CA_KEYS\nreboot"],
     "cloudProviderDvp.nodes.parameters.sshCAKeys[1]: not a single-line OpenSSH public key"),
    (None, [CA + "\n"], "cloudProviderDvp.nodes.parameters.sshCAKeys[0]: not a single-line OpenSSH public key"),
    (None, ["rm -rf /"], "cloudProviderDvp.nodes.parameters.sshCAKeys[0]: not a single-line OpenSSH public key"),
])
def test_values_that_could_break_out_of_the_script_fail_the_render(users, keys, message):
    with pytest.raises(RenderError) as err:
        render(users, keys)
    assert message in str(err.value)


class Node:
    """/etc in a temporary directory and recording stand-ins for id, useradd, sshd and systemctl."""

    def __init__(self, root, accounts: dict[str, int], sshd_ok: bool = True):
        self.root, self.etc, self.log = root, root / "etc", root / "calls.log"
        (self.etc / "sudoers.d").mkdir(parents=True)
        (self.etc / "ssh").mkdir()
        (self.etc / "ssh" / "sshd_config").write_text("PermitRootLogin no\n")
        self.accounts = root / "accounts"
        self.accounts.write_text("".join(f"{n} {u}\n" for n, u in accounts.items()))
        bin_ = root / "bin"
        bin_.mkdir()
        stubs = {
            "id": f'[ "$1" = -u ] && awk -v n="$2" \'$1 == n {{print $2; f=1}} END {{exit !f}}\' {self.accounts}',
            "useradd": f'echo "useradd $*" >> {self.log}; echo "${{@: -1}} 1001" >> {self.accounts}',
            "sshd": f'echo "sshd $*" >> {self.log}; exit {0 if sshd_ok else 255}',
            "systemctl": f'echo "systemctl $*" >> {self.log}',
        }
        for name, body in stubs.items():
            path = bin_ / name
            path.write_text(f"#!/bin/bash\n{body}\n")
            path.chmod(path.stat().st_mode | stat.S_IEXEC)

    def run(self, content: str) -> subprocess.CompletedProcess:
        script = content.replace("/etc/", f"{self.etc}/")
        env = {"PATH": f"{self.root / 'bin'}:{os.environ['PATH']}"}
        return subprocess.run(["bash", "-Eeuo", "pipefail", "-c", script], env=env, capture_output=True, text=True,
                              timeout=30, check=False)

    def calls(self) -> list[str]:
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return lines

    def rules(self) -> dict[str, str]:
        d = self.etc / "sudoers.d"
        return {p.name: p.read_text() for p in sorted(d.iterdir())}


def test_user_script_creates_grants_revokes_and_leaves_system_accounts_alone(tmp_path):
    node = Node(tmp_path, {"root": 0, "ops": 1000})
    first = node.run(ngc(render(["ops", "s.bob", "root"]), "dvp-additional-users.sh")["spec"]["content"])
    assert first.returncode == 0, first.stderr
    assert node.calls() == ["useradd --create-home --shell /bin/bash s.bob"]  # ops exists already
    assert first.stderr == "dvp-additional-users: root is a system account (uid 0): left alone\n"
    assert node.rules() == {"90-dvp-user-0": "ops ALL=(ALL) NOPASSWD:ALL\n",
                            "90-dvp-user-1": "s.bob ALL=(ALL) NOPASSWD:ALL\n"}
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o440 for p in (node.etc / "sudoers.d").iterdir())

    again = node.run(ngc(render(["ops", "s.bob", "root"]), "dvp-additional-users.sh")["spec"]["content"])
    assert again.returncode == 0 and node.calls() == []  # nothing new to create

    (node.etc / "sudoers.d" / "other").write_text("someone ALL=(ALL) ALL\n")
    shrunk = node.run(ngc(render(["s.bob"]), "dvp-additional-users.sh")["spec"]["content"])
    assert shrunk.returncode == 0, shrunk.stderr
    assert node.rules() == {"90-dvp-user-0": "s.bob ALL=(ALL) NOPASSWD:ALL\n", "other": "someone ALL=(ALL) ALL\n"}


def test_ca_script_writes_the_keys_and_reloads_sshd_only_on_change(tmp_path):
    node = Node(tmp_path, {})
    content = ngc(render(keys=[CA, CA2]), "dvp-ssh-ca-trust.sh")["spec"]["content"]
    first = node.run(content)
    assert first.returncode == 0, first.stderr
    ssh = node.etc / "ssh"
    assert (ssh / "trusted-user-ca-keys.pem").read_text() == f"{CA}\n{CA2}\n"
    assert (ssh / "sshd_config.d" / "50-trusted-ca.conf").read_text() == \
        f"TrustedUserCAKeys {ssh}/trusted-user-ca-keys.pem\n"
    assert (ssh / "sshd_config").read_text() == f"Include {ssh}/sshd_config.d/*.conf\nPermitRootLogin no\n"
    assert node.calls() == ["sshd -t", "systemctl reload ssh"]
    assert sorted(p.name for p in ssh.iterdir()) == ["sshd_config", "sshd_config.d", "trusted-user-ca-keys.pem"]

    assert node.run(content).returncode == 0
    assert node.calls() == []  # unchanged: no reload

    changed = node.run(ngc(render(keys=[CA2]), "dvp-ssh-ca-trust.sh")["spec"]["content"])
    assert changed.returncode == 0
    assert (ssh / "trusted-user-ca-keys.pem").read_text() == f"{CA2}\n"
    assert node.calls() == ["sshd -t", "systemctl reload ssh"]


def test_ca_script_fails_and_does_not_reload_when_sshd_refuses_its_configuration(tmp_path):
    node = Node(tmp_path, {}, sshd_ok=False)
    run = node.run(ngc(render(keys=[CA]), "dvp-ssh-ca-trust.sh")["spec"]["content"])
    assert run.returncode != 0
    assert node.calls() == ["sshd -t"]

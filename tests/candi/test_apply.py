# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The layouts applied by the real OpenTofu and provider against the real DVP API (kube-apiserver with the DVP
CRDs) while the DVP simulator plays DVP's controllers: VMs reach Running, outputs are right, plans replace a VM
only for a new boot disk, and destroy leaves nothing."""

import base64
import email
import hashlib
import ipaddress
import json

import pytest
import yaml
from dvp_common.dvp import resources as R
from dvp_common.kube.resources import SECRET, Resource

from sim import SimConfig, Simulator
from testkit.candi.layout_inputs import POOL, SSH_KEY, STATIC_IP, UUID, seed_parent, variables
from testkit.candi.tofu_runner import write_vars

pytestmark = pytest.mark.tools

NETWORK_POLICY = Resource("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy")
OURS = [R.VIRTUAL_MACHINE, R.VIRTUAL_DISK, R.VIRTUAL_MACHINE_IP_ADDRESS, SECRET, NETWORK_POLICY]


@pytest.fixture
def world(dvp_api):
    """A fresh project namespace with its own simulator, so a failed test leaves nothing for the next one."""
    client = dvp_api.client()
    seed_parent(client)
    ns = dvp_api.create_namespace("candi")
    sim = Simulator(dvp_api.client(), SimConfig(namespace=ns, default_latency=0.05, ip_pool=POOL, watch_timeout=1))
    sim.start()
    yield client, ns
    sim.stop()
    sim.client.close()
    client.close()


def apply(tofu, cwd):
    res = tofu.run(cwd, "apply", "-auto-approve", "-input=false", "-no-color", timeout=900)
    assert res.rc == 0, res.out
    out = tofu.run(cwd, "output", "-json")
    assert out.rc == 0, out.out
    return {k: v["value"] for k, v in json.loads(out.out).items()}


def planned_actions(tofu, cwd):
    res = tofu.run(cwd, "plan", "-input=false", "-no-color", "-out=tfplan", timeout=600)
    assert res.rc == 0, res.out
    show = tofu.run(cwd, "show", "-json", "tfplan")
    assert show.rc == 0, show.out
    return {c["address"]: c["change"]["actions"] for c in json.loads(show.out)["resource_changes"]
            if c["change"]["actions"] != ["no-op"] and c["mode"] == "managed"}


def running(client, ns, name, timeout=120):
    """The VM once DVP (the simulator) runs it: the layouts do not wait for that themselves."""
    return client.wait_for(R.VIRTUAL_MACHINE, name, lambda o: o and o.get("status", {}).get("phase") == "Running",
                           timeout, ns)


def ours(client, ns):
    return sorted(f"{res.kind}/{o['metadata']['name']}" for res in OURS
                  for o in client.list(res, ns, label_selector={"dvp.deckhouse.io/cluster-uuid": UUID}).items)


def destroy(tofu, cwd, client, ns):
    res = tofu.run(cwd, "destroy", "-auto-approve", "-input=false", "-no-color", timeout=900)
    assert res.rc == 0, res.out
    assert ours(client, ns) == []


VM = "module.master.module.vm.kubernetes_manifest.vm"
MASTER_OBJECTS = [
    "Secret/candi-master-0-cloudinit",
    "VirtualDisk/candi-master-0-additional-disk-0",
    "VirtualDisk/candi-master-0-kubernetes-data",
    f"VirtualDisk/candi-master-0-root-{hashlib.sha256(b'{\"kind\":\"ClusterVirtualImage\",\"name\":\"candi-ubuntu\"}').hexdigest()[:6]}",
    "VirtualMachine/candi-master-0",
    "VirtualMachineIPAddress/candi-master-0-10-77-0-50",
]


def test_master_node_apply_converge_and_destroy(tofu, dvp_api, world, tmp_path):
    client, ns = world
    kc = dvp_api.kubeconfig(ns)
    cwd = tofu.step(tmp_path, "master-node", variables(kc, ns))

    outputs = apply(tofu, cwd)
    vm = running(client, ns, "candi-master-0")
    etcd = client.get(R.VIRTUAL_DISK, "candi-master-0-kubernetes-data", ns)
    assert vm["status"]["phase"] == "Running"
    assert outputs == {
        "master_ip_address_for_ssh": STATIC_IP,
        "node_internal_ip_address": STATIC_IP,
        "kubernetes_data_device_path":
            "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_" + hashlib.md5(etcd["metadata"]["uid"].encode()).hexdigest(),  # noqa: S324 - DVP's serial
    }
    assert vm["status"]["ipAddress"] == STATIC_IP
    assert ours(client, ns) == MASTER_OBJECTS
    assert {k: v for k, v in vm["metadata"]["labels"].items() if "deckhouse.io" in k} == {
        "deckhouse.io/managed-by": "deckhouse",
        "dvp.deckhouse.io/cluster-uuid": UUID,
        "dvp.deckhouse.io/hostname": "candi-master-0",
        "dvp.deckhouse.io/component": "dhctl",
    }
    assert [d["name"] for d in vm["spec"]["blockDeviceRefs"]] == [
        MASTER_OBJECTS[3].split("/")[1], "candi-master-0-kubernetes-data", "candi-master-0-additional-disk-0"]
    secret = client.get(SECRET, "candi-master-0-cloudinit", ns)
    assert secret["type"] == "provisioning.virtualization.deckhouse.io/cloud-init"
    assert SSH_KEY in base64.b64decode(secret["data"]["userData"]).decode()

    # Converge with nothing changed: nothing to do; a fresh cloudConfig alone changes nothing either.
    assert planned_actions(tofu, cwd) == {}
    changed = variables(kc, ns, cloudConfig=base64.b64encode(b"#cloud-config\nruncmd: [[true]]\n").decode())
    write_vars(cwd, changed)
    assert planned_actions(tofu, cwd) == {}

    # More CPU and memory: the same VM object is updated in place.
    bigger = variables(kc, ns)
    bigger["instanceClasses"]["master"]["spec"]["virtualMachine"].update(cpu={"cores": 4}, memory={"size": "8Gi"})
    write_vars(cwd, bigger)
    assert planned_actions(tofu, cwd) == {VM: ["update"]}
    apply(tofu, cwd)
    after = client.get(R.VIRTUAL_MACHINE, "candi-master-0", ns)
    assert after["metadata"]["uid"] == vm["metadata"]["uid"]
    assert (after["spec"]["cpu"]["cores"], after["spec"]["memory"]["size"]) == (4, "8Gi")

    # A new static address: a new VirtualMachineIPAddress made before the old one goes; the VM is updated
    # (test_converge_rules.py applies it).
    moved = variables(kc, ns)
    moved["instanceClasses"]["master"]["spec"]["virtualMachine"].update(cpu={"cores": 4}, memory={"size": "8Gi"})
    moved["settings"]["spec"]["settings"]["nodes"]["parameters"]["ipAddresses"]["master"] = ["10.77.0.51"]
    write_vars(cwd, moved)
    assert planned_actions(tofu, cwd) == {
        VM: ["update"],
        "module.ipv4_address.kubernetes_manifest.address": ["create", "delete"],
        "module.ipv4_address.terraform_data.ready": ["update"],
    }

    # A new image: a new root disk, and the VM (with its cloud-init Secret) is replaced.
    new_image = variables(kc, ns)
    new_image["instanceClasses"]["master"]["spec"]["virtualMachine"].update(cpu={"cores": 4}, memory={"size": "8Gi"})
    new_image["instanceClasses"]["master"]["spec"]["rootDisk"]["image"]["name"] = "candi-ubuntu-next"
    write_vars(cwd, new_image)
    assert planned_actions(tofu, cwd) == {
        VM: ["delete", "create"],
        "module.master.module.vm.kubernetes_secret_v1.cloudinit": ["delete", "create"],
        "module.master.module.vm.terraform_data.boot_disk": ["update"],
        "module.root_disk.module.disk.kubernetes_manifest.disk": ["delete", "create"],
        "module.root_disk.module.disk.terraform_data.ready": ["update"],
    }
    outputs = apply(tofu, cwd)
    replaced = running(client, ns, "candi-master-0")
    assert replaced["metadata"]["uid"] != vm["metadata"]["uid"] and replaced["status"]["phase"] == "Running"
    new_root = "candi-master-0-root-" + hashlib.sha256(
        b'{"kind":"ClusterVirtualImage","name":"candi-ubuntu-next"}').hexdigest()[:6]
    assert replaced["spec"]["blockDeviceRefs"][0]["name"] == new_root
    assert ours(client, ns) == sorted([*MASTER_OBJECTS[:3], f"VirtualDisk/{new_root}", *MASTER_OBJECTS[4:]])
    # the address and the etcd disk survived the replacement
    assert outputs["master_ip_address_for_ssh"] == STATIC_IP
    kept = client.get(R.VIRTUAL_DISK, "candi-master-0-kubernetes-data", ns)
    assert kept["metadata"]["uid"] == etcd["metadata"]["uid"]

    destroy(tofu, cwd, client, ns)


def test_static_node_apply_and_destroy(tofu, dvp_api, world, tmp_path):
    client, ns = world
    kc = dvp_api.kubeconfig(ns)
    # Unquoted 0644 is octal and y a boolean for cloud-init's YAML 1.1: the document must reach it as written.
    written = b"#cloud-config\npackage_update: false\nwrite_files: [{path: /etc/x, permissions: 0644, content: y}]\n"
    cloud_config = base64.b64encode(written).decode()
    cwd = tofu.step(tmp_path, "static-node",
               variables(kc, ns, nodeGroupName="worker", nodeIndex=1, cloudConfig=cloud_config))

    outputs = apply(tofu, cwd)
    vm = running(client, ns, "candi-worker-1")
    assert ipaddress.ip_address(outputs["node_internal_ip_address"]) in ipaddress.ip_network(POOL)
    assert outputs == {"node_internal_ip_address": vm["status"]["ipAddress"]}
    assert vm["spec"]["virtualMachineIPAddressName"] == "candi-worker-1-auto"
    assert ours(client, ns) == [
        "Secret/candi-worker-1-cloudinit",
        "VirtualDisk/candi-worker-1-additional-disk-0", MASTER_OBJECTS[3].replace("master-0", "worker-1"),
        "VirtualMachine/candi-worker-1", "VirtualMachineIPAddress/candi-worker-1-auto"]
    user_data = base64.b64decode(client.get(SECRET, "candi-worker-1-cloudinit", ns)["data"]["userData"]).decode()
    message = email.message_from_string(user_data)
    assert message.get_content_type() == "multipart/mixed"
    parts = [p for p in message.walk() if not p.is_multipart()]
    assert [p.get_content_type() for p in parts] == ["text/cloud-config", "text/cloud-config"]
    assert parts[0].get_payload(decode=True) == written  # byte for byte
    assert parts[1]["Merge-Type"] == "dict(recurse_array,replace)+list(append)+str()"
    assert yaml.safe_load(parts[1].get_payload(decode=True)) == {
        "hostname": "candi-worker-1", "prefer_fqdn_over_hostname": False, "ssh_authorized_keys": [SSH_KEY],
        "users": ["default"]}

    destroy(tofu, cwd, client, ns)


def test_base_infrastructure_checks_the_parent_and_isolates_the_cluster(tofu, dvp_api, world, tmp_path):
    client, ns = world
    kc = dvp_api.kubeconfig(ns)
    cwd = tofu.step(tmp_path, "base-infrastructure", variables(kc, ns))

    outputs = apply(tofu, cwd)
    assert outputs == {"cloud_discovery_data": {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData",
                                                "layout": "Standard", "zones": ["default"]}}
    policy = client.get(NETWORK_POLICY, "candi-isolated", ns)
    assert policy["spec"]["podSelector"] == {"matchLabels": {"dvp.deckhouse.io/cluster-uuid": UUID}}
    assert policy["spec"]["ingress"][1]["ports"] == [{"protocol": "TCP", "port": 22}]
    destroy(tofu, cwd, client, ns)

    missing = variables(kc, ns)
    missing["instanceClasses"]["worker"]["spec"]["rootDisk"]["image"]["name"] = "no-such-image"
    write_vars(cwd, missing)
    res = tofu.run(cwd, "plan", "-input=false", "-no-color")
    assert res.rc == 1
    assert "rootDisk.image: ClusterVirtualImage/no-such-image not found" in " ".join(res.out.split())
    assert ours(client, ns) == []

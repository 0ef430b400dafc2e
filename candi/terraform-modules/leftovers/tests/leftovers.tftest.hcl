// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resources" {
    defaults = {
      objects = []
    }
  }
  // the provider's answer for a Secret that does not exist: the metadata asked for, no uid
  mock_data "kubernetes_secret_v1" {
    defaults = {
      metadata = { uid = "" }
    }
  }
}

variables {
  namespace        = "demo-ns"
  labels           = { "dvp.deckhouse.io/hostname" = "demo-worker-1", "dvp.deckhouse.io/cluster-uuid" = "u" }
  vm               = "demo-worker-1"
  secret           = "demo-worker-1-cloudinit"
  root_disk        = "demo-worker-1-root-abcdef"
  additional_disks = { "0" = "demo-worker-1-additional-disk-0", data = "demo-worker-1-additional-disk-data" }
}

run "nothing_exists_nothing_is_imported" {
  command = plan

  assert {
    condition     = length(output.secret) + length(output.root_disk) + length(output.kubernetes_data_disk) + length(output.additional_disks) == 0
    error_message = "secret: ${jsonencode(output.secret)}, root: ${jsonencode(output.root_disk)}, additional: ${jsonencode(output.additional_disks)}"
  }
}

// A kill while the address waited: the disks and the Secret exist, the VM not yet.
run "what_a_killed_apply_made_before_its_vm_is_named" {
  command = plan

  override_data {
    target = data.kubernetes_resources.disks
    values = { objects = [
      { metadata = { name = "demo-worker-1-root-abcdef" } },
      { metadata = { name = "demo-worker-1-root-012345" } }, // a disk of another image: not wanted
      { metadata = { name = "demo-worker-1-additional-disk-data" } },
    ] }
  }
  override_data {
    target = data.kubernetes_secret_v1.cloudinit
    values = { metadata = { uid = "0c3f" } }
  }

  assert {
    condition = jsonencode([output.root_disk, output.kubernetes_data_disk, output.additional_disks]) == jsonencode([
      { root = "apiVersion=virtualization.deckhouse.io/v1alpha2,kind=VirtualDisk,namespace=demo-ns,name=demo-worker-1-root-abcdef" },
      {},
      { data = "apiVersion=virtualization.deckhouse.io/v1alpha2,kind=VirtualDisk,namespace=demo-ns,name=demo-worker-1-additional-disk-data" },
    ])
    error_message = "root: ${jsonencode(output.root_disk)}, additional: ${jsonencode(output.additional_disks)}"
  }
  assert {
    condition     = output.secret == tomap({ secret = "demo-ns/demo-worker-1-cloudinit" })
    error_message = "secret: ${jsonencode(output.secret)}"
  }
  assert {
    condition     = data.kubernetes_resources.disks.label_selector == "dvp.deckhouse.io/cluster-uuid=u,dvp.deckhouse.io/hostname=demo-worker-1"
    error_message = "selector: ${data.kubernetes_resources.disks.label_selector}"
  }
}

// Once the VM exists its Secret is never taken back: the boot-disk marker made anew would replace it.
run "the_secret_of_an_existing_vm_is_left" {
  command = plan

  override_data {
    target = data.kubernetes_secret_v1.cloudinit
    values = { metadata = { uid = "0c3f" } }
  }
  override_data {
    target = data.kubernetes_resources.vms
    values = { objects = [{ metadata = { name = "demo-worker-1" } }] }
  }

  assert {
    condition     = length(output.secret) == 0
    error_message = "secret: ${jsonencode(output.secret)}"
  }
}

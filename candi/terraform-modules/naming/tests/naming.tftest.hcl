// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Expected hashes were computed independently (Python hashlib over the same JSON).

variables {
  prefix                = "Demo"
  node_group_name       = "master"
  node_index            = 1
  root_image            = { kind = "ClusterVirtualImage", name = "ubuntu-24-04" }
  ip_address            = "10.0.0.11"
  additional_disk_count = 2
}

run "names_of_a_node" {
  command = plan

  assert {
    condition     = output.hostname == "demo-master-1" && output.vm_name == "demo-master-1"
    error_message = "hostname: ${output.hostname}"
  }
  assert {
    condition     = output.root_disk_name == "demo-master-1-root-ab91fd"
    error_message = "root disk: ${output.root_disk_name}"
  }
  assert {
    condition     = output.kubernetes_data_disk_name == "demo-master-1-kubernetes-data"
    error_message = "kubernetes data disk: ${output.kubernetes_data_disk_name}"
  }
  assert {
    condition     = output.additional_disk_names == ["demo-master-1-additional-disk-0", "demo-master-1-additional-disk-1"]
    error_message = "additional disks: ${jsonencode(output.additional_disk_names)}"
  }
  assert {
    condition     = output.ip_address_name == "demo-master-1-10-0-0-11"
    error_message = "ip address: ${output.ip_address_name}"
  }
  assert {
    condition     = output.cloudinit_secret_name == "demo-master-1-cloudinit"
    error_message = "cloud-init secret: ${output.cloudinit_secret_name}"
  }
}

run "a_new_image_is_a_new_root_disk" {
  command = plan

  variables {
    root_image = { kind = "ClusterVirtualImage", name = "ubuntu-26-04" }
  }

  assert {
    condition     = output.root_disk_name == "demo-master-1-root-5ce1e9"
    error_message = "root disk: ${output.root_disk_name}"
  }
}

run "auto_address_name" {
  command = plan

  variables {
    ip_address = "Auto"
  }

  assert {
    condition     = output.ip_address_name == "demo-master-1-auto"
    error_message = "ip address: ${output.ip_address_name}"
  }
}

run "legacy_instance_class_name_trims_the_cut_and_hashes_the_whole_name" {
  command = plan

  variables {
    node_group_name = "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcde--x"
  }

  assert {
    condition     = output.instance_class_name == "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcde-641ac669c321"
    error_message = "instance class: ${output.instance_class_name}"
  }
}

// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Expected hashes were computed independently (Python hashlib over the same JSON).

variables {
  prefix               = "Demo"
  node_group_name      = "master"
  node_index           = 1
  root_image           = { kind = "ClusterVirtualImage", name = "ubuntu-24-04" }
  ip_address           = "10.0.0.11"
  additional_disk_keys = ["0", "logs"]
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
    condition     = jsonencode(output.additional_disk_names) == jsonencode({ "0" = "demo-master-1-additional-disk-0", logs = "demo-master-1-additional-disk-logs" })
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

run "disk_names_longer_than_a_label_value_are_cut_and_hashed" {
  command = plan

  variables {
    // hostname of 47 characters: "-kubernetes-data" makes 63, "-additional-disk-logs" 68
    prefix = "abcdefghij-abcdefghij-abcdefghij-abcde"
  }

  assert {
    condition     = output.kubernetes_data_disk_name == "abcdefghij-abcdefghij-abcdefghij-abcde-master-1-kubernetes-data"
    error_message = "kubernetes data disk: ${output.kubernetes_data_disk_name}"
  }
  assert {
    // 56 characters of the full name, then the first 6 hex of sha256 of the full name
    condition     = output.additional_disk_names["logs"] == "abcdefghij-abcdefghij-abcdefghij-abcde-master-1-addition-${substr(sha256("abcdefghij-abcdefghij-abcdefghij-abcde-master-1-additional-disk-logs"), 0, 6)}"
    error_message = "additional disk: ${output.additional_disk_names["logs"]}"
  }
  assert {
    condition     = alltrue([for n in values(output.additional_disk_names) : length(n) <= 63])
    error_message = "every disk name must fit a label value"
  }
}

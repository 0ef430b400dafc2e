// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Names of every DVP object of a node. Only the root disk name carries a hash: a new image needs a new
// disk (and so a new VM); everything else keeps its name and changes in place.

locals {
  hostname = lower("${var.prefix}-${var.node_group_name}-${var.node_index}")

  root_image_hash = var.root_image == null ? "" : substr(sha256(jsonencode({
    kind = var.root_image.kind
    name = var.root_image.name
  })), 0, 6)

  // Instance-class name of a legacy node group: 50 characters of the group name, then a hash of all of it,
  // so two long names sharing a prefix still differ.
  instance_class_name = "${replace(substr(var.node_group_name, 0, 50), "/-+$/", "")}-${substr(sha256(var.node_group_name), 0, 12)}"

  // Disk names are also their virtualDiskName label value, which Kubernetes caps at 63 characters: a longer name
  // keeps 56 characters and gets a hash of the whole name, so it stays unique and the same on every run.
  full_disk_names = merge(
    {
      root            = "${local.hostname}-root-${local.root_image_hash}"
      kubernetes_data = "${local.hostname}-kubernetes-data"
    },
    { for k in var.additional_disk_keys : "additional/${k}" => "${local.hostname}-additional-disk-${k}" },
  )
  disk_names = {
    for k, n in local.full_disk_names : k => length(n) <= 63 ? n : "${replace(substr(n, 0, 56), "/-+$/", "")}-${substr(sha256(n), 0, 6)}"
  }
}

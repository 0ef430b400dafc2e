// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resource" {
    defaults = {
      object = { metadata = { uid = "5a0e8d0c-1111-4222-8333-444455556666" } }
    }
  }
}

variables {
  namespace = "demo-ns"
  name      = "demo-master-0-kubernetes-data"
  labels    = { "dvp.deckhouse.io/hostname" = "demo-master-0" }
  size      = "15Gi"
}

run "empty_disk_on_the_default_class" {
  assert {
    condition = jsonencode(kubernetes_manifest.disk.manifest) == jsonencode({
      apiVersion = "virtualization.deckhouse.io/v1alpha2"
      kind       = "VirtualDisk"
      metadata = {
        name      = "demo-master-0-kubernetes-data"
        namespace = "demo-ns"
        labels    = { "dvp.deckhouse.io/hostname" = "demo-master-0", virtualDiskName = "demo-master-0-kubernetes-data" }
      }
      spec = { persistentVolumeClaim = { size = "15Gi" } }
    })
    error_message = "disk manifest: ${jsonencode(kubernetes_manifest.disk.manifest)}"
  }
  assert {
    condition     = kubernetes_manifest.disk.wait[0].fields == tomap({ "status.phase" = "^(Ready|WaitForFirstConsumer)$" })
    error_message = "the disk must be waited for"
  }
  assert {
    // md5 of the UID, computed independently
    condition     = output.md5_id == "1bd0769ae470c919fd03f159b22d5c61"
    error_message = "md5_id: ${output.md5_id}"
  }
}

run "disk_from_an_image_on_a_class" {
  variables {
    storage_class = "fast"
    data_source   = { type = "ObjectRef", objectRef = { kind = "ClusterVirtualImage", name = "ubuntu" } }
  }

  assert {
    condition = jsonencode(kubernetes_manifest.disk.manifest.spec) == jsonencode({
      persistentVolumeClaim = { size = "15Gi", storageClassName = "fast" }
      dataSource            = { type = "ObjectRef", objectRef = { kind = "ClusterVirtualImage", name = "ubuntu" } }
    })
    error_message = "disk spec: ${jsonencode(kubernetes_manifest.disk.manifest.spec)}"
  }
}

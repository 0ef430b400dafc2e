// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

mock_provider "kubernetes" {
  mock_data "kubernetes_resource" {
    defaults = {
      object = { metadata = { uid = "5a0e8d0c-1111-4222-8333-444455556666" } }
    }
  }
  mock_data "kubernetes_resources" {
    defaults = {
      objects = [{ metadata = { name = "fast" } }]
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
    // a wait that timed out on create would taint the disk (the etcd disk!): readiness is the read-back's
    condition     = length(kubernetes_manifest.disk.wait) == 0 && kubernetes_manifest.disk.field_manager[0].force_conflicts
    error_message = "the disk resource must not wait, and must own its fields"
  }
  assert {
    condition     = length(data.kubernetes_resources.storage_class) == 0
    error_message = "the DVP default class is not looked up"
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

run "a_disk_over_the_quota_fails_with_dvps_condition" {
  override_data {
    target = data.kubernetes_resource.disk
    values = {
      object = {
        metadata = { uid = "5a0e8d0c-1111-4222-8333-444455556666" }
        status = { phase = "Pending", conditions = [
          { type = "Ready", status = "False", reason = "QuotaExceeded", message = "exceeded quota: requests.storage" },
        ] }
      }
    }
  }

  expect_failures = [terraform_data.ready]
}

run "a_disk_still_provisioning_passes" {
  override_data {
    target = data.kubernetes_resource.disk
    values = {
      object = {
        metadata = { uid = "5a0e8d0c-1111-4222-8333-444455556666" }
        status = { phase = "Provisioning", conditions = [
          { type = "Ready", status = "False", reason = "Provisioning", message = "" },
        ] }
      }
    }
  }

  assert {
    condition     = output.md5_id == "1bd0769ae470c919fd03f159b22d5c61"
    error_message = "md5_id: ${output.md5_id}"
  }
}

run "a_missing_storage_class_is_refused_at_plan" {
  command = plan

  variables {
    storage_class = "gone"
    field         = "DVPInstanceClass \"m\": spec.etcdDisk"
  }

  override_data {
    target = data.kubernetes_resources.storage_class
    values = { objects = [] }
  }

  expect_failures = [data.kubernetes_resources.storage_class]
}

// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variables {
  namespace = "demo-ns"
  instance_classes = {
    m = { spec = {
      virtualMachine = { virtualMachineClassName = "generic" }
      rootDisk       = { image = { kind = "VirtualImage", name = "ubuntu" } }
    } }
    w = { spec = {
      virtualMachine = { virtualMachineClassName = "generic" }
      rootDisk       = { image = { kind = "ClusterVirtualImage", name = "ubuntu" } }
    } }
  }
}

run "everything_exists" {
  command = apply

  providers = {
    kubernetes = kubernetes.found
  }

  assert {
    condition     = jsonencode(terraform_data.checked.input) == jsonencode({ vm_classes = ["generic"], images = ["ClusterVirtualImage/ubuntu", "VirtualImage/ubuntu"] })
    error_message = "checked: ${jsonencode(terraform_data.checked.input)}"
  }
  assert {
    condition     = data.kubernetes_resources.image["VirtualImage/ubuntu"].namespace == "demo-ns" && data.kubernetes_resources.image["ClusterVirtualImage/ubuntu"].namespace == null
    error_message = "a VirtualImage is looked up in the project, a ClusterVirtualImage cluster-wide"
  }
  assert {
    condition     = data.kubernetes_resources.vm_class["generic"].field_selector == "metadata.name=generic"
    error_message = "the class is looked up by name"
  }
}

run "missing_class_or_image_fails_the_plan" {
  command = plan

  providers = {
    kubernetes = kubernetes.missing
  }

  expect_failures = [terraform_data.checked]
}

run "a_missing_namespace_names_the_module_config_field" {
  command = plan

  providers = {
    kubernetes = kubernetes.found
  }

  variables {
    namespace = ""
  }

  expect_failures = [var.namespace]
}

mock_provider "kubernetes" {
  alias = "found"
  mock_data "kubernetes_resources" {
    defaults = {
      objects = [{ metadata = { name = "x" } }]
    }
  }
}

mock_provider "kubernetes" {
  alias = "missing"
  mock_data "kubernetes_resources" {
    defaults = {
      objects = []
    }
  }
}

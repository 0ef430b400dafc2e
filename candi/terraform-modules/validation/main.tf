// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Fails the plan, with a message naming the object to fix, when a VirtualMachineClass or an image the
// instance classes name does not exist in the parent DVP cluster.

variable "namespace" {
  type = string

  validation {
    condition     = var.namespace != ""
    error_message = "ModuleConfig cloud-provider-dvp: spec.settings.provider.parameters.namespace is required (the DVP project namespace)."
  }
}

variable "instance_classes" {
  description = "DVPInstanceClass objects by name (the classes the layout will use)."
  type        = any
}

locals {
  vm_classes = toset([for name, ic in var.instance_classes : ic.spec.virtualMachine.virtualMachineClassName])
  images = {
    for name, ic in var.instance_classes :
    "${ic.spec.rootDisk.image.kind}/${ic.spec.rootDisk.image.name}" => ic.spec.rootDisk.image...
  }
  image_namespace = { ClusterVirtualImage = null, VirtualImage = var.namespace, VirtualDisk = var.namespace }
}

data "kubernetes_resources" "vm_class" {
  for_each = local.vm_classes

  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = "VirtualMachineClass"
  field_selector = "metadata.name=${each.key}"
}

data "kubernetes_resources" "image" {
  for_each = local.images

  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = each.value[0].kind
  namespace      = local.image_namespace[each.value[0].kind]
  field_selector = "metadata.name=${each.value[0].name}"
}

resource "terraform_data" "checked" {
  input = {
    vm_classes = sort(local.vm_classes)
    images     = sort(keys(local.images))
  }

  lifecycle {
    precondition {
      condition     = alltrue([for name, d in data.kubernetes_resources.vm_class : try(length(d.objects), 0) > 0])
      error_message = "virtualMachine.virtualMachineClassName: VirtualMachineClass ${join(", ", [for name, d in data.kubernetes_resources.vm_class : name if try(length(d.objects), 0) == 0])} not found in the parent DVP cluster."
    }
    precondition {
      condition     = alltrue([for key, d in data.kubernetes_resources.image : try(length(d.objects), 0) > 0])
      error_message = "rootDisk.image: ${join(", ", [for key, d in data.kubernetes_resources.image : key if try(length(d.objects), 0) == 0])} not found (a VirtualImage or VirtualDisk must be in namespace ${var.namespace})."
    }
  }
}

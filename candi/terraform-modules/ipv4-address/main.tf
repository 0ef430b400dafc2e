// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The node's VirtualMachineIPAddress. Owning it (rather than letting DVP make one per VM) keeps the address
// when the VM is replaced. A new static address is a new object, made before the old one goes.
//
// No create may leave state that blocks the next converge. A Static address never waits: its value is the input,
// and readiness is the read-back below, which reports DVP's reason when the address cannot be bound. An Auto
// address has to wait, since dhctl needs the address DVP allocates right after the apply; a wait that times out
// on create taints it, and a tainted resource is replaced, created before the old object goes. So that the
// replacement never meets the object it replaces (the provider never creates an object that exists), an Auto
// address is named after the node only while that name is free or in use: the one the node's VM uses, or one this
// module finished creating (it then marks it). Any other address of ours with that name is a creation that did
// not finish, and its replacement takes the next free name, <name>-<n>. The VM depends on the address, so it
// never points at one whose creation did not finish. Every unfinished address is then collected (resource
// "unfinished" below), whether the state holds it tainted or never held it.

variable "namespace" {
  type = string
}

variable "name" {
  description = "The address's name: <hostname>-<address with dots as dashes>, or <hostname>-auto."
  type        = string
}

variable "vm_name" {
  description = "The node's VirtualMachine, the one that uses this address."
  type        = string
}

variable "labels" {
  description = "The node's identity labels (they also find its addresses)."
  type        = map(string)
}

variable "address" {
  description = "An IPv4 address or \"Auto\"."
  type        = string

  validation {
    condition     = var.address == "Auto" || can(cidrhost("${var.address}/32", 0))
    error_message = "nodes.parameters.ipAddresses: each entry must be an IPv4 address or \"Auto\"."
  }
}

locals {
  auto = var.address == "Auto"
  // On an Auto address whose creation (and wait) finished; never on a Static one, which has nothing to wait for.
  created = "dvp.deckhouse.io/address-created"
}

// At plan: the node's addresses (for an Auto address, with the one its VM uses, to name the address, above; for
// any, to take back one a killed apply made, output import_id).
data "kubernetes_resources" "ours" {
  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = "VirtualMachineIPAddress"
  namespace      = var.namespace
  label_selector = join(",", [for k in sort(keys(var.labels)) : "${k}=${var.labels[k]}"])
}

data "kubernetes_resources" "vm" {
  count = local.auto ? 1 : 0

  api_version    = "virtualization.deckhouse.io/v1alpha2"
  kind           = "VirtualMachine"
  namespace      = var.namespace
  field_selector = "metadata.name=${var.vm_name}"
}

locals {
  ours    = { for o in flatten([try(data.kubernetes_resources.ours.objects, [])]) : try(format("%s", o.metadata.name), "") => o }
  vm_uses = try(format("%s", flatten([data.kubernetes_resources.vm[0].objects])[0].spec.virtualMachineIPAddressName), "")
  // The node's name first, then <name>-1, <name>-2 ...: one more than there are addresses, so one is always free.
  candidates = concat([var.name], [for k in range(1, length(local.ours) + 2) : "${var.name}-${k}"])
  in_use = [for n in local.candidates : n
  if contains(keys(local.ours), n) && (n == local.vm_uses || try(local.ours[n].metadata.annotations[local.created], "") != "")]
  unfinished = [for n in local.candidates : local.ours[n] if local.auto && contains(keys(local.ours), n) && !contains(local.in_use, n)]
  free       = [for n in local.candidates : n if !contains(keys(local.ours), n)]
  name       = !local.auto ? var.name : length(local.in_use) > 0 ? local.in_use[0] : local.free[0]
}

// The project's addresses holding an IP of DVP's pool, counted for the message on an empty pool.
data "kubernetes_resources" "project" {
  count = local.auto ? 1 : 0

  api_version = "virtualization.deckhouse.io/v1alpha2"
  kind        = "VirtualMachineIPAddress"
  namespace   = var.namespace
}

locals {
  held = local.auto ? length([for o in flatten([try(data.kubernetes_resources.project[0].objects, [])]) : o if try(format("%s", o.status.address), "") != ""]) : null
}

// An unfinished creation DVP says it cannot bind (an empty pool) stops the plan before another attempt waits.
module "unfinished_stuck" {
  source = "../address-stuck"

  namespace = var.namespace
  held      = local.held
  addresses = { for o in local.unfinished : format("%s", o.metadata.name) => { label = "Auto", object = o } }
}

// An unfinished creation the state never holds (an interrupted or killed apply: OpenTofu writes a local state at
// most every 20 seconds, and the provider records nothing of a create whose wait was cancelled) would stay, holding
// its IP. So each unfinished address is imported here (the layout's import blocks, output unfinished_import_ids;
// an import is skipped for one the state holds) and given an owner that does not exist, ConfigMap
// <name>-unfinished: the parent cluster's garbage collector deletes an object whose owners are all gone. A tainted
// one gets the owner too, before its replacement is made and deletes it. Once it is gone, the next plan lets the
// resource go.
locals {
  unfinished_names = [for o in local.unfinished : format("%s", o.metadata.name)]
  // A uid no object has: an owner of that name made later is still not this owner.
  no_owner = { apiVersion = "v1", kind = "ConfigMap", uid = "00000000-0000-0000-0000-000000000000" }
}

resource "kubernetes_manifest" "unfinished" {
  for_each = toset(local.unfinished_names)

  manifest = {
    apiVersion = "virtualization.deckhouse.io/v1alpha2"
    kind       = "VirtualMachineIPAddress"
    metadata = {
      name            = each.key
      namespace       = var.namespace
      labels          = var.labels
      ownerReferences = [merge(local.no_owner, { name = "${each.key}-unfinished" })]
    }
    spec = { type = "Auto" }
  }

  field_manager {
    force_conflicts = true
  }
}

resource "kubernetes_manifest" "address" {
  manifest = {
    apiVersion = "virtualization.deckhouse.io/v1alpha2"
    kind       = "VirtualMachineIPAddress"
    metadata = {
      name      = local.name
      namespace = var.namespace
      labels    = var.labels
    }
    // An object, not a map: the provider cannot fit a map missing staticIP into the CRD's object type.
    spec = { for k, v in {
      type     = local.auto ? "Auto" : "Static"
      staticIP = local.auto ? null : var.address
    } : k => v if v != null }
  }

  // Only an Auto address waits (for the address DVP allocates), until DVP is done with it: bound, or refused
  // (an empty pool), which the read-back below then reports at once instead of after the create timeout. The
  // provider's fields all have to match, and DVP's two conditions come in either order (address-stuck).
  dynamic "wait" {
    for_each = local.auto ? [true] : []
    content {
      fields = {
        "status.conditions[0].message" = module.unfinished_stuck.auto_settled_message
        "status.conditions[1].message" = module.unfinished_stuck.auto_settled_message
      }
    }
  }

  // The fields in the manifest are ours: a manual edit of them is taken back on the next converge.
  field_manager {
    force_conflicts = true
  }

  timeouts {
    create = "10m"
    update = "5m"
    delete = "5m"
  }

  // A tainted address has its owner before its replacement's apply deletes it.
  depends_on = [kubernetes_manifest.unfinished]

  lifecycle {
    create_before_destroy = true

    precondition {
      condition     = length(module.unfinished_stuck.lines) == 0
      error_message = join("\n", module.unfinished_stuck.lines)
    }
  }
}

// Reached only once the Auto address was created and DVP was done with it within the wait (bound, or refused: the
// address is then this node's, and the next converge checks it again instead of making another).
resource "kubernetes_annotations" "created" {
  count = local.auto ? 1 : 0

  api_version = "virtualization.deckhouse.io/v1alpha2"
  kind        = "VirtualMachineIPAddress"
  metadata {
    name      = kubernetes_manifest.address.manifest.metadata.name
    namespace = var.namespace
  }
  annotations = {
    (local.created) = "true"
  }
  // Not the address's field manager: its apply would take the annotation back.
  field_manager = "dhctl-address-created"
}

locals {
  // An address's import ID is this and its name.
  import_prefix = "apiVersion=virtualization.deckhouse.io/v1alpha2,kind=VirtualMachineIPAddress,namespace=${var.namespace},name="
}

// The address the plan wants, when it exists: the layout imports it, so one a killed apply made is taken back
// (an import is skipped for an object the state holds). An unfinished Auto address is never the one wanted.
output "import_id" {
  description = "{address = import ID} when the wanted address exists, else {}."
  value       = contains(keys(local.ours), local.name) ? { address = "${local.import_prefix}${local.name}" } : {}
}

output "unfinished_import_ids" {
  description = "name => import ID of every unfinished Auto address of the node."
  value       = { for n in local.unfinished_names : n => "${local.import_prefix}${n}" }
}

output "name" {
  description = "The address's name; referring to it makes the VM wait for the address."
  value       = kubernetes_manifest.address.manifest.metadata.name
}

// Read back after every apply and on every plan (kubernetes_manifest keeps no status in its state).
data "kubernetes_resource" "address" {
  api_version = "virtualization.deckhouse.io/v1alpha2"
  kind        = "VirtualMachineIPAddress"
  metadata {
    name      = kubernetes_manifest.address.manifest.metadata.name
    namespace = var.namespace
  }

  depends_on = [kubernetes_manifest.address, kubernetes_annotations.created]
}

module "stuck" {
  source = "../address-stuck"

  namespace = var.namespace
  held      = local.held
  addresses = { (local.name) = { label = var.address, object = try(data.kubernetes_resource.address.object, null) } }
}

// Readiness, apart from the address resource: it fails with DVP's Bound condition when the address cannot be
// bound by itself, and failing taints only this marker.
resource "terraform_data" "ready" {
  input = local.name

  lifecycle {
    precondition {
      condition     = length(module.stuck.lines) == 0
      error_message = join("\n", module.stuck.lines)
    }
  }
}

output "address" {
  description = "The node's internal address: the static one as configured, or the one DVP allocated."
  value       = local.auto ? try(format("%s", data.kubernetes_resource.address.object.status.address), "") : var.address
}

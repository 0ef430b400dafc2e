// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Which VirtualMachineIPAddresses DVP will not bind by itself, from their Bound condition: one line per such
// address naming it, its phase and DVP's reason and message. The reason code decides. DVP gives one reason,
// VirtualMachineIPAddressLeaseNotReady, both while it sets a lease up and when it cannot take one (another
// namespace's or another address's lease, an empty pool); for that reason alone the message decides, matched
// against DVP's own texts for the three cases (sim/CONTRACT.md C22), in each wording DVP has used: DVP v1.0 and
// v1.1 spelled the second "alrady"; DVP v1.10's rewrite of status messages left these unchanged. Any other message
// of that reason, and any reason not listed, is an address DVP is still working on.

variable "namespace" {
  type = string
}

variable "held" {
  description = "How many of the project's addresses hold an IP of DVP's pool, for the empty-pool hint; null: not counted."
  type        = number
  default     = null
}

variable "addresses" {
  // any, not a map of objects: the objects DVP returns differ in shape, and a map needs one type for all.
  description = "name => { label (the requested address, or \"Auto\"), object (as read from DVP, or null) }."
  type        = any
}

locals {
  stuck_reasons = ["VirtualMachineIPAddressIsOutOfTheValidRange", "VirtualMachineIPAddressLeaseAlreadyExists", "VirtualMachineIPAddressLeaseLost"]
  ambiguous     = "VirtualMachineIPAddressLeaseNotReady"
  stuck_messages = [
    "^The VirtualMachineIPAddressLease \"[^\"]+\" belongs to a different namespace\\.$",
    "^The VirtualMachineIPAddressLease \"[^\"]+\" (already|alrady) has a reference to another VirtualMachineIPAddress\\.$",
    "no remaining ips\\.?$",
  ]
  empty_pool = local.stuck_messages[2]
  // The project account sees neither the pool nor the other projects' leases: the hint names where the pool is
  // configured and what this project holds of it.
  pool_hint = " (DVP's pool of VM addresses, the virtualization module's virtualMachineCIDRs, has no free address${var.held == null ? "" : "; project ${var.namespace} holds ${var.held} of them"}: free one or widen the pool)"

  lines = flatten([for name, a in var.addresses : [for c in flatten([try(a.object.status.conditions, [])]) :
    "VirtualMachineIPAddress ${var.namespace}/${name} (${a.label}): phase ${try(format("%s", a.object.status.phase), "")}, Bound=False ${try(format("%s", c.reason), "")}: ${try(format("%s", c.message), "")}${can(regex(local.empty_pool, try(format("%s", c.message), ""))) ? local.pool_hint : ""}"
    if try(format("%s", c.type), "") == "Bound" && try(format("%s", c.status), "") == "False" && (
      contains(local.stuck_reasons, try(format("%s", c.reason), "")) || (
        try(format("%s", c.reason), "") == local.ambiguous &&
        anytrue([for m in local.stuck_messages : can(regex(m, try(format("%s", c.message), "")))])
      )
  )]])
}

// What an Auto address's create waits for: every condition's message is one DVP writes once it is done with the
// address. DVP sets two conditions (vmipcondition): Bound, whose message is empty when bound and one of the texts
// below when it cannot bind an Auto address, and Attached, whose two messages both count. Their order is that of
// DVP's handlers, which its API does not promise, so the wait matches either message at either place; the
// setting-up texts of Bound ("... has been created.", "Waiting for ...") match none, so the wait goes on.
output "auto_settled_message" {
  description = "A regular expression every condition message of a settled Auto address matches."
  value = join("", ["^(", join("|", [
    "",
    "Failed to allocate new IP address: no remaining ips\\.",
    "The VirtualMachineIPAddressLease \"[^\"]+\" doesn't exist\\.",
    "The IP address \"[^\"]+\" belongs to existing VirtualMachineIPAddressLease and cannot be taken\\.",
    "VirtualMachineIPAddress is not attached to any virtual machine\\.",
  ]), ")$"])
}

output "lines" {
  description = "One line per address DVP will not bind by itself; empty when there is none."
  value       = local.lines
}

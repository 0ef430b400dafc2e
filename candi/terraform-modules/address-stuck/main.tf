// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// Which VirtualMachineIPAddresses DVP will not bind by itself, from their Bound condition: one line per such
// address naming it, its phase and DVP's reason and message. The reason code decides. DVP gives one reason,
// VirtualMachineIPAddressLeaseNotReady, both while it sets a lease up and when it cannot take one (another
// namespace's or another address's lease, an empty pool); for that reason alone the message decides, matched
// against DVP's own texts for the three cases (testkit/dvp_sim/CONTRACT.md C22). Any other message of that
// reason, and any reason not listed, is an address DVP is still working on.

variable "namespace" {
  type = string
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
    "^The VirtualMachineIPAddressLease \"[^\"]+\" already has a reference to another VirtualMachineIPAddress\\.$",
    "no remaining ips\\.?$",
  ]

  lines = flatten([for name, a in var.addresses : [for c in flatten([try(a.object.status.conditions, [])]) :
    "VirtualMachineIPAddress ${var.namespace}/${name} (${a.label}): phase ${try(format("%s", a.object.status.phase), "")}, Bound=False ${try(format("%s", c.reason), "")}: ${try(format("%s", c.message), "")}"
    if try(format("%s", c.type), "") == "Bound" && try(format("%s", c.status), "") == "False" && (
      contains(local.stuck_reasons, try(format("%s", c.reason), "")) || (
        try(format("%s", c.reason), "") == local.ambiguous &&
        anytrue([for m in local.stuck_messages : can(regex(m, try(format("%s", c.message), "")))])
      )
  )]])
}

output "lines" {
  description = "One line per address DVP will not bind by itself; empty when there is none."
  value       = local.lines
}

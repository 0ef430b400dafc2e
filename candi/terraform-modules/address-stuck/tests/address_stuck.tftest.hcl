// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variables {
  namespace = "demo-ns"
}

run "every_stuck_reason_code_is_stuck_whatever_its_message" {
  variables {
    addresses = { for r in ["VirtualMachineIPAddressIsOutOfTheValidRange", "VirtualMachineIPAddressLeaseAlreadyExists", "VirtualMachineIPAddressLeaseLost"] :
      "a-${lower(r)}" => { label = "Auto", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = r, message = "" }] } } }
    }
  }

  assert {
    condition     = length(output.lines) == 3
    error_message = "lines: ${jsonencode(output.lines)}"
  }
  assert {
    condition     = contains(output.lines, "VirtualMachineIPAddress demo-ns/a-virtualmachineipaddressleaselost (Auto): phase Pending, Bound=False VirtualMachineIPAddressLeaseLost: ")
    error_message = "lines: ${jsonencode(output.lines)}"
  }
}

// DVP's one reason for setting up and for failing: only its three failure texts are stuck (the fallback).
run "lease_not_ready_is_stuck_only_with_dvps_failure_messages" {
  variables {
    addresses = {
      other-ns   = { label = "10.0.0.11", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "The VirtualMachineIPAddressLease \"ip-10-0-0-11\" belongs to a different namespace." }] } } }
      taken      = { label = "10.0.0.12", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "The VirtualMachineIPAddressLease \"ip-10-0-0-12\" already has a reference to another VirtualMachineIPAddress." }] } } }
      empty-pool = { label = "Auto", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "Failed to allocate new IP address: no remaining ips." }] } } }
      setting-up = { label = "10.0.0.13", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "Waiting for the VirtualMachineIPAddressLease \"ip-10-0-0-13\" to be bound." }] } } }
      quoted     = { label = "10.0.0.14", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "Checking whether \"belongs to a different namespace\" applies." }] } } }
    }
  }

  assert {
    condition = output.lines == [
      "VirtualMachineIPAddress demo-ns/empty-pool (Auto): phase Pending, Bound=False VirtualMachineIPAddressLeaseNotReady: Failed to allocate new IP address: no remaining ips. (DVP's pool of VM addresses, the virtualization module's virtualMachineCIDRs, has no free address: free one or widen the pool)",
      "VirtualMachineIPAddress demo-ns/other-ns (10.0.0.11): phase Pending, Bound=False VirtualMachineIPAddressLeaseNotReady: The VirtualMachineIPAddressLease \"ip-10-0-0-11\" belongs to a different namespace.",
      "VirtualMachineIPAddress demo-ns/taken (10.0.0.12): phase Pending, Bound=False VirtualMachineIPAddressLeaseNotReady: The VirtualMachineIPAddressLease \"ip-10-0-0-12\" already has a reference to another VirtualMachineIPAddress.",
    ]
    error_message = "lines: ${jsonencode(output.lines)}"
  }
}

// DVP v1.0 and v1.1 spelled the taken lease's text "alrady": the same address is stuck under either DVP.
run "a_taken_lease_is_stuck_in_dvp_v1_0s_wording_too" {
  variables {
    addresses = {
      taken = { label = "10.0.0.12", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "The VirtualMachineIPAddressLease \"ip-10-0-0-12\" alrady has a reference to another VirtualMachineIPAddress." }] } } }
    }
  }

  assert {
    condition = output.lines == [
      "VirtualMachineIPAddress demo-ns/taken (10.0.0.12): phase Pending, Bound=False VirtualMachineIPAddressLeaseNotReady: The VirtualMachineIPAddressLease \"ip-10-0-0-12\" alrady has a reference to another VirtualMachineIPAddress.",
    ]
    error_message = "lines: ${jsonencode(output.lines)}"
  }
}

run "bound_unknown_unread_and_new_reasons_are_not_stuck" {
  variables {
    addresses = {
      bound    = { label = "Auto", object = { status = { phase = "Bound", conditions = [{ type = "Bound", status = "True", reason = "Bound", message = "" }] } } }
      unknown  = { label = "Auto", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "Unknown", reason = "Unknown", message = "" }] } } }
      new      = { label = "Auto", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "SomeReasonDVPAddsLater", message = "no remaining ips." }] } } }
      attached = { label = "Auto", object = { status = { phase = "Pending", conditions = [{ type = "Attached", status = "False", reason = "VirtualMachineIPAddressLeaseLost", message = "" }] } } }
      unread   = { label = "Auto", object = null }
      fresh    = { label = "Auto", object = { metadata = { name = "fresh" } } }
    }
  }

  assert {
    condition     = output.lines == []
    error_message = "lines: ${jsonencode(output.lines)}"
  }
}

run "an_empty_pool_names_what_the_project_holds" {
  variables {
    held = 7
    addresses = {
      empty-pool = { label = "Auto", object = { status = { phase = "Pending", conditions = [{ type = "Bound", status = "False", reason = "VirtualMachineIPAddressLeaseNotReady", message = "Failed to allocate new IP address: no remaining ips." }] } } }
    }
  }

  assert {
    condition = output.lines == [
      "VirtualMachineIPAddress demo-ns/empty-pool (Auto): phase Pending, Bound=False VirtualMachineIPAddressLeaseNotReady: Failed to allocate new IP address: no remaining ips. (DVP's pool of VM addresses, the virtualization module's virtualMachineCIDRs, has no free address; project demo-ns holds 7 of them: free one or widen the pool)",
    ]
    error_message = "lines: ${jsonencode(output.lines)}"
  }
}

// The Auto wait's pattern: DVP's messages of a bound or refused address and both Attached messages match; the
// setting-up ones do not, nor a message that only contains a settled one.
run "the_auto_wait_ends_on_settled_messages_only" {
  variables {
    addresses = {}
  }

  assert {
    condition = alltrue([for m in [
      "",
      "Failed to allocate new IP address: no remaining ips.",
      "The VirtualMachineIPAddressLease \"ip-10-0-0-5\" doesn't exist.",
      "The IP address \"10.0.0.5\" belongs to existing VirtualMachineIPAddressLease and cannot be taken.",
      "VirtualMachineIPAddress is not attached to any virtual machine.",
    ] : can(regex(output.auto_settled_message, m))])
    error_message = "pattern: ${output.auto_settled_message}"
  }
  assert {
    condition = !anytrue([for m in [
      "The VirtualMachineIPAddressLease for the ip address \"10.0.0.5\" has been created.",
      "Waiting for the VirtualMachineIPAddressLease \"ip-10-0-0-5\" to be bound.",
      "Waiting for the reference of the VirtualMachineIPAddressLease \"ip-10-0-0-5\" to be updated.",
      "Waiting for the IP address to be allocated and a new VirtualMachineIPAddressLease to be created.",
      "Error occurred: Failed to allocate new IP address: no remaining ips.",
      "Failed to get attached virtual machine: list vms: timeout.",
    ] : can(regex(output.auto_settled_message, m))])
    error_message = "pattern: ${output.auto_settled_message}"
  }
}

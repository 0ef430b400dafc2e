// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variable "node_group_name" {
  type = string
}

variable "prefix" {
  description = "clusterConfiguration.cloud.prefix."
  type        = string
  default     = ""
}

variable "node_index" {
  type    = number
  default = 0
}

variable "root_image" {
  description = "The root disk image {kind, name}; its identity is part of the root disk name."
  type        = object({ kind = string, name = string })
  default     = null
}

variable "ip_address" {
  description = "The node's address: an IPv4 address or \"Auto\"."
  type        = string
  default     = "Auto"
}

variable "additional_disk_keys" {
  description = "Keys of the additional disks: the entry's name, or its index for an unnamed entry."
  type        = list(string)
  default     = []
}

// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variable "settings" {
  description = "ModuleConfig v2 settings (migration module output)."
  type        = any
}

variable "nodeGroups" {
  type = any
}

variable "instanceClasses" {
  type = any
}

variable "prefix" {
  type = string
}

variable "cluster_uuid" {
  type = string
}

variable "node_group_name" {
  type = string
}

variable "node_index" {
  type = number
}

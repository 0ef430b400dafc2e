// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The inputs dhctl passes to every layout, as it passes them (untyped objects).

variable "providerClusterConfiguration" {
  description = "Legacy DVPClusterConfiguration, or null."
  type        = any
  default     = null
}

variable "settings" {
  description = "The cloud-provider-dvp ModuleConfig object (spec.version, spec.settings)."
  type        = any
  default     = null
}

variable "nodeGroups" {
  description = "NodeGroup objects by name."
  type        = any
  default     = {}
}

variable "instanceClasses" {
  description = "DVPInstanceClass objects by name."
  type        = any
  default     = {}
}

variable "secrets" {
  description = "Credential Secret objects by name."
  type        = any
  default     = {}
}

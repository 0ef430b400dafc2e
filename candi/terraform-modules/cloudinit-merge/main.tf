// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The VM's cloud-init user data: dhctl's bashible cloud-config merged, as YAML, with what the node needs on
// first boot (hostname, the SSH key, extra users, SSH user-CA keys). A structural merge keeps one valid
// document whatever dhctl's cloud-config already sets.

variable "cloud_config" {
  description = "dhctl's cloudConfig: a base64 #cloud-config document, or empty (first master)."
  type        = string
  default     = ""

  validation {
    condition     = var.cloud_config == "" || can(keys(yamldecode(base64decode(var.cloud_config))))
    error_message = "cloudConfig: not a base64-encoded #cloud-config YAML mapping."
  }
}

variable "hostname" {
  type = string
}

variable "ssh_public_key" {
  type = string
}

variable "additional_users" {
  description = "Extra Linux users (no keys, passwordless sudo)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for u in var.additional_users : can(regex("^[a-z_][a-z0-9_.-]{0,31}$", u)) && u != "default"])
    error_message = "nodes.parameters.additionalUsers: every name must match ^[a-z_][a-z0-9_.-]{0,31}$ and not be \"default\"."
  }
}

variable "ssh_ca_keys" {
  description = "SSH user-CA public keys trusted by sshd."
  type        = list(string)
  default     = []
}

locals {
  // Through JSON, because an empty object and the decoded document have different types.
  base = jsondecode(var.cloud_config == "" ? "{}" : jsonencode(yamldecode(base64decode(var.cloud_config))))

  ca_file   = "/etc/ssh/trusted-user-ca-keys.pem"
  ca_config = "/etc/ssh/sshd_config.d/50-trusted-ca.conf"

  users = concat(
    try(local.base.users, ["default"]),
    [for u in var.additional_users : {
      name        = u
      shell       = "/bin/bash"
      sudo        = "ALL=(ALL) NOPASSWD:ALL"
      lock_passwd = true
    }],
  )

  ca_files = length(var.ssh_ca_keys) == 0 ? [] : [
    { path = local.ca_file, permissions = "0644", content = "${join("\n", var.ssh_ca_keys)}\n" },
    { path = local.ca_config, permissions = "0644", content = "TrustedUserCAKeys ${local.ca_file}\n" },
  ]
  // Older sshd_config files lack the Include of sshd_config.d; add it once, then reload whichever unit exists.
  ca_commands = length(var.ssh_ca_keys) == 0 ? [] : [[
    "sh", "-c",
    "grep -q '^Include /etc/ssh/sshd_config.d/' /etc/ssh/sshd_config || sed -i '1i Include /etc/ssh/sshd_config.d/*.conf' /etc/ssh/sshd_config; systemctl reload ssh || systemctl reload sshd",
  ]]

  merged = merge(local.base, {
    hostname                  = var.hostname
    prefer_fqdn_over_hostname = false
    ssh_authorized_keys       = distinct(concat(try(local.base.ssh_authorized_keys, []), [var.ssh_public_key]))
    users                     = local.users
    }, { for k, v in {
      write_files = concat(try(local.base.write_files, []), local.ca_files)
      runcmd      = concat(try(local.base.runcmd, []), local.ca_commands)
  } : k => v if length(var.ssh_ca_keys) > 0 })
}

output "user_data" {
  value = "#cloud-config\n${yamlencode(local.merged)}"
}

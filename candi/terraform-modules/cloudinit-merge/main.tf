// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// The VM's cloud-init user data: dhctl's bashible cloud-config and a part with what the node needs on first boot
// (hostname, the SSH key, extra users, SSH user-CA keys). dhctl's document is passed byte for byte, as its own
// part of a MIME multipart message: decoding and re-encoding it would change what cloud-init reads (YAML 1.1
// takes an unquoted 0644 as an octal number and y/n as booleans). cloud-init merges our part into it: lists
// are appended, the hostname replaced.

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
  // Read only to learn what dhctl's document already sets; it is never re-encoded.
  // Through JSON, because an empty object and the decoded document have different types.
  base = jsondecode(var.cloud_config == "" ? "{}" : jsonencode(yamldecode(base64decode(var.cloud_config))))

  ca_file   = "/etc/ssh/trusted-user-ca-keys.pem"
  ca_config = "/etc/ssh/sshd_config.d/50-trusted-ca.conf"

  extra_users = [for u in var.additional_users : {
    name        = u
    shell       = "/bin/bash"
    sudo        = "ALL=(ALL) NOPASSWD:ALL"
    lock_passwd = true
  }]
  // A document without users gets cloud-init's default user; one with users keeps them and gets ours appended.
  users = concat(can(local.base.users) ? [] : ["default"], local.extra_users)
  keys  = contains(try(local.base.ssh_authorized_keys, []), var.ssh_public_key) ? [] : [var.ssh_public_key]

  ca_files = length(var.ssh_ca_keys) == 0 ? [] : [
    { path = local.ca_file, permissions = "0644", content = "${join("\n", var.ssh_ca_keys)}\n" },
    { path = local.ca_config, permissions = "0644", content = "TrustedUserCAKeys ${local.ca_file}\n" },
  ]
  // Older sshd_config files lack the Include of sshd_config.d; add it once, then reload whichever unit exists.
  ca_commands = length(var.ssh_ca_keys) == 0 ? [] : [[
    "sh", "-c",
    "grep -q '^Include /etc/ssh/sshd_config.d/' /etc/ssh/sshd_config || sed -i '1i Include /etc/ssh/sshd_config.d/*.conf' /etc/ssh/sshd_config; systemctl reload ssh || systemctl reload sshd",
  ]]

  // Empty lists are left out, so our part never clears anything of dhctl's.
  node_part = { for k, v in {
    hostname                  = var.hostname
    prefer_fqdn_over_hostname = false
    ssh_authorized_keys       = local.keys
    users                     = local.users
    write_files               = local.ca_files
    runcmd                    = local.ca_commands
  } : k => v if try(length(v) > 0, true) }

  node_document = "#cloud-config\n${yamlencode(local.node_part)}"
  boundary      = "dvp-cloud-init-part" // base64 has no "-", so no encoded line can be mistaken for it
  merge_type    = "dict(recurse_array,replace)+list(append)+str()"
  multipart = join("\r\n", [
    "Content-Type: multipart/mixed; boundary=\"${local.boundary}\"",
    "MIME-Version: 1.0",
    "",
    "--${local.boundary}",
    "Content-Type: text/cloud-config; charset=\"utf-8\"",
    "Content-Transfer-Encoding: base64",
    "",
    var.cloud_config,
    "--${local.boundary}",
    "Content-Type: text/cloud-config; charset=\"utf-8\"",
    "Content-Transfer-Encoding: base64",
    "Merge-Type: ${local.merge_type}",
    "",
    base64encode(local.node_document),
    "--${local.boundary}--",
    "",
  ])
}

output "user_data" {
  value = var.cloud_config == "" ? local.node_document : local.multipart
}

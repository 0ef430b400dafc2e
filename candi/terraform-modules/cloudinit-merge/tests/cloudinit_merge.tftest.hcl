// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variables {
  hostname       = "demo-master-0"
  ssh_public_key = "ssh-ed25519 AAAAkey user@host"
}

run "first_master_without_cloud_config" {
  command = plan

  assert {
    condition     = startswith(output.user_data, "#cloud-config\n")
    error_message = "user data must be a cloud-config document"
  }
  assert {
    condition = yamldecode(output.user_data) == {
      hostname                  = "demo-master-0"
      prefer_fqdn_over_hostname = false
      ssh_authorized_keys       = ["ssh-ed25519 AAAAkey user@host"]
      users                     = ["default"]
    }
    error_message = "user data: ${output.user_data}"
  }
}

run "bashible_cloud_config_is_merged_not_appended" {
  command = plan

  variables {
    cloud_config = base64encode(<<-YAML
      #cloud-config
      package_update: false
      ssh_authorized_keys: ["ssh-rsa AAAAother"]
      write_files:
        - path: /var/lib/bashible/bootstrap.sh
          content: "echo hi"
      runcmd: [["/var/lib/bashible/bootstrap.sh"]]
      YAML
    )
    additional_users = ["ops"]
    ssh_ca_keys      = ["ssh-ed25519 AAAAca ca"]
  }

  assert {
    condition = yamldecode(output.user_data) == {
      package_update            = false
      hostname                  = "demo-master-0"
      prefer_fqdn_over_hostname = false
      ssh_authorized_keys       = ["ssh-rsa AAAAother", "ssh-ed25519 AAAAkey user@host"]
      users = ["default", {
        name        = "ops"
        shell       = "/bin/bash"
        sudo        = "ALL=(ALL) NOPASSWD:ALL"
        lock_passwd = true
      }]
      write_files = [
        { path = "/var/lib/bashible/bootstrap.sh", content = "echo hi" },
        { path = "/etc/ssh/trusted-user-ca-keys.pem", permissions = "0644", content = "ssh-ed25519 AAAAca ca\n" },
        { path = "/etc/ssh/sshd_config.d/50-trusted-ca.conf", permissions = "0644", content = "TrustedUserCAKeys /etc/ssh/trusted-user-ca-keys.pem\n" },
      ]
      runcmd = [
        ["/var/lib/bashible/bootstrap.sh"],
        ["sh", "-c", "grep -q '^Include /etc/ssh/sshd_config.d/' /etc/ssh/sshd_config || sed -i '1i Include /etc/ssh/sshd_config.d/*.conf' /etc/ssh/sshd_config; systemctl reload ssh || systemctl reload sshd"],
      ]
    }
    error_message = "user data: ${output.user_data}"
  }
}

run "the_same_key_is_listed_once" {
  command = plan

  variables {
    cloud_config = base64encode("ssh_authorized_keys: [\"ssh-ed25519 AAAAkey user@host\"]\n")
  }

  assert {
    condition     = yamldecode(output.user_data).ssh_authorized_keys == ["ssh-ed25519 AAAAkey user@host"]
    error_message = "user data: ${output.user_data}"
  }
}

run "cloud_config_that_is_not_yaml_is_rejected" {
  command = plan

  variables {
    cloud_config = base64encode("#!/bin/sh\necho not a cloud-config\n")
  }

  expect_failures = [var.cloud_config]
}

run "bad_user_name_is_rejected" {
  command = plan

  variables {
    additional_users = ["Root!"]
  }

  expect_failures = [var.additional_users]
}

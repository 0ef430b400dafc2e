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

run "bashible_cloud_config_is_passed_verbatim_with_the_node_part" {
  command = plan

  variables {
    // Unquoted 0644 (octal for cloud-init's YAML 1.1) and y/n (booleans there) must reach cloud-init as written.
    cloud_config = base64encode(<<-YAML
      #cloud-config
      package_update: false
      ssh_authorized_keys: ["ssh-rsa AAAAother"]
      write_files:
        - path: /var/lib/bashible/bootstrap.sh
          permissions: 0644
          content: "echo hi"
      apt: {conf: {Assume-Yes: y, Quiet: n}}
      runcmd: [["/var/lib/bashible/bootstrap.sh"]]
      YAML
    )
    additional_users = ["ops"]
    ssh_ca_keys      = ["ssh-ed25519 AAAAca ca"]
  }

  assert {
    condition = output.user_data == join("\r\n", [
      "Content-Type: multipart/mixed; boundary=\"dvp-cloud-init-part\"",
      "MIME-Version: 1.0",
      "",
      "--dvp-cloud-init-part",
      "Content-Type: text/cloud-config; charset=\"utf-8\"",
      "Content-Transfer-Encoding: base64",
      "",
      var.cloud_config,
      "--dvp-cloud-init-part",
      "Content-Type: text/cloud-config; charset=\"utf-8\"",
      "Content-Transfer-Encoding: base64",
      "Merge-Type: dict(recurse_array,replace)+list(append)+str()",
      "",
      split("\r\n", output.user_data)[13],
      "--dvp-cloud-init-part--",
      "",
    ])
    error_message = "user data: ${output.user_data}"
  }
  assert {
    condition     = startswith(base64decode(split("\r\n", output.user_data)[13]), "#cloud-config\n")
    error_message = "the node part must be a cloud-config document"
  }
  assert {
    // dhctl's document has users of its own? No: so the default user comes first. Lists are appended by
    // cloud-init (Merge-Type), so the node part lists only what it adds.
    condition = yamldecode(base64decode(split("\r\n", output.user_data)[13])) == {
      hostname                  = "demo-master-0"
      prefer_fqdn_over_hostname = false
      ssh_authorized_keys       = ["ssh-ed25519 AAAAkey user@host"]
      users = ["default", {
        name        = "ops"
        shell       = "/bin/bash"
        sudo        = "ALL=(ALL) NOPASSWD:ALL"
        lock_passwd = true
      }]
      write_files = [
        { path = "/etc/ssh/trusted-user-ca-keys.pem", permissions = "0644", content = "ssh-ed25519 AAAAca ca\n" },
        { path = "/etc/ssh/sshd_config.d/50-trusted-ca.conf", permissions = "0644", content = "TrustedUserCAKeys /etc/ssh/trusted-user-ca-keys.pem\n" },
      ]
      runcmd = [
        ["sh", "-c", "grep -q '^Include /etc/ssh/sshd_config.d/' /etc/ssh/sshd_config || sed -i '1i Include /etc/ssh/sshd_config.d/*.conf' /etc/ssh/sshd_config; systemctl reload ssh || systemctl reload sshd"],
      ]
    }
    error_message = "node part: ${base64decode(split("\r\n", output.user_data)[13])}"
  }
  assert {
    // quoted on our side, so YAML 1.1 reads a string as well
    condition     = strcontains(base64decode(split("\r\n", output.user_data)[13]), "\"permissions\": \"0644\"")
    error_message = "node part: ${base64decode(split("\r\n", output.user_data)[13])}"
  }
}

run "users_of_the_bashible_document_are_kept" {
  command = plan

  variables {
    cloud_config = base64encode("#cloud-config\nusers: [{name: bashible}]\n")
  }

  assert {
    condition     = !can(yamldecode(base64decode(split("\r\n", output.user_data)[13])).users)
    error_message = "without extra users the node part must leave users alone: ${base64decode(split("\r\n", output.user_data)[13])}"
  }
}

run "a_key_the_bashible_document_has_is_not_added_again" {
  command = plan

  variables {
    cloud_config = base64encode("ssh_authorized_keys: [\"ssh-ed25519 AAAAkey user@host\"]\n")
  }

  assert {
    condition     = !can(yamldecode(base64decode(split("\r\n", output.user_data)[13])).ssh_authorized_keys)
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

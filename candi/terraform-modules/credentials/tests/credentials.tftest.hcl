// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variables {
  secrets = {
    d8-credentials = {
      stringData = {
        authScheme = "kubeconfig"
        secret = base64encode(yamlencode({
          apiVersion        = "v1"
          kind              = "Config"
          "current-context" = "sa"
          contexts = [
            { name = "other", context = { cluster = "c1", user = "u1" } },
            { name = "sa", context = { cluster = "c2", user = "u2" } },
          ]
          clusters = [
            { name = "c1", cluster = { server = "https://wrong:6443" } },
            { name = "c2", cluster = { server = "https://dvp.example:6443", "certificate-authority-data" = base64encode("CA PEM") } },
          ]
          users = [
            { name = "u1", user = { token = "wrong" } },
            { name = "u2", user = { token = "sa-token" } },
          ]
        }))
      }
    }
  }
}

run "current_context_is_resolved" {
  command = plan

  assert {
    condition     = output.host == "https://dvp.example:6443" && output.cluster_ca_certificate == "CA PEM"
    error_message = "host ${output.host}"
  }
  assert {
    condition     = nonsensitive(output.token) == "sa-token" && output.insecure == false && output.client_certificate == null
    error_message = "the token of the current context's user must be used"
  }
}

run "secret_read_back_from_the_api_has_data" {
  command = plan

  variables {
    secrets = {
      d8-credentials = {
        data = {
          secret = base64encode(base64encode(yamlencode({
            contexts = [{ name = "only", context = { cluster = "c", user = "u" } }]
            clusters = [{ name = "c", cluster = { server = "https://127.0.0.1:6443", "insecure-skip-tls-verify" = true } }]
            users    = [{ name = "u", user = { "client-certificate-data" = base64encode("CERT"), "client-key-data" = base64encode("KEY") } }]
          })))
        }
      }
    }
  }

  assert {
    condition     = output.host == "https://127.0.0.1:6443" && output.insecure == true && output.client_certificate == "CERT"
    error_message = "host ${output.host}"
  }
  assert {
    condition     = nonsensitive(output.client_key) == "KEY" && output.token == null && output.cluster_ca_certificate == null
    error_message = "client certificate credentials must be read"
  }
}

run "a_missing_secret_names_it" {
  command = plan

  variables {
    secrets = {}
  }

  expect_failures = [output.host]

  assert {
    condition     = output.problem == "Secret d8-cloud-provider-dvp/d8-credentials: not found (the credentials Secret of ModuleConfig cloud-provider-dvp; the installer's secrets hold [])"
    error_message = "problem: ${output.problem}"
  }
}

run "a_missing_context_names_it" {
  command = plan

  variables {
    secrets = { d8-credentials = { stringData = { secret = base64encode(yamlencode({
      "current-context" = "gone"
      contexts          = [{ name = "sa", context = { cluster = "c", user = "u" } }]
      clusters          = [{ name = "c", cluster = { server = "https://dvp.example:6443" } }]
      users             = [{ name = "u", user = { token = "t" } }]
    })) } } }
  }

  expect_failures = [output.host]

  assert {
    condition     = output.problem == "Secret d8-cloud-provider-dvp/d8-credentials: the kubeconfig has no context \"gone\" (current-context, else the first context)"
    error_message = "problem: ${output.problem}"
  }
}

run "a_secret_that_is_not_a_kubeconfig_names_its_key" {
  command = plan

  variables {
    secrets = { d8-credentials = { stringData = { authScheme = "kubeconfig" } } }
  }

  expect_failures = [output.host]

  assert {
    condition     = output.problem == "Secret d8-cloud-provider-dvp/d8-credentials: the key \"secret\" (a base64 kubeconfig of the parent DVP cluster) is missing"
    error_message = "problem: ${output.problem}"
  }
}

// The one encoding: base64 wrapped in lines (CR/LF ignored) reads as the hook, the webhook and the components read it.
run "secret_wrapped_in_lines_is_read" {
  command = plan

  variables {
    secrets = {
      d8-credentials = {
        stringData = {
          secret = join("\r\n", regexall(".{1,64}", base64encode(yamlencode({
            contexts = [{ name = "only", context = { cluster = "c", user = "u" } }]
            clusters = [{ name = "c", cluster = { server = "https://dvp.example:6443" } }]
            users    = [{ name = "u", user = { token = "sa-token" } }]
          }))))
        }
      }
    }
  }

  assert {
    condition     = output.host == "https://dvp.example:6443" && nonsensitive(output.token) == "sa-token"
    error_message = "host ${output.host}"
  }
}

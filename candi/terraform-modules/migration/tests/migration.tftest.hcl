// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

variables {
  providerClusterConfiguration = {
    apiVersion   = "deckhouse.io/v1"
    kind         = "DVPClusterConfiguration"
    layout       = "Standard"
    sshPublicKey = "ssh-ed25519 AAAAkey user@host"
    zones        = ["zone-a"]
    provider = {
      kubeconfigDataBase64 = "a3ViZWNvbmZpZw=="
      namespace            = "demo"
      ingressPorts         = [22, 6443]
    }
    masterNodeGroup = {
      replicas = 3
      instanceClass = {
        virtualMachine = {
          cpu                     = { cores = 4 }
          memory                  = { size = "8Gi" }
          virtualMachineClassName = "generic"
          ipAddresses             = ["10.0.0.11", "Auto"]
          additionalLabels        = { team = "a" }
        }
        rootDisk         = { size = "50Gi", image = { kind = "ClusterVirtualImage", name = "ubuntu" } }
        etcdDisk         = { size = "15Gi", storageClass = "fast" }
        additionalLabels = { legacy = "yes" }
      }
    }
    nodeGroups = [{
      name     = "a-very-long-node-group-name-that-is-longer-than-fifty-characters-x"
      replicas = 2
      zones    = ["zone-a"]
      instanceClass = {
        virtualMachine = { cpu = { cores = 2 }, memory = { size = "4Gi" }, virtualMachineClassName = "generic" }
        rootDisk       = { size = "30Gi", image = { kind = "VirtualImage", name = "ubuntu" } }
      }
    }]
  }
}

run "legacy_configuration_becomes_v2_objects" {
  command = plan

  assert {
    condition     = output.source == "providerClusterConfiguration"
    error_message = "the legacy configuration must be used when no v2 objects are given"
  }
  assert {
    condition = output.settings == {
      provider = { parameters = { namespace = "demo", networkPolicy = "Isolated" } }
      nodes = { parameters = {
        layout       = "Standard"
        sshPublicKey = "ssh-ed25519 AAAAkey user@host"
        zones        = ["zone-a"]
        ipAddresses  = { master = ["10.0.0.11", "Auto"] }
        ingressPorts = [22, 6443]
      } }
    }
    error_message = "settings: ${jsonencode(output.settings)}"
  }
  assert {
    condition     = keys(output.instanceClasses) == ["a-very-long-node-group-name-that-is-longer-than-fi-22e0086ba964", "master-fc613b4dfd67"]
    error_message = "instance class names: ${jsonencode(keys(output.instanceClasses))}"
  }
  assert {
    condition = output.instanceClasses["master-fc613b4dfd67"].spec == {
      virtualMachine = {
        cpu                     = { cores = 4 }
        memory                  = { size = "8Gi" }
        virtualMachineClassName = "generic"
        additionalLabels        = { team = "a", legacy = "yes" }
      }
      rootDisk = { size = "50Gi", image = { kind = "ClusterVirtualImage", name = "ubuntu" } }
      etcdDisk = { size = "15Gi", storageClass = "fast" }
    }
    error_message = "master class: ${jsonencode(output.instanceClasses["master-fc613b4dfd67"].spec)}"
  }
  assert {
    condition = output.nodeGroups["master"].spec == {
      nodeType = "CloudPermanent"
      cloudInstances = {
        classReference = { kind = "DVPInstanceClass", name = "master-fc613b4dfd67" }
        minPerZone     = 3
        maxPerZone     = 3
      }
    }
    error_message = "master group: ${jsonencode(output.nodeGroups["master"].spec)}"
  }
  assert {
    condition     = output.nodeGroups["a-very-long-node-group-name-that-is-longer-than-fifty-characters-x"].spec.cloudInstances.zones == ["zone-a"]
    error_message = "static group zones must be kept"
  }
  assert {
    condition = output.secrets == {
      d8-credentials = {
        apiVersion = "v1"
        kind       = "Secret"
        metadata   = { name = "d8-credentials", namespace = "d8-cloud-provider-dvp" }
        type       = "cloud-provider.deckhouse.io/credentials"
        stringData = { authScheme = "kubeconfig", secret = "a3ViZWNvbmZpZw==" }
      }
    }
    error_message = "credentials: ${jsonencode(output.secrets)}"
  }
}

run "complete_v2_objects_win_over_the_legacy_configuration" {
  command = plan

  variables {
    settings = {
      apiVersion = "deckhouse.io/v1alpha1"
      kind       = "ModuleConfig"
      spec = {
        version  = 2
        settings = { provider = { parameters = { namespace = "v2ns" } } }
      }
    }
    nodeGroups      = { master = { spec = { nodeType = "CloudPermanent", cloudInstances = { classReference = { kind = "DVPInstanceClass", name = "m" } } } } }
    instanceClasses = { m = { spec = { virtualMachine = { virtualMachineClassName = "c" } } } }
    secrets         = { d8-credentials = { stringData = { authScheme = "kubeconfig", secret = "eA==" } } }
  }

  assert {
    condition     = output.source == "v2"
    error_message = "complete v2 objects must be used"
  }
  assert {
    condition     = output.settings == { provider = { parameters = { namespace = "v2ns" } } }
    error_message = "settings must be spec.settings of the ModuleConfig"
  }
  assert {
    condition     = keys(output.instanceClasses) == ["m"] && keys(output.secrets) == ["d8-credentials"]
    error_message = "v2 objects must pass through unchanged"
  }
}

run "incomplete_v2_objects_fall_back_to_the_legacy_configuration" {
  command = plan

  variables {
    settings        = { spec = { version = 2, settings = {} } }
    nodeGroups      = { master = { spec = { cloudInstances = { classReference = { name = "m" } } } } }
    instanceClasses = { m = { spec = {} } }
    // no credentials Secret yet
  }

  assert {
    condition     = output.source == "providerClusterConfiguration"
    error_message = "a v2 set without the credentials Secret is not complete"
  }
}

run "module_config_v1_is_not_complete" {
  command = plan

  variables {
    settings        = { spec = { version = 1, settings = {} } }
    nodeGroups      = { master = { spec = { cloudInstances = { classReference = { name = "m" } } } } }
    instanceClasses = { m = { spec = {} } }
    secrets         = { d8-credentials = { stringData = { secret = "eA==" } } }
  }

  assert {
    condition     = output.source == "providerClusterConfiguration"
    error_message = "ModuleConfig version 1 must not count as v2"
  }
}

run "no_legacy_configuration_passes_v2_through" {
  command = plan

  variables {
    providerClusterConfiguration = null
    settings                     = { spec = { version = 2, settings = { nodes = {} } } }
  }

  assert {
    condition     = output.source == "v2" && output.settings == { nodes = {} } && output.secrets == {}
    error_message = "without a legacy configuration the inputs pass through"
  }
}

run "legacy_ssh_ca_keys_become_settings" {
  command = plan

  variables {
    providerClusterConfiguration = {
      layout          = "Standard"
      sshPublicKey    = "ssh-ed25519 AAAAkey user@host"
      sshCAKeys       = ["ssh-ed25519 AAAAca ca"]
      provider        = { kubeconfigDataBase64 = "a3ViZWNvbmZpZw==", namespace = "demo" }
      masterNodeGroup = { replicas = 1, instanceClass = { virtualMachine = { cpu = { cores = 2 } } } }
    }
  }

  assert {
    condition     = output.settings.nodes.parameters.sshCAKeys == ["ssh-ed25519 AAAAca ca"]
    error_message = "settings: ${jsonencode(output.settings)}"
  }
}

run "legacy_empty_ssh_ca_keys_are_no_setting" {
  command = plan

  variables {
    providerClusterConfiguration = {
      layout          = "Standard"
      sshPublicKey    = "ssh-ed25519 AAAAkey user@host"
      sshCAKeys       = []
      provider        = { kubeconfigDataBase64 = "a3ViZWNvbmZpZw==", namespace = "demo" }
      masterNodeGroup = { replicas = 1, instanceClass = { virtualMachine = { cpu = { cores = 2 } } } }
    }
  }

  assert {
    condition     = !contains(keys(output.settings.nodes.parameters), "sshCAKeys")
    error_message = "settings: ${jsonencode(output.settings)}"
  }
}

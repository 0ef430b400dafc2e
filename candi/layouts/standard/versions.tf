// Copyright 2026 The cloud-provider-dvp Authors
// SPDX-License-Identifier: Apache-2.0

// For runs from the tree (each step links this file). dhctl brings its own versions.tf into every step and module
// directory and refuses one that is already there, so the bundle never ships a versions.tf and the provider
// requirements live only in files of that name.
terraform {
  required_version = ">= 1.12"
  required_providers {
    kubernetes = {
      source = "hashicorp/kubernetes"
    }
  }
}

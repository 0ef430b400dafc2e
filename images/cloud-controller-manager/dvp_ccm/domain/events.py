# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Event reasons the CCM records on guest objects (constants, so tests and docs name the same things)."""

NORMAL, WARNING = "Normal", "Warning"

# Nodes
INITIALIZED = "Initialized"
INSTANCE_NOT_FOUND = "InstanceNotFound"  # no VM of ours for this Node (yet)
INSTANCE_NOT_OURS = "InstanceNotOurs"  # the providerID names a VM without our cluster UUID
BAD_PROVIDER_ID = "InvalidProviderID"
DELETING_NODE = "DeletingNode"
TAINT_SHUTDOWN, UNTAINT_SHUTDOWN = "TaintShutdown", "UntaintShutdown"
TAINT_OUT_OF_SERVICE, UNTAINT_OUT_OF_SERVICE = "TaintOutOfService", "UntaintOutOfService"

# Services
ENSURING_LB, ENSURED_LB = "EnsuringLoadBalancer", "EnsuredLoadBalancer"
DELETED_LB = "DeletedLoadBalancer"
UNSUPPORTED_SERVICE = "UnsupportedLoadBalancer"
LB_NOT_OURS = "LoadBalancerNotOurs"  # a DVP Service of that name exists and is not ours
ADOPTED_LB = "AdoptedLoadBalancer"  # the Go module's parent object for this guest Service is ours now
SYNC_LB_FAILED = "SyncLoadBalancerFailed"

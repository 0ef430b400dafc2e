# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import dataclasses
import json
import logging

from dvp_ccm import settings as S
from dvp_ccm.__main__ import main
from dvp_ccm.events import EventRecorder
from dvp_ccm.manager import Manager
from dvp_common.runtime import logging as runtime_logging
from informed_api import dvp_api, dvp_connection, guest_api
from prometheus_client import CollectorRegistry

ENV = {"DVP_KUBERNETES_CONFIG_BASE64": "a2luZDogQ29uZmln", "DVP_NAMESPACE": "proj", "CLUSTER_UUID": "u-1"}


def manager(controllers: frozenset[str]) -> Manager:
    settings = dataclasses.replace(S.load([], ENV), controllers=controllers, health_bind=None, metrics_bind=None)
    return Manager(settings, guest_api().client, dvp_connection(dvp_api()), registry=CollectorRegistry())


def test_load_balancer_switch_off_means_no_service_controller_and_no_service_caches():
    m = manager(frozenset({S.NODE, S.LIFECYCLE}))
    assert sorted(m.by_name) == [S.NODE, S.LIFECYCLE]
    assert [str(i.resource) for i in m.informers] == ["nodes", "virtualmachines.virtualization.deckhouse.io"]
    assert m.services is None and m.dvp_services is None and m.slices is None


def test_all_controllers_and_dvp_caches_select_only_our_objects():
    m = manager(frozenset(S.CONTROLLERS))
    assert sorted(m.by_name) == sorted(S.CONTROLLERS)
    assert [str(i.resource) for i in m.informers] == [
        "nodes", "virtualmachines.virtualization.deckhouse.io", "services", "endpointslices.discovery.k8s.io",
        "services"]
    assert m.vms.namespace == "dvp-project" and m.vms.label_selector == {"dvp.deckhouse.io/cluster-uuid":
                                                                         "11111111-2222-3333-4444-555555555555"}
    assert m.dvp_services.label_selector == {"dvp.deckhouse.io/cluster-uuid": "11111111-2222-3333-4444-555555555555",
                                             "dvp.deckhouse.io/component": "ccm"}


def test_bad_flags_exit_2_with_one_line(capsys):
    assert main(["--cloud-provider=aws"]) == 2
    err = capsys.readouterr().err
    assert err == "dvp_ccm: --cloud-provider: 'aws' is not one of dvp\n"


def test_bad_input_event_has_a_json_log_line_naming_the_object():
    import io

    stream = io.StringIO()
    saved = logging.getLogger().handlers[:], logging.getLogger().level
    root = runtime_logging.setup("Info", stream)
    try:
        node = {"kind": "Node", "metadata": {"name": "w-0", "uid": "u"}}
        EventRecorder(guest_api().client).record(node, "Warning", "InvalidProviderID",
                                         'Node "w-0": spec.providerID "dvp://a/b" is malformed')
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    line = json.loads(stream.getvalue().strip())
    assert (line["level"], line["msg"], line["object"], line["reason"]) == (
        "warning", 'Node "w-0": spec.providerID "dvp://a/b" is malformed', "Node/w-0", "InvalidProviderID")

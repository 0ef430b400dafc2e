{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}
{{- $ns := include "dvp.namespace" . }}
{{- if include "dvp.storage_enabled" . }}
{{- /* The CSI controller's periodic pass reports them (every replica: aggregated over pods). */}}
- name: d8.cloud-provider-dvp.storage
  rules:
  - alert: D8CloudProviderDVPAttachmentStuck
    {{- /* the attacher gives up waiting after 10m and retries: 15m pending is no slow attach any more */}}
    expr: max by (vmbda, volume, vm, phase) (dvp_csi_attachment_pending_seconds{namespace="{{ $ns }}"}) > 900
    for: 5m
    labels:
      severity_level: "5"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        DVP has not attached volume `{{ "{{ $labels.volume }}" }}` to VirtualMachine `{{ "{{ $labels.vm }}" }}`
        for more than 15 minutes (VirtualMachineBlockDeviceAttachment `{{ "{{ $labels.vmbda }}" }}`, phase
        `{{ "{{ $labels.phase }}" }}`): the pods using it cannot start. Its conditions in the DVP project say why
        (`kubectl get vmbda {{ "{{ $labels.vmbda }}" }} -o yaml`): the VM is not running, the disk is not ready,
        or the VM has no free block device slot.
      summary: A DVP volume attachment is stuck.
  - alert: D8CloudProviderDVPVolumeAbnormal
    expr: max by (volume, phase, reason) (dvp_csi_volume_abnormal{namespace="{{ $ns }}"}) > 0
    for: 5m
    labels:
      severity_level: "4"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        DVP reports the VirtualDisk of volume `{{ "{{ $labels.volume }}" }}` as `{{ "{{ $labels.phase }}" }}`
        (reason `{{ "{{ $labels.reason }}" }}`): its data cannot be used. The PersistentVolume whose
        volumeHandle is `{{ "{{ $labels.volume }}" }}` names the claim; the DVP administrator sees the cause in
        the disk's conditions (`kubectl get vd {{ "{{ $labels.volume }}" }} -o yaml` in the DVP project).
      summary: A volume's VirtualDisk is lost or failed in DVP.
{{- end }}

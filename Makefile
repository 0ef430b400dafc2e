# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
#
# Everything a fresh clone needs is set up by these targets; `make test` and `make demo` are enough.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV    := .venv
PY      := $(VENV)/bin/python
PYTEST  := $(VENV)/bin/pytest
STAMP   := $(VENV)/.installed
# Go tools built from the pinned modules under tools/ (each a Go module of its own; see tools/README.md).
TOOLS   ?= helm kube-apiserver kube-controller-manager kube-scheduler kwok etcd gojq csi-sanity tofu terraform-provider-kubernetes promtool csi-provisioner csi-attacher csi-resizer csi-snapshotter snapshot-controller cluster-api-controller crane controller-gen
export PATH := $(CURDIR)/.bin:$(PATH)

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

# --compile-bytecode: bytecode at install time, as pip does by default (uv does not). Where PYTHONDONTWRITEBYTECODE
# is set (it is on these machines), every hook process would otherwise compile the SDK, dotmap and yaml again.
$(STAMP): requirements.lock scripts/find-python scripts/write-pth
	@py=$$(scripts/find-python) && echo "using $$py" && rm -rf $(VENV) && $$py -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check uv==0.13.9
	$(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY) -r requirements.lock
	scripts/write-pth $(PY)
	@touch $@

.PHONY: venv
venv: $(STAMP) ## create .venv with the pinned Python dependencies
	@scripts/write-pth $(PY)  # again each time: the source roots in pyproject.toml may have changed

.PHONY: lock
lock: ## re-resolve requirements.lock from pyproject.toml
	@test -x $(VENV)/bin/uv || { py=$$(scripts/find-python) && $$py -m venv $(VENV) && $(VENV)/bin/pip install -q uv==0.13.9; }
	$(VENV)/bin/uv pip compile -q --python-version 3.13 --extra hooks --extra dev pyproject.toml -o requirements.lock

.PHONY: tools
tools: ## build the pinned Go tools (cached outside the tree) and link them into .bin/
	@for t in $(TOOLS); do tools/build $$t || exit 1; done

.PHONY: upstream
upstream: $(STAMP) ## fetch upstream data files (CRDs, csi.proto, DVP's API) into .cache/upstream; generate DVP's CRDs
	tools/build controller-gen
	tools/fetch-upstream

.PHONY: generate
generate: upstream ## generate the gRPC stubs (CSI from the pinned spec, the dhctl validator from its proto)
	$(PY) -m stubs

.PHONY: host
host: ## the host's Debian packages (bubblewrap, gpgv, the Debian keyring, gnupg; apt-get when missing)
	@scripts/host-packages

.PHONY: setup
setup: venv host tools generate bytecode ## everything the tests and the demo need

.PHONY: images
images: setup ## build every image (OCI layouts in .tmp/images; layers cached outside the tree)
	$(PY) -m imagekit build

.PHONY: release
release: images ## push the module release (REGISTRY=host:port/path; default: a local registry) and verify it
	$(PY) -m module_release $(if $(REGISTRY),--registry $(REGISTRY)) --verify

.PHONY: images-lock
images-lock: venv ## record images/debian.lock anew from the Debian suite's current index
	$(PY) -m imagekit lock

.PHONY: bytecode
bytecode: venv ## compile our Python sources once (each hook is a new process; a module bundle ships this too)
	@$(PY) -m compileall -q -j0 hooks images csi build testkit tests bench > /dev/null

.PHONY: test
# Two worker processes (pytest-xdist), a whole file at a time in each, so a file's module-scoped worlds stay in one
# process: the suite waits on its real processes (kube-apiserver, tofu, controllers) for a third of its time, and a
# second worker fills that with work. TEST_WORKERS=0 runs everything in this one process.
TEST_WORKERS ?= 2
test: setup ## run every test (TEST_WORKERS processes, default 2)
	$(PYTEST) -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

.PHONY: demo
demo: setup ## run the module's main job against an embedded, simulated DVP (IMAGES=1: components from their images; TAKEOVER=1: the switch of an upstream-built cluster, its pre-switch report first)
	$(PY) -m demo $(if $(filter 1,$(IMAGES)),--images) $(if $(filter 1,$(TAKEOVER)),--takeover)

.PHONY: render
render: venv ## print the whole module rendered with every component on (example values)
	@$(PY) -m chart.render --all-on

.PHONY: lint
lint: setup ## ruff, the import contracts (.importlinter), helm lint and the module lint rules
	$(VENV)/bin/ruff check .
	@test -x $(VENV)/bin/lint-imports || { echo "lint-imports is missing: run 'make venv' (import-linter is pinned)"; exit 1; }
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m modlint
	scripts/check-commit-subjects

.PHONY: bench
bench: setup ## print benchmark figures, one JSON line each
	$(PY) -m bench

.PHONY: clean
clean: ## remove the local environment (the tool cache outside the tree stays)
	rm -rf $(VENV) .bin .cache .tmp

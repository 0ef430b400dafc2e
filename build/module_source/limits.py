# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the client accepts from a registry at most, enforced while the bytes stream in (never after reading a
whole body). The figures are generous for this module (its module image is a few MB, its largest component image
about 60 MB compressed) and small against a host's disk and memory. build/module_source/README.md lists them."""

MIB = 1 << 20

MANIFEST_BYTES = 4 * MIB  # a manifest or an index (the distribution spec's own recommended cap)
JSON_BLOB_BYTES = 4 * MIB  # an image config, a version.json, an SBOM read into memory
ERROR_BODY_BYTES = 64 << 10  # what is read of an error reply to name its code
TOKEN_BYTES = 64 << 10  # a token service's reply
BLOB_BYTES = 1024 * MIB  # any one blob, as the descriptor states it and as it arrives
LAYER_EXPANDED_BYTES = 512 * MIB  # what the layers of an image unpacked (module, release) expand to, together
IMAGE_ENTRIES = 100_000  # tar entries of one image, together
INDEX_DEPTH = 2  # an index may name an index once more, no deeper (the spec allows nesting; nobody needs more)
INDEX_ENTRIES = 1000  # descriptors in one index
LAYERS = 128  # layers of one image (the OCI runtimes' limit is 127)
TAG_PAGES = 100  # pages of a tag list (`Link: rel=next`), each asked with n=1000
TAGS = 100_000  # tags in a tag list, together
SYMLINK_HOPS = 40  # links followed when resolving one path inside the destination (the kernel's own limit)
PATH_BYTES = 4096  # one entry's path, or a link's target

REQUEST_SECONDS = 60.0  # one request, from sending it to its last byte read
VERIFY_SECONDS = 900.0  # one whole verify, hooks included
HOOK_SECONDS = 60.0  # one hook process
RETRIES = 4  # attempts of a request answered 5xx or 429 (or not at all), the first included
BACKOFF_SECONDS = 0.5  # the first retry's wait; doubled each time, jittered, capped by RETRY_AFTER_SECONDS
RETRY_AFTER_SECONDS = 10.0  # the longest wait a Retry-After header can ask for
BLOB_BYTES_PER_SECOND = 1 * MIB  # a blob's request gets REQUEST_SECONDS more a second for each MiB it states
PATH_DEPTH = 128  # components of one entry's path
HOOK_OUTPUT_BYTES = 16 * MIB  # any file a hook writes, its stdout and stderr included (RLIMIT_FSIZE)
HOOK_MEMORY_BYTES = 4096 * MIB  # a hook's address space (RLIMIT_AS)

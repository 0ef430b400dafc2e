# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The registry client against a registry that lies, stalls and loops (hostile_registry.py): every reply refused
with its one line, within its bound; caps enforced while the body streams; 5xx and 429 retried a bounded number of
times with backoff."""

from __future__ import annotations

import time

import pytest
from module_source import SourceError, limits
from module_source.registry import Registry

from .hostile_registry import OCI_INDEX, Reply, serve, sha


@pytest.fixture
def hostile():
    with serve() as registry:
        yield registry


@pytest.fixture
def client(hostile, monkeypatch):
    monkeypatch.setattr(limits, "BACKOFF_SECONDS", 0.01)
    reg = Registry(hostile.host)
    yield reg
    reg.close()


def refused(call) -> str:
    with pytest.raises(SourceError) as err:
        call()
    assert "\n" not in str(err.value)
    return str(err.value)


def config_desc(hostile, repo="r") -> dict:
    return hostile.blob(repo, b"{}", "application/vnd.oci.image.config.v1+json")


# --- caps, while the body streams --------------------------------------------------------------------------

def test_a_manifest_over_the_cap_is_refused_by_its_content_length(hostile, client, monkeypatch):
    monkeypatch.setattr(limits, "MANIFEST_BYTES", 1024)
    hostile.on("/v2/r/manifests/v1", Reply(body=b" " * 5000))
    assert refused(lambda: client.manifest("r", "v1")) == \
        f"{hostile.host}/r:v1: manifest: 5000 bytes, more than 1024"


def test_a_manifest_over_the_cap_without_a_length_is_cut_off_while_streaming(hostile, client, monkeypatch):
    monkeypatch.setattr(limits, "MANIFEST_BYTES", 1024)
    hostile.on("/v2/r/manifests/v1", Reply(body=b" " * (8 << 20), length=False))
    assert refused(lambda: client.manifest("r", "v1")) == f"{hostile.host}/r:v1: manifest: more than 1024 bytes"


def test_a_blob_longer_than_its_descriptor_is_cut_off(hostile, client):
    data = b"x" * 100
    hostile.on(f"/v2/r/blobs/{sha(data)}", Reply(body=data + b"y" * 5000, length=False))
    desc = {"digest": sha(data), "size": 100}
    assert refused(lambda: client.blob("r", desc)) == \
        f"{hostile.host}/r: blob {sha(data)} is longer than the 100 bytes its descriptor says: tampered or corrupted"


def test_a_blob_whose_length_header_differs_is_refused_before_reading(hostile, client):
    data = b"x" * 100
    hostile.on(f"/v2/r/blobs/{sha(data)}", Reply(body=data + b"y"))
    assert refused(lambda: client.blob("r", {"digest": sha(data), "size": 100})) == \
        f"{hostile.host}/r: blob {sha(data)} is sent as 101 bytes, the descriptor says 100: tampered or corrupted"


def test_a_descriptor_over_the_blob_cap_is_refused_before_any_request(hostile, client, monkeypatch):
    monkeypatch.setattr(limits, "BLOB_BYTES", 1000)
    digest = "sha256:" + "a" * 64
    assert refused(lambda: client.blob("r", {"digest": digest, "size": 1001})) == \
        f"{hostile.host}/r: descriptor.size 1001 is outside 0..1000"
    assert hostile.hits == []


# --- shapes --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("doc", "line"), [
    ([], "manifest must be an object, got a list"),
    ({"mediaType": 7}, "manifest.mediaType must be a string, got 7"),
    ({"mediaType": "application/vnd.oci.image.manifest.v1+json"}, "manifest.config must be an object, got null"),
    ({"mediaType": "application/vnd.oci.image.manifest.v1+json", "config": {"size": 2}},
     "manifest.config.digest is missing"),
    ({"mediaType": "application/vnd.oci.image.manifest.v1+json",
      "config": {"digest": "sha256:" + "a" * 64, "size": "2"}}, 'manifest.config.size must be an integer, got "2"'),
    ({"mediaType": "application/vnd.oci.image.manifest.v1+json",
      "config": {"digest": "sha256:" + "a" * 64, "size": 2}, "layers": {}},
     "manifest.layers must be a list, got an object"),
    ({"mediaType": "application/vnd.oci.image.manifest.v1+json",
      "config": {"digest": "sha256:" + "a" * 64, "size": 2}, "layers": ["x"]},
     'manifest.layers[0] must be an object, got "x"'),
    ({"mediaType": "application/vnd.oci.image.manifest.v1+json",
      "config": {"digest": "sha256:" + "a" * 64, "size": 2}, "layers": [{"digest": "md5:1", "size": 1}]},
     'manifest.layers[0].digest "md5:1" is not a sha256 digest'),
    ({"mediaType": "application/vnd.oci.image.manifest.v1+json",
      "config": {"digest": "sha256:" + "a" * 64, "size": 2}, "layers": [{"digest": "sha256:" + "b" * 64,
                                                                          "size": -1}]},
     "manifest.layers[0].size -1 is outside 0..1073741824"),
    ({"mediaType": OCI_INDEX, "manifests": "all"}, 'index.manifests must be a list, got "all"'),
    ({"mediaType": OCI_INDEX, "manifests": [None]}, "index.manifests[0] must be an object, got null"),
    ({"mediaType": OCI_INDEX, "manifests": [{"platform": {"os": "linux", "architecture": "amd64"}}]},
     "index.manifests[0].digest is missing"),
    ({"mediaType": OCI_INDEX, "manifests": [{"digest": "sha256:" + "a" * 64, "size": 1, "platform": "linux"}]},
     'index.manifests[0].platform must be an object, got "linux"'),
    ({"mediaType": "text/plain"}, 'unsupported manifest type "text/plain"'),
])
def test_a_manifest_of_the_wrong_shape_is_one_line(hostile, client, doc, line):
    hostile.manifest("r", "v1", doc)
    assert refused(lambda: client.manifest("r", "v1")) == f"{hostile.host}/r:v1: {line}"


def test_a_manifest_that_is_not_json(hostile, client):
    hostile.manifest("r", "v1", b"{not json")
    assert refused(lambda: client.manifest("r", "v1")) == f"{hostile.host}/r:v1: manifest is not JSON"


def test_a_json_nested_past_the_parsers_depth_is_not_json(hostile, client):
    hostile.manifest("r", "v1", b"[" * 100_000 + b"]" * 100_000)
    assert refused(lambda: client.manifest("r", "v1")) == f"{hostile.host}/r:v1: manifest is not JSON"


def test_indexes_nested_deeper_than_the_cap(hostile, client):
    image = {"mediaType": "application/vnd.oci.image.manifest.v1+json", "config": config_desc(hostile),
             "layers": []}
    refs = [hostile.manifest("r", "leaf", image)]
    for level in range(3):
        entry = {"digest": refs[-1], "size": 10, "platform": {"os": "linux", "architecture": "amd64"}}
        refs.append(hostile.manifest("r", f"i{level}", {"mediaType": OCI_INDEX, "manifests": [entry]}, OCI_INDEX))
    assert client.manifest("r", "i1").digest == refs[0]  # an index of an index: resolved
    assert refused(lambda: client.manifest("r", "i2")) == f"{hostile.host}/r@{refs[1]}: indexes nested deeper than 2"


# --- tag lists -----------------------------------------------------------------------------------------------

def test_a_tag_list_whose_next_page_loops_is_refused(hostile, client):
    hostile.on("/v2/r/tags/list?n=1000", Reply(headers={"Link": '</v2/r/tags/list?n=1000&last=a>; rel="next"'},
                                               body=b'{"tags": ["a"]}'))
    hostile.on("/v2/r/tags/list?n=1000&last=a", Reply(headers={"Link": '</v2/r/tags/list?n=1000>; rel="next"'},
                                                      body=b'{"tags": ["b"]}'))
    assert refused(lambda: client.tags("r")) == \
        f"{hostile.host}/r: tag list: Link rel=next leads back to /v2/r/tags/list?n=1000"


def test_a_tag_list_of_too_many_pages_is_refused(hostile, client, monkeypatch):
    monkeypatch.setattr(limits, "TAG_PAGES", 3)
    counter = iter(range(1000))

    def page() -> Reply:
        n = next(counter)
        return Reply(headers={"Link": f'</v2/r/tags/list?n=1000&last=t{n}>; rel="next"'}, body=b'{"tags": []}')

    hostile.on("/v2/r/tags/list", page)
    assert refused(lambda: client.tags("r")) == f"{hostile.host}/r: tag list: more than 3 pages"
    assert len(hostile.hits) == 3


def test_a_tag_list_linking_to_another_host_is_refused(hostile, client):
    hostile.on("/v2/r/tags/list?n=1000", Reply(headers={"Link": '<http://169.254.169.254/v2/x>; rel="next"'},
                                               body=b'{"tags": []}'))
    assert refused(lambda: client.tags("r")) == \
        f'{hostile.host}/r: tag list: Link rel=next "http://169.254.169.254/v2/x" is not a page of this registry'


def test_tags_that_are_not_strings(hostile, client):
    hostile.on("/v2/r/tags/list?n=1000", Reply(body=b'{"tags": ["a", {"b": 1}]}'))
    assert refused(lambda: client.tags("r")) == f"{hostile.host}/r: tag list: page.tags[] must be a string, " \
                                                f"got an object"


# --- deadlines -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("reply", [
    Reply(body=b" " * 1000, drip=0.2),  # the body: 200 s to send it whole
    # the headers: each byte well within the socket timeout, so only the request's clock ends it
    Reply(headers={"X-Slow": "y" * 1000}, body=b"{}", drip=0.2, drip_headers=True),
], ids=["body", "headers"])
def test_a_registry_that_drips_is_cut_at_the_request_deadline(hostile, monkeypatch, reply):
    monkeypatch.setattr(limits, "REQUEST_SECONDS", 1.0)
    hostile.on("/v2/r/manifests/v1", reply)
    reg = Registry(hostile.host)
    started = time.monotonic()
    try:
        assert refused(lambda: reg.manifest("r", "v1")) == \
            f"registry {hostile.host}: GET /v2/r/manifests/v1: no complete answer within 1 s"
    finally:
        reg.close()
    assert time.monotonic() - started < 5


# --- retries ---------------------------------------------------------------------------------------------------

def test_5xx_is_retried_with_backoff_then_served(hostile, client):
    replies = iter([Reply(503), Reply(502), Reply(body=b'{"tags": ["v1"]}')])
    hostile.on("/v2/r/tags/list", lambda: next(replies))
    assert client.tags("r") == ["v1"]
    assert hostile.hits == ["GET /v2/r/tags/list?n=1000"] * 3


def test_5xx_for_ever_ends_after_the_bounded_attempts(hostile, client):
    hostile.on("/v2/r/tags/list", Reply(500, body=b"<html>oops</html>"))
    assert refused(lambda: client.tags("r")) == f"{hostile.host}/r: HTTP 500"
    assert len(hostile.hits) == limits.RETRIES


def test_429_waits_as_retry_after_says(hostile, client):
    replies = iter([Reply(429, headers={"Retry-After": "1"}), Reply(body=b'{"tags": []}')])
    hostile.on("/v2/r/tags/list", lambda: next(replies))
    started = time.monotonic()
    assert client.tags("r") == []
    assert time.monotonic() - started >= 1.0


def test_a_retry_after_of_an_hour_is_capped(hostile, client, monkeypatch):
    monkeypatch.setattr(limits, "RETRY_AFTER_SECONDS", 0.05)
    replies = iter([Reply(429, headers={"Retry-After": "3600"}), Reply(body=b'{"tags": []}')])
    hostile.on("/v2/r/tags/list", lambda: next(replies))
    started = time.monotonic()
    assert client.tags("r") == []
    assert time.monotonic() - started < 5


# --- error and token replies ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "line"), [
    (b'{"errors": [{"code": "DENIED"}]}', "HTTP 403 DENIED"),
    (b'{"errors": "DENIED"}', "HTTP 403"),
    (b'{"errors": [7]}', "HTTP 403"),
    (b'[1, 2]', "HTTP 403"),
    (b'{"errors": [{"code": "a\\nb"}]}', "HTTP 403"),
    (b"\xff\xfe", "HTTP 403"),
])
def test_an_error_body_of_any_shape_is_one_line(hostile, client, body, line):
    hostile.on("/v2/r/manifests/v1", Reply(403, body=body))
    assert refused(lambda: client.manifest("r", "v1")) == f"{hostile.host}/r:v1: {line}"


def test_a_token_reply_that_is_not_json(hostile, client):
    hostile.on("/v2/r/tags/list", Reply(401, headers={
        "WWW-Authenticate": f'Bearer realm="http://{hostile.host}/token",service="s",scope="repository:r:pull"'}))
    hostile.on("/token", Reply(body=b"<html>login</html>"))
    assert refused(lambda: client.tags("r")) == \
        f"registry {hostile.host}: token service {hostile.host}: the reply is not JSON"


def test_a_token_realm_that_is_not_a_url(hostile, client):
    hostile.on("/v2/r/tags/list", Reply(401, headers={"WWW-Authenticate": 'Bearer realm="file:///etc/passwd"'}))
    assert refused(lambda: client.tags("r")) == \
        f'registry {hostile.host}: token realm "file:///etc/passwd" is not an http(s) URL'


def test_a_token_that_is_not_a_string(hostile, client):
    hostile.on("/v2/r/tags/list", Reply(401, headers={"WWW-Authenticate": f'Bearer realm="http://{hostile.host}/t"'}))
    hostile.on("/t", Reply(body=b'{"token": {"a": 1}}'))
    assert refused(lambda: client.tags("r")) == \
        f"registry {hostile.host}: token service {hostile.host}: the reply holds no token string"

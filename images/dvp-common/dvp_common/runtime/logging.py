# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Structured JSON logs, one object per line, with secrets redacted before they are written."""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Iterable
from typing import Any, TextIO
from urllib.parse import quote

REDACTED = "<redacted>"
SECRET_KEYS = re.compile(
    r"token|password|passwd|secret|kubeconfig|authorization|private|(^|[_-])(tls|client|api|ssh)[_-]?key$"
    r"|cert.*data|key[_-]?data|authority[_-]?data|userdata", re.IGNORECASE)
# kubeconfig and Secret keys whose value is a credential, wherever they appear in text (YAML, JSON, key=value);
# a whole kubeconfig in text is a long base64 run
_SECRET_FIELDS = r"client-key-data|client-certificate-data|certificate-authority-data|token|password|secret"  # noqa: S105
LONG_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40,}={0,2}")  # keys, certificates, kubeconfigs
SECRET_TEXT = [
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"), r"\1" + REDACTED),
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S), REDACTED),
    (re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), REDACTED),  # JWTs (SA tokens)
    (re.compile(rf"(?i)((?:{_SECRET_FIELDS})[\"']?\s*[:=]\s*[\"']?)[^\s\"',}}]+"), r"\1" + REDACTED),
]
LEVELS = {"Debug": logging.DEBUG, "Info": logging.INFO, "Warn": logging.WARNING, "Error": logging.ERROR}
_STD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


def _long_base64(match: re.Match[str]) -> str:
    run = match.group(0)
    # hex digests (image digests, hashes) and plain words are not secrets; base64 of key material mixes cases
    if re.fullmatch(r"[0-9a-fA-F]+", run) or run.isalpha() or run.islower():
        return run
    return REDACTED


def redact_text(text: str) -> str:
    for pattern, repl in SECRET_TEXT:
        text = pattern.sub(repl, text)
    return LONG_BASE64.sub(_long_base64, text)


def scrub(text: object, limit: int = 1024) -> str:
    """Free text from elsewhere (an upstream error, a response body) made fit to publish in a log, a status
    condition or a ConfigMap: secrets redacted, one line, at most `limit` characters."""
    one_line = " ".join(redact_text(str(text)).split())
    return one_line if len(one_line) <= limit else one_line[: max(limit - 3, 0)] + "..."


def redact(value: Any, key: str = "") -> Any:
    """A copy of `value` with secret-looking keys masked and secret-looking text scrubbed."""
    if key and SECRET_KEYS.search(key) and value not in (None, "", {}, []):
        return REDACTED
    if isinstance(value, dict):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": redact_text(record.getMessage()),
        }
        for k, v in vars(record).items():
            if k not in _STD and not k.startswith("_"):
                out[k] = redact(v, k)
        if record.exc_info:
            out["error"] = redact_text(self.formatException(record.exc_info).splitlines()[-1])
        return json.dumps(out, default=str, ensure_ascii=False)


def setup(level: str = "Info", stream: TextIO | None = None) -> logging.Logger:
    """Route the root logger to `stream` (stderr) as JSON; `level` uses the module's logLevel names."""
    if level not in LEVELS:
        raise ValueError(f"logLevel {level!r}: expected one of {', '.join(LEVELS)}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(LEVELS[level])
    logging.getLogger("urllib3").setLevel(max(LEVELS[level], logging.INFO))  # never log request headers
    return root


def redact_values(text: str, values: Iterable[str]) -> str:
    """`text` without the given secret values (as sent, or percent-encoded as a proxy may echo them), for
    free text from elsewhere that may quote what we sent, such as an error page echoing our headers."""
    for value in sorted((v for v in values if v and len(v) >= 8), key=len, reverse=True):
        for form in (value, quote(value, safe="")):
            text = text.replace(form, REDACTED)
    return text

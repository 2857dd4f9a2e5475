"""Prometheus metrics, served on `GET /metrics`.

Any module may record into these through the small functions below; they are cheap and never
raise. With several uvicorn workers the CLI sets `PROMETHEUS_MULTIPROC_DIR` before the workers
start, and `/metrics` then sums every worker's samples.

Exposed series (all prefixed `tokenfront_`):
- `http_requests_total{method,endpoint,status}` and `http_request_errors_total{endpoint,status}`
- `http_request_duration_seconds{method,endpoint}` (histogram) and `http_requests_in_flight`
- `tokens_total{kind}`: tokens produced or consumed (`rendered`, `derendered`, `tokenized`, ...)
- `parser_failures_total{parser}`: tool/reasoning parser exceptions turned into answers
- `rejected_requests_total{reason}`: refused before routing (`auth`, `body_too_large`, `headers`)
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)

# `*_created` timestamps double the exposition size and no dashboard uses them.
disable_created_metrics()  # type: ignore[no-untyped-call]

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Render and derender are CPU-bound and usually take milliseconds; the tail covers huge prompts.
LATENCY_BUCKETS = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
)  # fmt: skip

REQUESTS = Counter(
    "tokenfront_http_requests",
    "HTTP requests answered, by route template and status.",
    ["method", "endpoint", "status"],
)
ERRORS = Counter(
    "tokenfront_http_request_errors",
    "HTTP answers with status >= 400, by route template and status.",
    ["endpoint", "status"],
)
LATENCY = Histogram(
    "tokenfront_http_request_duration_seconds",
    "Time from request start to the end of the response body.",
    ["method", "endpoint"],
    buckets=LATENCY_BUCKETS,
)
IN_FLIGHT = Gauge(
    "tokenfront_http_requests_in_flight",
    "Requests being handled now.",
    multiprocess_mode="livesum",
)
TOKENS = Counter(
    "tokenfront_tokens",
    "Tokens handled, by kind (rendered, derendered, tokenized, detokenized).",
    ["kind"],
)
PARSER_FAILURES = Counter(
    "tokenfront_parser_failures",
    "Tool or reasoning parser failures, by parser name.",
    ["parser"],
)
REJECTED = Counter(
    "tokenfront_rejected_requests",
    "Requests refused before reaching a route, by reason.",
    ["reason"],
)


def observe_tokens(kind: str, n: int) -> None:
    """Count `n` tokens of `kind` (e.g. "rendered" prompt ids, "derendered" output ids)."""
    if n > 0:
        TOKENS.labels(kind).inc(n)


def parser_failure(name: str) -> None:
    """Count one failure of the tool or reasoning parser `name`."""
    PARSER_FAILURES.labels(name or "unknown").inc()


def rejected(reason: str) -> None:
    REJECTED.labels(reason).inc()


def observe_request(method: str, endpoint: str, status: int, seconds: float) -> None:
    code = str(status)
    REQUESTS.labels(method, endpoint, code).inc()
    LATENCY.labels(method, endpoint).observe(seconds)
    if status >= 400:
        ERRORS.labels(endpoint, code).inc()


def exposition() -> tuple[bytes, str]:
    """The text exposition of every metric (summed over workers in multi-process mode)."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST


def worker_exited(pid: int) -> None:
    """Drop a dead worker's live gauges (multi-process mode)."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]

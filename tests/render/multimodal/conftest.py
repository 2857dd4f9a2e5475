"""Shared by the recorded image corpora (V4.1 vision, K3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tokenfront.api.body import parse_model
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.chat import render_chat_request
from tokenfront.tokenization.registry import ServedModel


def _render_as_recorded(model: ServedModel, record: dict[str, Any]) -> dict[str, Any]:
    """Render a recorded request with the model path vLLM hashed images with
    (`mm_hashes` include it), then put the served model back as it was."""
    saved = model.options.model
    model.options.model = record["mm_model_id"]
    try:
        request = parse_model(ChatCompletionRequest, record["request"])
        return render_chat_request(model, request)  # type: ignore[no-any-return]
    finally:
        model.options.model = saved


@pytest.fixture
def render_as_recorded() -> Callable[[ServedModel, dict[str, Any]], dict[str, Any]]:
    return _render_as_recorded

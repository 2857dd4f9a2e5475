"""Structural tags vLLM derives from the tools to force tool-call syntax (being built)."""

from __future__ import annotations

from typing import Any

from tokenfront.protocol.requests import ChatCompletionRequest


def apply_structural_tag(
    request: ChatCompletionRequest, model: str | None, function_strict_default: bool
) -> None:
    return None


def mistral_pre_v11_schema(request: ChatCompletionRequest) -> dict[str, Any] | None:
    return None

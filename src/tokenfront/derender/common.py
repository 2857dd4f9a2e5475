"""Small pieces shared by the chat and completion derender paths."""

from __future__ import annotations

from typing import Any


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_details": None,
        "completion_tokens_details": None,
    }


def finish_reason_for_chat(
    engine_reason: str | None, chat_request: Any | None, tool_calls_made: bool
) -> str:
    """vLLM's `resolve_finish_reason`: "tool_calls" only for a natural stop with calls."""
    reason = engine_reason or "stop"
    forced_named = chat_request is not None and chat_request.named_tool_choice is not None
    if tool_calls_made and reason == "stop" and not forced_named:
        return "tool_calls"
    return reason

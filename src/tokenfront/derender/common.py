"""Small pieces shared by the chat and completion derender paths."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tokenfront.derender import bounds
from tokenfront.protocol.generate import GenerateTokensResponse
from tokenfront.tokenization.detokenizer import SEED_IDS
from tokenfront.tokenization.registry import ServedModel


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


def check_seed_vocab(model: ServedModel, seed_ids: Sequence[int] | None) -> None:
    """The prompt tail that seeds decoding must be inside the vocabulary."""
    if seed_ids:
        bounds.check_vocab(seed_ids[-SEED_IDS:], model.vocab_size, "prompt_token_ids")


def check_response_vocab(model: ServedModel, responses: Iterable[GenerateTokensResponse]) -> None:
    """Every output id and logprob id derender would decode must be inside the vocabulary."""
    size = model.vocab_size
    for gen in responses:
        for choice in gen.choices:
            bounds.check_vocab(choice.token_ids, size, f"choice {choice.index} token_ids")
            bounds.check_logprob_vocab(choice.logprobs, size)

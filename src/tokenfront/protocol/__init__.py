"""Request models mirroring vLLM's OpenAI-compatible chat and completion requests."""

from tokenfront.protocol.requests import (
    ChatCompletionRequest,
    CompletionRequest,
    RequestValidationFailure,
)

__all__ = ["ChatCompletionRequest", "CompletionRequest", "RequestValidationFailure"]

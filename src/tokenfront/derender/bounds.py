"""Resource bounds checked before any decoding or parsing, with vLLM's messages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tokenfront.api.errors import bad_request
from tokenfront.protocol.generate import GenerateLogProbs, GenerateTokensResponse


def check_response_bounds(
    responses: Sequence[GenerateTokensResponse],
    max_n: int,
    max_model_len: int,
    max_logprobs: int,
) -> None:
    """vLLM's `_validate_derender_bounds`: counts, lengths and top-logprob sizes."""
    if len(responses) > max_n:
        raise bad_request(
            f"generate_responses count ({len(responses)}) exceeds server maximum ({max_n}). "
            "Set VLLM_MAX_N_SEQUENCES to increase this limit."
        )
    for gen in responses:
        if len(gen.choices) > max_n:
            raise bad_request(
                f"choices count ({len(gen.choices)}) in response '{gen.request_id}' "
                f"exceeds server maximum ({max_n})."
            )
        for choice in gen.choices:
            if choice.token_ids and len(choice.token_ids) > max_model_len:
                raise bad_request(
                    f"token_ids length ({len(choice.token_ids)}) in choice {choice.index} "
                    f"exceeds max_model_len ({max_model_len})."
                )
            check_logprobs_bounds(choice.logprobs, choice.index, max_model_len, max_logprobs)
        if gen.prompt_logprobs and len(gen.prompt_logprobs) > max_model_len:
            raise bad_request(
                f"prompt_logprobs length ({len(gen.prompt_logprobs)}) in response "
                f"'{gen.request_id}' exceeds max_model_len ({max_model_len})."
            )


def check_logprobs_bounds(
    logprobs: GenerateLogProbs | None, index: int, max_model_len: int, max_logprobs: int
) -> None:
    if logprobs is None or not logprobs.content:
        return
    if len(logprobs.content) > max_model_len:
        raise bad_request(
            f"logprobs.content length ({len(logprobs.content)}) in choice {index} "
            f"exceeds max_model_len ({max_model_len})."
        )
    if max_logprobs < 0:
        return
    for entry in logprobs.content:
        tops = entry.get("top_logprobs")
        if tops and len(tops) > max_logprobs:
            raise bad_request(
                f"top_logprobs count ({len(tops)}) in choice {index} "
                f"exceeds max_logprobs ({max_logprobs})."
            )


def check_prompt_ids_length(
    prompt_token_ids: Iterable[Sequence[int] | None], max_model_len: int
) -> None:
    for ids in prompt_token_ids:
        if ids is not None and len(ids) > max_model_len:
            raise bad_request(
                f"prompt_token_ids length ({len(ids)}) exceeds max_model_len ({max_model_len})."
            )

"""Non-streaming completions derender: one generate response per prompt into a text_completion."""

from __future__ import annotations

import logging
import time
from typing import Any

from tokenfront.api.errors import bad_request
from tokenfront.config import ServerSettings
from tokenfront.derender import bounds
from tokenfront.derender.common import usage
from tokenfront.derender.decode import decode_output, decode_params, seed
from tokenfront.derender.logprobs import (
    completion_top_limit,
    resolve_logprobs,
    to_completion_logprobs,
)
from tokenfront.protocol.generate import DerenderCompletionRequest, dump_model
from tokenfront.tokenization.detokenizer import tokenizer_view
from tokenfront.tokenization.registry import ServedModel

logger = logging.getLogger(__name__)


def _seed_ids(request: DerenderCompletionRequest) -> list[list[int] | None]:
    overrides = request.prompt_token_ids or [None] * len(request.generate_responses)
    return [
        override if override is not None else gen.prompt_token_ids
        for gen, override in zip(request.generate_responses, overrides, strict=True)
    ]


def check_completion_request(
    model: ServedModel, request: DerenderCompletionRequest, settings: ServerSettings
) -> None:
    """vLLM's pre-decode checks (empty list, bounds, prompt lengths, empty outputs)."""
    if not request.generate_responses:
        raise bad_request("generate_responses must not be empty")
    bounds.check_response_bounds(
        request.generate_responses,
        settings.max_n_sequences,
        model.max_model_len,
        model.options.max_logprobs,
    )
    if request.prompt_token_ids is not None:
        bounds.check_prompt_ids_length(request.prompt_token_ids, model.max_model_len)
    for gen in request.generate_responses:
        for choice in gen.choices:
            if not choice.token_ids:
                raise bad_request(
                    f"choice {choice.index} in response {gen.request_id} has empty or null token_ids"
                )


def derender_completion(
    model: ServedModel, request: DerenderCompletionRequest, settings: ServerSettings
) -> dict[str, Any]:
    """The text_completion answer; choices get one flat running index across prompts."""
    check_completion_request(model, request, settings)
    completion_request = request.completion_request
    view = tokenizer_view(model.tokenizer)
    params = decode_params(view, completion_request)
    top_limit = completion_top_limit(completion_request)
    return_token_ids = bool(completion_request is not None and completion_request.return_token_ids)
    prompt_counts = request.prompt_tokens or [0] * len(request.generate_responses)

    choices: list[dict[str, Any]] = []
    total_prompt = 0
    total_completion = 0
    for gen, count, seed_ids in zip(
        request.generate_responses, prompt_counts, _seed_ids(request), strict=True
    ):
        window = seed(view, seed_ids, params)
        for choice in gen.choices:
            token_ids = choice.token_ids or []
            text, stop_reason = decode_output(
                model,
                token_ids,
                choice.finish_reason,
                choice.stop_reason,
                completion_request,
                window,
                params,
            )
            logprobs = None
            if choice.logprobs is not None:
                resolved = resolve_logprobs(view, choice.logprobs, top_limit)
                logprobs = to_completion_logprobs(resolved, choice.logprobs)
            choices.append(
                {
                    "index": len(choices),
                    "text": text,
                    "logprobs": logprobs,
                    "finish_reason": choice.finish_reason,
                    "stop_reason": stop_reason,
                    "token_ids": token_ids if return_token_ids else None,
                    "prompt_logprobs": None,
                    "prompt_token_ids": gen.prompt_token_ids if return_token_ids else None,
                    "routed_experts": None,
                    "weight_versions": None,
                }
            )
            total_completion += len(token_ids)
        total_prompt += count

    first = request.generate_responses[0]
    kv_params = first.kv_transfer_params
    if any(r.kv_transfer_params != kv_params for r in request.generate_responses[1:]):
        logger.warning(
            "derender_completion: kv_transfer_params differ across responses; "
            "setting to None on the aggregated response"
        )
        kv_params = None
    return {
        "id": first.request_id,
        "object": "text_completion",
        "created": int(time.time()),
        "model": request.model or model.name,
        "choices": choices,
        "service_tier": None,
        "system_fingerprint": None,
        "usage": usage(total_prompt, total_completion),
        "kv_transfer_params": kv_params,
        "ec_transfer_params": None,
        "metrics": dump_model(first.metrics) if len(request.generate_responses) == 1 else None,
    }

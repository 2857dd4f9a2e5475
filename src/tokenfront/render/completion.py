"""`/v1/completions/render`: a completion request -> a list of vLLM GenerateRequest JSONs."""

from __future__ import annotations

from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import CompletionRequest, RequestValidationFailure
from tokenfront.render.chat import check_mm_kwargs
from tokenfront.render.encoders.fim import fim_prompt
from tokenfront.render.mistral import is_mistral_tokenizer
from tokenfront.render.sampling import (
    build_sampling_params,
    get_max_tokens,
    override_max_tokens,
    sampling_defaults,
)
from tokenfront.render.tokens import TokenizeParams, check_token_ids, encode_text_with_offsets
from tokenfront.tokenization.detokenizer import id_overflow
from tokenfront.tokenization.registry import ServedModel

Prompt = str | list[int]


def _check_suffix(model: ServedModel, request: CompletionRequest) -> None:
    """vLLM's suffix checks; renderers with fill-in-the-middle prompts rewrite text prompts."""
    if request.suffix is None:
        return
    if request.echo:
        raise APIError("Echo is unsupported with suffix.", param="suffix")
    if request.prompt_embeds is not None:
        raise APIError("suffix is not supported with prompt_embeds", param="suffix")
    if request.truncate_prompt_tokens is not None:
        raise APIError("suffix is not supported with truncate_prompt_tokens", param="suffix")
    prompt: Any = request.prompt
    if isinstance(prompt, str) or (
        isinstance(prompt, list) and all(isinstance(p, str) for p in prompt)
    ):
        fim = fim_prompt(model.options.tokenizer_mode, model.options.model)
        if fim is None:
            raise APIError(
                "suffix is only supported for models with FIM completion rendering", param="suffix"
            )
        suffix = request.suffix
        if isinstance(prompt, str):
            request.prompt = fim(prompt, suffix)
        else:
            request.prompt = [fim(p, suffix) for p in prompt]
        return
    raise APIError(
        "suffix requires text prompt input for FIM completion rendering", param="suffix"
    )


def prompt_list(prompt: Any) -> list[Prompt]:
    """vLLM's `prompt_to_seq`: one text or one id list becomes a one-item batch."""
    if prompt is None:
        return []
    if isinstance(prompt, str):
        return [prompt]
    if prompt and all(isinstance(p, int) for p in prompt):
        return [list(prompt)]
    return list(prompt)


def completion_tokenize_params(model: ServedModel, request: CompletionRequest) -> TokenizeParams:
    params = TokenizeParams(
        max_total_tokens=model.max_model_len,
        max_output_tokens=request.max_tokens or 0,
        truncate_prompt_tokens=request.truncate_prompt_tokens,
        truncation_side=request.truncation_side,
        add_special_tokens=request.add_special_tokens,
    )
    params.validate()
    return params


def tokenize_prompts(
    model: ServedModel, request: CompletionRequest, params: TokenizeParams
) -> list[tuple[list[int], list[list[int]] | None]]:
    prompts = prompt_list(request.prompt)
    if not prompts:
        raise RequestValidationFailure("You must pass at least one prompt", parameter="prompt")
    want = bool(request.return_token_offsets)
    out: list[tuple[list[int], list[list[int]] | None]] = []
    for prompt in prompts:
        if isinstance(prompt, str):
            out.append(encode_text_with_offsets(model, prompt, params, want_offsets=want))
        else:
            ids = check_token_ids(model, list(prompt), params)
            if request.echo and not request.return_token_ids:
                _check_decodable(model, ids)
            out.append((ids, None))
    return out


def _check_decodable(model: ServedModel, ids: list[int]) -> None:
    """vLLM decodes an id prompt it echoes (unless token ids are returned): the `tokenizers`
    binding refuses an id beyond 32 unsigned bits, mistral-common any id past its vocabulary
    (a 500 in vLLM, a 400 here as for /detokenize); decoding an in-range id never fails."""
    mistral = is_mistral_tokenizer(model.tokenizer)
    for token_id in ids:
        if token_id >= (2**63 if mistral else 2**32):
            raise APIError(str(id_overflow(token_id)))
    if mistral and any(token_id >= model.tokenizer.vocab_size for token_id in ids):
        model.tokenizer.decode(ids)


def render_completion_request(
    model: ServedModel,
    request: CompletionRequest,
    *,
    header_request_id: str | None = None,
    max_n: int = 16384,
) -> list[dict[str, Any]]:
    if request.use_beam_search:
        raise APIError("Beam search is not supported by the render endpoint")
    _check_suffix(model, request)
    if request.echo and request.prompt_embeds is not None:
        raise APIError("Echo is unsupported with prompt embeds.")
    if request.prompt_logprobs is not None and request.prompt_embeds is not None:
        raise APIError("prompt_logprobs is not compatible with prompt embeds.")
    check_mm_kwargs(model, request)
    params = completion_tokenize_params(model, request)
    if request.prompt_embeds is not None:
        raise RequestValidationFailure(
            "You must set `--enable-prompt-embeds` to input `prompt_embeds`.",
            parameter="prompt_embeds",
        )
    batches = tokenize_prompts(model, request, params)

    defaults = sampling_defaults(model)
    override = override_max_tokens(model)
    base_id = header_request_id if header_request_id is not None else request.request_id
    base_id = f"cmpl-{base_id}"
    results = []
    for i, (token_ids, offsets) in enumerate(batches):
        if not token_ids:
            raise APIError("No token_ids rendered")
        max_tokens = get_max_tokens(
            model.max_model_len,
            request.max_tokens,
            len(token_ids),
            defaults,
            override,
            request.truncate_prompt_tokens,
        )
        sampling, kv, ec = build_sampling_params(request, max_tokens, defaults, max_n=max_n)
        results.append(
            {
                "request_id": base_id if len(batches) == 1 else f"{base_id}-{i}",
                "token_ids": token_ids,
                "token_offsets": offsets,
                "features": None,
                "content_parts": None,
                "sampling_params": sampling,
                "model": request.model,
                "reasoning_ended": None,
                "reasoning_parser_kwargs": None,
                "return_token_ids": request.return_token_ids,
                "output_mode": "tokens",
                "parse_context": None,
                "stream": bool(request.stream),
                "stream_options": (
                    request.stream_options.model_dump()
                    if request.stream and request.stream_options is not None
                    else None
                ),
                "cache_salt": request.cache_salt,
                "priority": request.priority,
                "kv_transfer_params": kv,
                "ec_transfer_params": ec,
            }
        )
    return results

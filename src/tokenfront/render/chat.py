"""`/v1/chat/completions/render`: a chat request -> vLLM's GenerateRequest JSON."""

from __future__ import annotations

from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.parsers.base import ParseContext
from tokenfront.protocol.requests import (
    ChatCompletionRequest,
    RequestValidationFailure,
    has_non_text_content,
)
from tokenfront.render import adjust, harmony
from tokenfront.render.chat_params import (
    default_template_kwargs,
    history_tool_call_count,
    merge_kwargs,
    request_template_kwargs,
    resolve_chat_template_kwargs,
    template_tools,
)
from tokenfront.render.chat_template import (
    NO_TEMPLATE_MESSAGE,
    render_chat,
    resolve_content_format,
    select_template,
)
from tokenfront.render.encoders.deepseek import encode_prompt, encoder_content_format, encoder_mode
from tokenfront.render.harmony import HARMONY_MODEL_TYPES
from tokenfront.render.kimi_k3 import render_k3_ids, uses_k3_renderer
from tokenfront.render.media_inputs import check_media_support, has_media
from tokenfront.render.messages import to_conversation
from tokenfront.render.mistral import (
    check_mistral_request,
    is_mistral_tokenizer,
    render_mistral_prompt,
)
from tokenfront.render.multimodal.images import request_images
from tokenfront.render.multimodal.kimi_k3_images import K3ImageInputs, k3_request_images
from tokenfront.render.responses_form import responses_form
from tokenfront.render.sampling import (
    build_sampling_params,
    get_max_tokens,
    override_max_tokens,
    sampling_defaults,
)
from tokenfront.render.tokens import (
    TokenizeParams,
    check_token_ids,
    encode_text_with_offsets,
    tokenizer_facts,
)
from tokenfront.tokenization.registry import ServedModel


def check_tool_choice(model: ServedModel, request: ChatCompletionRequest) -> None:
    """vLLM refuses tool choices the server has no tool parser for (a `--tool-call-parser`
    without `--enable-auto-tool-choice` builds none)."""
    options = model.options
    if options.tool_call_parser and options.enable_auto_tool_choice:
        return
    choice = request.tool_choice
    if choice is None or choice == "none":
        return
    if choice == "auto":
        if not model.options.enable_auto_tool_choice:
            raise APIError(
                '"auto" tool choice requires --enable-auto-tool-choice and '
                "--tool-call-parser to be set"
            )
        return
    name = request.named_tool_choice
    desc = f'function "{name}"' if name is not None else f'"{choice}"'
    raise APIError(f"tool_choice={desc} requires --tool-call-parser to be set")


def check_request_template(model: ServedModel, request: ChatCompletionRequest) -> None:
    if model.options.trust_request_chat_template:
        return
    kwargs = request.chat_template_kwargs
    if request.chat_template is not None or (kwargs and kwargs.get("chat_template") is not None):
        raise APIError(
            "Chat template is passed with request, but --trust-request-chat-template is not "
            "set. Refused request with untrusted chat template."
        )


def check_mm_kwargs(model: ServedModel, request: Any) -> None:
    """Per-request multimodal kwargs: refused unless `--trust-request-mm-kwargs`; trusted, they
    cannot change a text prompt, and tokenfront's image processors take none (refused there)."""
    given = [name for name in _MM_KWARGS if getattr(request, name, None)]
    if not given:
        return
    if not model.options.trust_request_mm_kwargs:
        raise RequestValidationFailure(_MM_KWARGS[given[0]], parameter=given[0])
    messages = getattr(request, "messages", None)
    if isinstance(messages, list) and has_media(messages):
        check_media_support(model, messages)  # vLLM's answer for a text-only model first
        raise RequestValidationFailure(
            f"Per-request {given[0]} are not supported with image inputs: tokenfront renders "
            "images with the processor's defaults only.",
            parameter=given[0],
        )


_MM_KWARGS = {
    "mm_processor_kwargs": "Per-request mm_processor_kwargs are disabled by default because "
    "they can change multimodal preprocessing resource usage. Start the server with "
    "--trust-request-mm-kwargs only when clients are trusted.",
    "media_io_kwargs": "Per-request media_io_kwargs are disabled by default because they can "
    "change multimodal media loading resource usage. Start the server with "
    "--trust-request-mm-kwargs only when clients are trusted.",
}


def chat_tokenize_params(model: ServedModel, request: ChatCompletionRequest) -> TokenizeParams:
    max_out: int | None
    if request.max_completion_tokens is not None:
        max_out, param = request.max_completion_tokens, "max_completion_tokens"
    else:
        max_out, param = request.max_tokens, "max_tokens"
    params = TokenizeParams(
        max_total_tokens=model.max_model_len,
        max_output_tokens=max_out,
        truncate_prompt_tokens=request.truncate_prompt_tokens,
        truncation_side=request.truncation_side,
        add_special_tokens=request.add_special_tokens,
        max_output_tokens_param=param,
    )
    params.validate()
    return params


def model_max_token_id(model: ServedModel) -> int:
    """The largest in-vocabulary id: the tokenizer's or the model config's."""
    cfg = model.hf_config.get("text_config") or model.hf_config
    vocab = cfg.get("vocab_size") if isinstance(cfg, dict) else None
    max_id = tokenizer_facts(model)[0]
    if isinstance(vocab, int):
        max_id = max(max_id, vocab - 1)
    return max_id


def reused_prompt_ids(model: ServedModel, request: ChatCompletionRequest) -> list[int] | None:
    """Prompt ids forwarded in `kv_transfer_params` (decode-side reuse), popped from it."""
    kv = request.kv_transfer_params
    if not isinstance(kv, dict):
        return None
    ids = kv.pop("prompt_token_ids", None)
    if ids is None or request.echo or has_non_text_content(request.messages):
        return None
    param = "kv_transfer_params.prompt_token_ids"
    if not isinstance(ids, list) or not ids or any(type(x) is not int or x < 0 for x in ids):
        raise RequestValidationFailure(
            "`kv_transfer_params['prompt_token_ids']` must be a non-empty list "
            "of non-negative integers.",
            parameter=param,
        )
    top = max(ids)
    if top > model_max_token_id(model):
        raise RequestValidationFailure(f"Token id {top} is out of vocabulary", parameter=param)
    return ids


def render_prompt_ids(
    model: ServedModel, request: ChatCompletionRequest, tok_params: TokenizeParams
) -> list[int]:
    return render_prompt(model, request, tok_params)[0]


def render_prompt(
    model: ServedModel,
    request: ChatCompletionRequest,
    tok_params: TokenizeParams,
    *,
    want_offsets: bool = False,
    features_out: list[dict[str, Any]] | None = None,
) -> tuple[list[int], list[list[int]] | None]:
    """Template the conversation and tokenize it (multimodal `features` into `features_out`)."""
    if is_mistral_tokenizer(model.tokenizer):
        return check_token_ids(model, render_mistral_prompt(model, request), tok_params), None
    if model.model_type in HARMONY_MODEL_TYPES:
        # gpt-oss: vLLM renders Harmony, not the template, and skips the post-tokenization step
        # (no truncation; the context check is get_max_tokens')
        return harmony.render_request(model, request), None
    lazy = responses_form(request) is None  # the chat form of a Responses request is plain
    if uses_k3_renderer(model):  # vLLM's K3 renderer: the tokenizer encodes to ids directly
        k3_images = k3_request_images(model, request.messages)  # image parts on K3 vision
        ids = check_token_ids(model, _k3_prompt_ids(model, request, k3_images), tok_params)
        if k3_images is None:
            return ids, None
        ids = k3_images.expand(model, ids, with_tensors=request.mm_payload == "tensors", params=tok_params)
        if features_out is not None and k3_images.features is not None:
            features_out.append(k3_images.features)
        return ids, None
    tools = template_tools(model, request)
    template = select_template(model, request.chat_template, tools)
    mode = encoder_mode(model.options.tokenizer_mode, model.options.model)
    if template is None and mode is None:
        raise APIError(NO_TEMPLATE_MESSAGE)
    kwargs = merge_kwargs(
        merge_kwargs(default_template_kwargs(model), {"tools": tools, "tokenize": False}),
        request_template_kwargs(request, model.options.reasoning_effort_map),
    )
    kwargs.pop("tools", None)
    kwargs.pop("tokenize", None)
    if mode is not None:  # vLLM renders these families with its own encoder, not the template
        images = request_images(model, mode, request.messages)  # image parts on V4.1 vision
        messages = request.messages if images is None else images.messages
        check_media_support(model, messages)
        conversation = to_conversation(messages, encoder_content_format(mode), lazy=lazy)
        text = encode_prompt(mode, conversation, tools, kwargs, messages)
        if images is not None:
            return images.tokenize(
                model, text, tok_params, want_offsets, request.mm_payload == "tensors", features_out
            )
        return encode_text_with_offsets(model, text, tok_params, want_offsets=want_offsets)
    check_media_support(model, request.messages)
    content_format = resolve_content_format(template, model.options.chat_template_content_format)
    conversation = to_conversation(request.messages, content_format, lazy=lazy)
    assert template is not None  # checked above: only encoder modes render without one
    text = render_chat(model.tokenizer, template, conversation, tools, kwargs)
    return encode_text_with_offsets(model, text, tok_params, want_offsets=want_offsets)


def _k3_prompt_ids(
    model: ServedModel, request: ChatCompletionRequest, images: K3ImageInputs | None = None
) -> list[int]:
    check_media_support(model, request.messages)
    form = responses_form(request)
    messages = request.messages if images is None else images.messages
    conversation = to_conversation(messages, "string", lazy=form is None)
    tools = template_tools(model, request)
    kwargs = merge_kwargs(
        merge_kwargs(default_template_kwargs(model), {"tools": tools, "tokenize": False}),
        request_template_kwargs(request, model.options.reasoning_effort_map),
    )
    return render_k3_ids(
        model,
        conversation if images is None else images.place(conversation),
        kwargs,
        chat_template=request.chat_template or (model.chat_template if model.options.chat_template else None),
        tool_choice=form.template_tool_choice if form is not None else (request.tool_choice if request.tools else None),
        response_format=request.response_format,
    )


def prompt_reasoning_ended(
    model: ServedModel, token_ids: list[int], template_kwargs: dict[str, Any], request: ChatCompletionRequest
) -> bool | None:
    """The reasoning parser's verdict on whether the prompt already closed reasoning."""
    parser = model.parser
    hook = getattr(parser, "prompt_reasoning_ended", None)
    if hook is not None:
        return hook(token_ids, template_kwargs)
    name = model.options.reasoning_parser
    if not name:
        return None
    try:
        from tokenfront.parsers.registry import get_reasoning_parser

        cls = get_reasoning_parser(name)
        ctx = ParseContext(
            tools=request.tool_dicts(),
            tool_choice=request.tool_choice_value(),
            chat_template_kwargs=template_kwargs,
            prompt_token_ids=token_ids,
        )
        return bool(cls(model.tokenizer, ctx).render_reasoning_ended(token_ids))
    except Exception:
        return None


def reasoning_kwargs_after_build(model: ServedModel, template_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The kwargs render reports for the reasoning parser (vLLM builds it with them)."""
    cls = getattr(model.parser, "reasoning_cls", None)
    return cls.kwargs_after_build(template_kwargs) if cls is not None else template_kwargs


def render_chat_request(
    model: ServedModel,
    request: ChatCompletionRequest,
    *,
    header_request_id: str | None = None,
    max_n: int = 16384,
) -> dict[str, Any]:
    if request.use_beam_search:
        raise APIError("Beam search is not supported by the render endpoint")
    if is_mistral_tokenizer(model.tokenizer):
        check_mistral_request(request)  # mistral-common encodes tools: no parser check
    elif model.model_type not in HARMONY_MODEL_TYPES:  # Harmony checks neither
        check_tool_choice(model, request)
        check_request_template(model, request)
    check_mm_kwargs(model, request)
    tok_params = chat_tokenize_params(model, request)

    offsets: list[list[int]] | None = None
    features: list[dict[str, Any]] = []
    reused = reused_prompt_ids(model, request)
    if reused is not None:
        token_ids = reused
    else:
        token_ids, offsets = render_prompt(
            model, request, tok_params, want_offsets=bool(request.return_token_offsets),
            features_out=features,
        )
    adjust.adjust_request(model, request, token_ids)
    if not token_ids:
        raise APIError("No token_ids rendered")

    defaults = sampling_defaults(model)
    max_tokens = get_max_tokens(
        model.max_model_len,
        request.max_completion_tokens
        if request.max_completion_tokens is not None
        else request.max_tokens,
        len(token_ids),
        defaults,
        override_max_tokens(model),
        request.truncate_prompt_tokens,
    )
    sampling, kv, ec = build_sampling_params(request, max_tokens, defaults, max_n=max_n)
    if model.model_type in HARMONY_MODEL_TYPES and not getattr(request, adjust.TOOL_SCHEMA, False):
        sampling = harmony.harmony_sampling(sampling)

    template_kwargs = resolve_chat_template_kwargs(model, request)
    has_reasoning = bool(model.options.reasoning_parser)
    if not request.include_reasoning or getattr(request, "_grammar_from_parser", False):
        reasoning_ended: bool | None = True  # a parser grammar covering the reasoning: from token one
    elif has_reasoning:
        reasoning_ended = prompt_reasoning_ended(model, token_ids, template_kwargs, request)
    else:
        reasoning_ended = None

    base_id = header_request_id if header_request_id is not None else request.request_id
    return {
        "request_id": f"chatcmpl-{base_id}",
        "token_ids": token_ids,
        "token_offsets": offsets,
        "features": features[0] if features else None,
        "content_parts": None,
        "sampling_params": sampling,
        "model": request.model,
        "reasoning_ended": reasoning_ended,
        "reasoning_parser_kwargs": (
            {"chat_template_kwargs": reasoning_kwargs_after_build(model, template_kwargs)}
            if has_reasoning
            else None
        ),
        "return_token_ids": request.return_token_ids,
        "output_mode": "tokens",
        "parse_context": {
            "tools": request.tool_dicts(),
            "tool_choice": request.tool_choice_value(),
            "parallel_tool_calls": request.parallel_tool_calls,
            "include_reasoning": request.include_reasoning,
            # Harmony output is parsed without template kwargs.
            "chat_template_kwargs": {} if model.model_type in HARMONY_MODEL_TYPES else template_kwargs,
            "history_tool_call_cnt": history_tool_call_count(request),
        },
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

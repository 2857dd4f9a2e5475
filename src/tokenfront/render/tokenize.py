"""/tokenize and /detokenize in vLLM's request and response shapes."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from tokenfront.api.errors import APIError
from tokenfront.protocol.base import OpenAIModel
from tokenfront.protocol.requests import (
    ChatCompletionToolsParam,
    RequestValidationFailure,
    check_message_shape,
)
from tokenfront.render.chat import check_request_template
from tokenfront.render.chat_params import default_template_kwargs, merge_kwargs
from tokenfront.render.chat_template import (
    NO_TEMPLATE_MESSAGE,
    render_chat,
    resolve_content_format,
    select_template,
)
from tokenfront.render.encoders.deepseek import encode_prompt, encoder_content_format, encoder_mode
from tokenfront.render.harmony import HARMONY_MODEL_TYPES, render_harmony_prompt
from tokenfront.render.kimi_k3 import render_k3_ids, uses_k3_renderer
from tokenfront.render.media_inputs import check_media_support
from tokenfront.render.messages import to_conversation
from tokenfront.render.mistral import is_mistral_tokenizer, tokenize_mistral_chat
from tokenfront.render.multimodal.images import expand_prompt, request_images
from tokenfront.render.multimodal.kimi_k3_images import k3_request_images
from tokenfront.tokenization.registry import ServedModel


class TokenizeCompletionRequest(OpenAIModel):
    model: str | None = None
    prompt: str
    add_special_tokens: bool = True
    return_token_strs: bool | None = False


class TokenizeChatRequest(OpenAIModel):
    model: str | None = None
    messages: list[dict[str, Any]]
    add_generation_prompt: bool = True
    return_token_strs: bool | None = False
    continue_final_message: bool = False
    add_special_tokens: bool = False
    chat_template: str | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    media_io_kwargs: dict[str, dict[str, Any]] | None = None
    mm_processor_kwargs: dict[str, Any] | None = None
    tools: list[ChatCompletionToolsParam] | None = None

    @field_validator("messages", mode="after")
    @classmethod
    def _check_messages(cls, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # A failure here is a validation error, so a body with a valid `prompt` still
        # tokenizes that prompt (vLLM's union).
        for index, msg in enumerate(messages):
            try:
                check_message_shape(index, msg, tool_calls_walked=False)
            except APIError as exc:
                raise ValueError(exc.message) from None
        return messages

    @model_validator(mode="before")
    @classmethod
    def _check_generation_prompt(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("continue_final_message") and data.get(
            "add_generation_prompt"
        ):
            raise RequestValidationFailure(
                "Cannot set both `continue_final_message` and `add_generation_prompt` to True."
            )
        return data



class DetokenizeRequest(OpenAIModel):
    model: str | None = None
    tokens: list[Annotated[int, Field(ge=0, le=2**63 - 1)]]


def tokenize(model: ServedModel, request: TokenizeCompletionRequest | TokenizeChatRequest) -> dict[str, Any]:
    if isinstance(request, TokenizeChatRequest):
        ids = _tokenize_chat(model, request)
    else:
        ids = list(
            model.tokenizer(request.prompt, add_special_tokens=request.add_special_tokens)[
                "input_ids"
            ]
        )
    out: dict[str, Any] = {"count": len(ids), "max_model_len": model.max_model_len, "tokens": ids}
    out["token_strs"] = (
        model.tokenizer.convert_ids_to_tokens(ids) if request.return_token_strs else None
    )
    return out


def _tokenize_chat(model: ServedModel, request: TokenizeChatRequest) -> list[int]:
    if model.model_type in HARMONY_MODEL_TYPES:  # gpt-oss chats are rendered with Harmony
        harmony_tools = [t.to_dict() for t in request.tools or []] or None
        return render_harmony_prompt(model.tokenizer, request.messages, harmony_tools, None)
    check_request_template(model, request)  # type: ignore[arg-type]
    if request.mm_processor_kwargs or request.media_io_kwargs:
        from tokenfront.render.chat import check_mm_kwargs

        check_mm_kwargs(model, request)
    tools = None if request.tools is None else [t.to_dict() for t in request.tools]
    if is_mistral_tokenizer(model.tokenizer):
        return tokenize_mistral_chat(
            model, request.messages, tools, request.add_generation_prompt,
            request.continue_final_message,
        )
    template = select_template(model, request.chat_template, tools)
    mode = encoder_mode(model.options.tokenizer_mode, model.options.model)
    k3 = uses_k3_renderer(model)
    if template is None and mode is None and not k3:
        raise APIError(NO_TEMPLATE_MESSAGE)
    kwargs = merge_kwargs(
        merge_kwargs(default_template_kwargs(model), {"tools": tools, "tokenize": False}),
        merge_kwargs(
            request.chat_template_kwargs,
            {
                "add_generation_prompt": request.add_generation_prompt,
                "continue_final_message": request.continue_final_message,
            },
        ),
    )
    images = request_images(model, mode, request.messages)  # image parts on V4.1 vision
    messages = request.messages if images is None else images.messages
    check_media_support(model, messages)
    if k3:  # vLLM's K3 renderer: the tokenizer encodes to ids directly
        server_template = model.chat_template if model.options.chat_template else None
        k3_images = k3_request_images(model, request.messages)  # image parts on K3 vision
        conversation = to_conversation(request.messages if k3_images is None else k3_images.messages, "string")
        if k3_images is not None:
            conversation = k3_images.place(conversation)
        ids = render_k3_ids(model, conversation, kwargs, chat_template=request.chat_template or server_template)
        return ids if k3_images is None else k3_images.expand(model, ids, with_tensors=False)
    kwargs.pop("tools", None)
    kwargs.pop("tokenize", None)
    if mode is not None:  # vLLM's DeepSeek renderers encode with their own encoder
        conversation = to_conversation(messages, encoder_content_format(mode))
        text = encode_prompt(mode, conversation, tools, kwargs, messages)
        if images is not None:
            text = images.finish_text(text)
        ids = list(model.tokenizer(text, add_special_tokens=request.add_special_tokens)["input_ids"])
        return ids if images is None else expand_prompt(model, images, ids, with_tensors=False)
    assert template is not None
    content_format = resolve_content_format(template, model.options.chat_template_content_format)
    conversation = to_conversation(request.messages, content_format)
    text = render_chat(model.tokenizer, template, conversation, tools, kwargs)
    return list(model.tokenizer(text, add_special_tokens=request.add_special_tokens)["input_ids"])


def detokenize(model: ServedModel, request: DetokenizeRequest) -> dict[str, Any]:
    return {"prompt": model.tokenizer.decode(request.tokens)}

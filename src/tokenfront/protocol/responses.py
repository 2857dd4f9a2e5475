"""The OpenAI Responses request, as vLLM 0.33.0's `/v1/responses/render` validates it.

`input` items, tools, tool_choice, reasoning and text are the openai SDK's own types (vLLM
validates with them, so the same bodies pass and fail); imported only by the responses
route, so the SDK stays out of start-up. vLLM's "before" validators are mirrored below and
run in its order (Pydantic runs "before" validators last-defined first).
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal, TypeAlias

from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseInputItemParam,
    ResponseOutputItem,
    ResponseOutputMessage,
    ResponsePrompt,
    ResponseReasoningItem,
    ResponseTextConfig,
)
from openai.types.responses.response import ToolChoice
from openai.types.responses.tool import Tool
from openai.types.shared import Metadata, Reasoning
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import (
    INT64_MAX,
    INT64_MIN,
    RequestValidationFailure,
    StopParam,
    StructuredOutputsField,
    TopLogprobs,
    apply_return_mm_kwargs_alias,
    check_cache_salt,
)

# The separator of a namespaced function's flat name (`<namespace>__<name>`).
NAMESPACE_SEPARATOR = "__"
LOGPROBS_INCLUDE = "message.output_text.logprobs"
_NOT_FOUND = "Tool choice 'function' not found in 'tools' parameter."

IncludeItem = Literal[
    "code_interpreter_call.outputs",
    "computer_call_output.output.image_url",
    "file_search_call.results",
    "message.input_image.image_url",
    "message.output_text.logprobs",
    "reasoning.encrypted_content",
]


def _uuid() -> str:
    return f"{random.getrandbits(64):016x}"


def _image_detail_default(value: Any) -> Any:
    """An input_image part without `detail` gets the API default, "auto"."""
    if not isinstance(value, dict) or not isinstance(value.get("content"), list):
        return value
    parts = value["content"]
    fixed = [
        {**p, "detail": "auto"} if isinstance(p, dict) and p.get("type") == "input_image" and "detail" not in p else p
        for p in parts
    ]
    return {**value, "content": fixed} if fixed != parts else value


InputItem: TypeAlias = Annotated[
    ResponseInputItemParam | ResponseOutputItem, BeforeValidator(_image_detail_default)
]


def _field(tool: Any, name: str) -> Any:
    return tool.get(name) if isinstance(tool, dict) else getattr(tool, name, None)


def flat_tool_name(namespace: str, name: str) -> str:
    return f"{namespace}{NAMESPACE_SEPARATOR}{name}"


def _resolve_choice_name(name: str, tools: list[Any]) -> str:
    """A named tool choice as the flat name of the one tool it designates."""
    exact: set[str] = set()
    local: dict[str, list[str]] = {}
    for tool in tools:
        if _field(tool, "type") != "namespace":
            if isinstance(tool_name := _field(tool, "name"), str):
                exact.add(tool_name)
            continue
        namespace, members = _field(tool, "name"), _field(tool, "tools")
        if not isinstance(members, list) or not isinstance(namespace, str):
            return name
        for member in members:
            if isinstance(member_name := _field(member, "name"), str):
                flat = flat_tool_name(namespace, member_name)
                exact.add(flat)
                local.setdefault(member_name, []).append(flat)
    if name in exact:
        return name
    candidates = local.get(name, [])
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise RequestValidationFailure(
            f"Tool choice '{name}' is ambiguous: it is defined in more than one namespace "
            f"({', '.join(candidates)}). Select it by its full '<namespace>__<name>' name.",
            parameter="tool_choice",
        )
    raise RequestValidationFailure(_NOT_FOUND, parameter="tool_choice")


def _check_tool_usage(data: dict[str, Any]) -> None:
    tools = data.get("tools")
    choice = data.get("tool_choice", "auto")
    named = isinstance(choice, dict) and choice.get("type") in ("function", "custom")
    if tools is None or len(tools) == 0:
        if choice in ("auto", "none"):
            data["tool_choice"] = "none"
        elif choice == "required":
            raise RequestValidationFailure(
                "Tool choice 'required' must be specified with 'tools' parameter.", parameter="tool_choice"
            )
        elif named:
            raise RequestValidationFailure(_NOT_FOUND, parameter="tool_choice")
    elif named:
        name = choice.get("name")
        if not name:
            raise RequestValidationFailure(_NOT_FOUND, parameter="tool_choice")
        resolved = _resolve_choice_name(name, tools)
        if resolved != name:
            data["tool_choice"] = {**choice, "name": resolved}


def _check_custom_tool_format(data: dict[str, Any]) -> None:
    tools = data.get("tools")
    if not isinstance(tools, list):
        return
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        fmt = tool.get("format")
        if tool.get("type") == "custom" and isinstance(fmt, dict) and fmt.get("type") == "grammar":
            raise RequestValidationFailure(
                "Custom tools with a grammar format are not supported; only free-form text "
                "custom tools are accepted.",
                parameter="tools",
            )


def _assistant_output_message(item: dict[str, Any]) -> Any:
    """An assistant message with a content list as the SDK's output message, when it is one."""
    content = item["content"]
    fixed = dict(item)
    fixed.setdefault("id", f"msg_{_uuid()}")
    fixed.setdefault("status", "completed")
    fixed["content"] = [
        {**c, "annotations": []} if isinstance(c, dict) and c.get("type") == "output_text" and "annotations" not in c else c
        for c in content
    ]
    try:
        return ResponseOutputMessage(**fixed)
    except ValidationError:
        return item


def _parse_item(item: Any) -> Any:
    """vLLM's `input_item_parsing`: items the plain union cannot tell apart become SDK models."""
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    try:
        if kind == "function_call":
            return ResponseFunctionToolCall(**item)
        if kind == "reasoning":
            item = {"id": f"rs_{_uuid()}", **item}
            return ResponseReasoningItem(**item)
    except ValidationError:
        return item
    if kind == "message" and item.get("role") == "assistant" and isinstance(item.get("content"), list):
        return _assistant_output_message(item)
    return item


def _parse_input_items(data: dict[str, Any]) -> None:
    items = data.get("input")
    if items is None or isinstance(items, (str, bytes)):
        return
    if not isinstance(items, list):
        try:
            items = list(items)
        except TypeError:
            return
    data["input"] = [_parse_item(item) for item in items]


class PromptCacheOptionsParam(BaseModel):
    model_config = ConfigDict(extra="allow")
    mode: Literal["implicit", "explicit"] = "implicit"
    ttl: Literal["30m"] = "30m"
    comparison_response_id: str | None = None
    prewarm: bool | None = None


class ResponsesRequest(BaseModel):
    """vLLM's `ResponsesRequest` fields (unknown fields accepted, as vLLM's base model does)."""

    model_config = ConfigDict(extra="allow")

    background: bool | None = False
    include: list[IncludeItem] | None = None
    input: str | list[InputItem]
    instructions: str | None = None
    max_output_tokens: int | None = None
    max_tool_calls: int | None = None
    metadata: Metadata | None = None
    model: str | None = None
    logit_bias: dict[str, float] | None = None
    parallel_tool_calls: bool | None = True
    previous_response_id: str | None = None
    prompt: ResponsePrompt | None = None
    reasoning: Reasoning | None = None
    include_reasoning: bool = True
    service_tier: Literal["auto", "default", "flex", "scale", "priority"] = "auto"
    store: bool | None = True
    stream: bool | None = False
    temperature: float | None = None
    text: ResponseTextConfig | None = None
    tool_choice: ToolChoice = "auto"
    tools: list[Tool] = Field(default_factory=list)
    top_logprobs: TopLogprobs = 0
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    truncation: Literal["auto", "disabled"] | None = "disabled"
    user: str | None = None
    skip_special_tokens: bool | None = None
    spaces_between_special_tokens: bool = True
    include_stop_str_in_output: bool = False
    presence_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    frequency_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    prompt_cache_key: str | None = None
    prompt_cache_options: PromptCacheOptionsParam | None = None
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    safety_identifier: str | None = None

    # vLLM's extensions
    watermarking: bool | None = None
    request_id: str = Field(default_factory=lambda: f"resp_{_uuid()}")
    session_id: str | None = None
    media_io_kwargs: dict[str, dict[str, Any]] | None = None
    mm_processor_kwargs: dict[str, Any] | None = None
    priority: int = Field(default=0, ge=INT64_MIN, le=INT64_MAX)
    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    cache_salt: str | None = Field(default=None, min_length=1, max_length=1024)
    enable_response_messages: bool = False
    previous_input_messages: list[dict[str, Any]] | None = None
    structured_outputs: StructuredOutputsField = None
    repetition_penalty: float | None = None
    seed: int | None = Field(None, ge=INT64_MIN, le=INT64_MAX)
    stop: StopParam = Field(default_factory=list)
    stop_token_ids: list[int] | None = Field(default_factory=list)
    ignore_eos: bool = False
    vllm_xargs: dict[str, str | int | float | list[str | int | float]] | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    chat_template_kwargs: dict[str, Any] | None = None

    @field_validator("prompt_cache_retention", mode="before")
    @classmethod
    def _old_retention_spelling(cls, value: object) -> object:
        return "in_memory" if value == "in-memory" else value

    @model_validator(mode="before")
    @classmethod
    def _vllm_before_checks(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        try:
            _check_tool_usage(data)
        except TypeError as exc:  # e.g. `tools` a number: vLLM's 400 with Python's text
            raise APIError(str(exc)) from None
        _check_custom_tool_format(data)
        _parse_input_items(data)
        if data.get("prompt") is not None:
            raise RequestValidationFailure("prompt template is not supported", parameter="prompt")
        if data.get("background") and not data.get("store", True):
            raise RequestValidationFailure(
                "background can only be used when `store` is true", parameter="background"
            )
        check_cache_salt(data)
        return apply_return_mm_kwargs_alias(data)

    def include_logprobs(self) -> bool:
        return isinstance(self.include, list) and LOGPROBS_INCLUDE in self.include

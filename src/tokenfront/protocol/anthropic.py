"""Anthropic Messages request models, as vLLM 0.33.0's `/v1/messages/render` validates them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from tokenfront.protocol.requests import MAX_STOP_STRINGS, apply_return_mm_kwargs_alias

AnthropicEffort = Literal["low", "medium", "high", "xhigh", "max"]
# The reasoning_effort a `thinking: {"type": "disabled"}` request renders with.
DisabledThinkingEffort = Literal["none", "low", "medium", "high", "xhigh", "max"]
ThinkingDisplay = Literal["summarized", "omitted", "updates"]
TOOL_CHANGE_TYPES = ("tool_addition", "tool_removal")


class AnthropicTool(BaseModel):
    name: str
    description: str | None = None
    input_schema: dict[str, Any]
    strict: bool | None = None
    defer_loading: bool | None = None

    @field_validator("input_schema")
    @classmethod
    def _default_object_type(cls, schema: dict[str, Any]) -> dict[str, Any]:
        if "type" not in schema:
            schema["type"] = "object"
        return schema


class ToolReference(BaseModel):
    type: Literal["tool_reference"]
    name: str


class ToolDefinition(BaseModel):
    type: Literal["tool_definition"]
    definition: AnthropicTool


ToolChange = Annotated[ToolReference | ToolDefinition, Field(discriminator="type")]


class ContentBlock(BaseModel):
    """One block of a message or system prompt; which fields matter depends on `type`."""

    type: Literal[
        "text",
        "image",
        "tool_use",
        "tool_result",
        "tool_reference",
        "thinking",
        "redacted_thinking",
        "tool_addition",
        "tool_removal",
    ]
    text: str | None = None
    source: dict[str, Any] | None = None
    id: str | None = None
    tool_use_id: str | None = None
    name: str | None = None
    input: dict[str, Any] | None = None
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = None
    tool_name: str | None = None
    thinking: str | None = None
    signature: str | None = None
    data: str | None = None
    tool: ToolChange | None = None

    @model_validator(mode="after")
    def _check_tool_change(self) -> ContentBlock:
        if self.type not in TOOL_CHANGE_TYPES:
            return self
        if self.tool is None:
            raise ValueError(f"tool is required for {self.type} blocks")
        if self.type == "tool_removal" and self.tool.type != "tool_reference":
            raise ValueError("tool_removal only accepts a tool_reference")
        return self


def _reject_tool_changes(content: str | list[ContentBlock] | None) -> None:
    if content is None or isinstance(content, str):
        return
    for block in content:
        if block.type in TOOL_CHANGE_TYPES:
            raise ValueError(f'{block.type} blocks are only allowed in messages with role "system"')


class AnthropicMessage(BaseModel):
    role: Literal["user", "assistant", "system"]
    content: str | list[ContentBlock]

    @model_validator(mode="after")
    def _tool_changes_only_in_system(self) -> AnthropicMessage:
        if self.role != "system":
            _reject_tool_changes(self.content)
        return self


class AnthropicToolChoice(BaseModel):
    type: Literal["auto", "any", "tool", "none"]
    name: str | None = None
    disable_parallel_tool_use: bool | None = None

    @model_validator(mode="after")
    def _name_for_tool(self) -> AnthropicToolChoice:
        if self.type == "tool" and not self.name:
            raise ValueError("tool_choice.name is required when type is 'tool'")
        return self


class JsonOutputFormat(BaseModel):
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    type: Literal["json_schema"] = "json_schema"


class OutputConfig(BaseModel):
    effort: AnthropicEffort | None = None
    format: JsonOutputFormat | None = None


class ThinkingEnabled(BaseModel):
    type: Literal["enabled"]
    budget_tokens: int = Field(ge=1024)
    display: ThinkingDisplay | None = None


class ThinkingDisabled(BaseModel):
    type: Literal["disabled"]


class ThinkingAdaptive(BaseModel):
    type: Literal["adaptive"]
    display: ThinkingDisplay | None = None


ThinkingConfig = Annotated[
    ThinkingEnabled | ThinkingDisabled | ThinkingAdaptive, Field(discriminator="type")
]


class AnthropicMessagesRequest(BaseModel):
    """The Messages API body, plus the vLLM extensions its render endpoint reads."""

    model: str
    messages: list[AnthropicMessage]
    max_tokens: int
    metadata: dict[str, Any] | None = None
    output_config: OutputConfig | None = None
    thinking: ThinkingConfig | None = None
    stop_sequences: Annotated[list[str], Field(max_length=MAX_STOP_STRINGS)] | None = None
    stream: bool | None = False
    system: str | list[ContentBlock] | None = None
    temperature: float | None = None
    tool_choice: AnthropicToolChoice | None = None
    tools: list[AnthropicTool] | None = None
    top_k: int | None = None
    top_p: float | None = None

    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    cache_salt: Annotated[str, Field(min_length=1, max_length=1024)] | None = None
    watermarking: bool | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    vllm_xargs: dict[str, str | int | float | list[str | int | float]] | None = None
    chat_template_kwargs: dict[str, Any] | None = None

    @field_validator("model")
    @classmethod
    def _model_given(cls, value: str) -> str:
        if not value:
            raise ValueError("Model is required")
        return value

    @field_validator("max_tokens")
    @classmethod
    def _positive_max_tokens(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("max_tokens must be positive")
        return value

    @field_validator("system")
    @classmethod
    def _no_tool_changes_in_system_field(
        cls, value: str | list[ContentBlock] | None
    ) -> str | list[ContentBlock] | None:
        _reject_tool_changes(value)
        return value

    @model_validator(mode="before")
    @classmethod
    def _return_mm_kwargs_alias(cls, data: Any) -> Any:
        return apply_return_mm_kwargs_alias(data) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _budget_below_max_tokens(self) -> AnthropicMessagesRequest:
        # A prefill leg (do_remote_decode) is sent with max_tokens=1 and never decodes.
        if self.kv_transfer_params and self.kv_transfer_params.get("do_remote_decode"):
            return self
        if isinstance(self.thinking, ThinkingEnabled) and self.thinking.budget_tokens >= self.max_tokens:
            raise ValueError("thinking.budget_tokens must be less than max_tokens")
        return self

"""Chat and completion request models, accepting and rejecting what vLLM 0.33.0 does.

Field types follow vLLM's request classes. Cross-field checks that vLLM performs in
"before" model validators raise `RequestValidationFailure`, which (like vLLM's
`VLLMValidationError`) is not a `ValueError`, so Pydantic lets it through unchanged and
the API answers it as a 400 "BadRequestError" carrying `param`. Field type errors stay
Pydantic errors and become 400 "Bad Request". The checks run in vLLM's order (Pydantic
runs "before" validators last-defined first).
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tokenfront.api.errors import APIError
from tokenfront.protocol.base import OpenAIModel
from tokenfront.protocol.message_schemas import (
    custom_schema_takes,
    lazy_tool_calls_fail,
    openai_schema_takes,
    schema_refusal,
)
from tokenfront.protocol.structural_tag import (
    NESTING_MESSAGE,
    response_format_error,
    structural_tag_error,
)

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
# vLLM's VLLM_MAX_STOP_STRINGS and VLLM_MAX_COMPLETION_PROMPTS defaults.
MAX_STOP_STRINGS = 4
MAX_COMPLETION_PROMPTS = 1024
MAX_CACHE_SALT_LENGTH = 128
_CACHE_SALT_FORBIDDEN = frozenset("@/\\\x00")


class RequestValidationFailure(APIError):
    """A request rejected by a cross-field check (vLLM's `VLLMValidationError`)."""

    def __init__(self, message: str, *, parameter: str | None = None, value: Any = None) -> None:
        extras = []
        if parameter is not None:
            extras.append(f"parameter={parameter}")
        if value is not None:
            extras.append(f"value={value}")
        text = f"{message} ({', '.join(extras)})" if extras else message
        super().__init__(text, param=parameter)
        self.parameter = parameter
        self.value = value


def new_request_id() -> str:
    """vLLM's `random_uuid()`: 16 hex digits.

    Ids only need to be unique, not secret: the `random` module's generator (reseeded in
    forked workers) is several times cheaper than a `getrandom` system call per request.
    """
    return f"{random.getrandbits(64):016x}"


def _none_to_zero(value: Any) -> Any:
    return 0 if value is None else value


def _thinking_budget(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, (bool, float)) or not isinstance(value, int) or (value < 0 and value != -1):
        raise RequestValidationFailure(
            "`thinking_token_budget` must be a non-negative integer or -1 for unlimited.",
            parameter="thinking_token_budget",
            value=value,
        )
    return None if value == -1 else value


TopLogprobs = Annotated[int, BeforeValidator(_none_to_zero)]
ThinkingTokenBudget = Annotated[int | None, BeforeValidator(_thinking_budget)]
StopParam = str | Annotated[list[str], Field(max_length=MAX_STOP_STRINGS)] | None
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
Int64 = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]


class StreamOptions(OpenAIModel):
    include_usage: bool | None = False
    continuous_usage_stats: bool | None = False


class FunctionDefinition(OpenAIModel):
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None
    defer_loading: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """vLLM's serialisation: declared fields only, `strict`/`defer_loading` when set."""
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        if self.strict is not None:
            out["strict"] = self.strict
        if self.defer_loading is not None:
            out["defer_loading"] = self.defer_loading
        return out


class ChatCompletionToolsParam(OpenAIModel):
    type: Literal["function"] = "function"
    function: FunctionDefinition
    defer_loading: bool | None = None

    @model_validator(mode="after")
    def _propagate_defer_loading(self) -> ChatCompletionToolsParam:
        if self.defer_loading is not None and self.function.defer_loading is None:
            self.function.defer_loading = self.defer_loading
        return self

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "function": self.function.to_dict()}
        if self.defer_loading is not None:
            out["defer_loading"] = self.defer_loading
        return out


class ChatCompletionNamedFunction(OpenAIModel):
    name: str


class ChatCompletionNamedToolChoiceParam(OpenAIModel):
    function: ChatCompletionNamedFunction
    type: Literal["function"] = "function"


class JsonSchemaResponseFormat(OpenAIModel):
    name: str
    description: str | None = None
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormat(OpenAIModel):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaResponseFormat | None = None


class LegacyStructuralTag(OpenAIModel):
    begin: str
    structural_tag_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    end: str


class LegacyStructuralTagResponseFormat(OpenAIModel):
    type: Literal["structural_tag"]
    structures: list[LegacyStructuralTag]
    triggers: list[str]


class StructuralTagResponseFormat(OpenAIModel):
    type: Literal["structural_tag"]
    format: Any


AnyResponseFormat = ResponseFormat | StructuralTagResponseFormat | LegacyStructuralTagResponseFormat

_CONSTRAINT_KEYS = ("json", "regex", "choice", "grammar", "json_object", "structural_tag")


class StructuredOutputsParams(BaseModel):
    """vLLM's StructuredOutputsParams (a pydantic dataclass: extra keys ignored)."""

    json_: str | dict[str, Any] | None = Field(default=None, alias="json")
    regex: str | None = None
    choice: list[str] | None = None
    grammar: str | None = None
    json_object: bool | None = None
    disable_any_whitespace: bool = False
    disable_additional_properties: bool = False
    whitespace_pattern: str | None = None
    structural_tag: str | None = None

    model_config = ConfigDict(populate_by_name=True)

    @model_validator(mode="after")
    def _exactly_one(self) -> StructuredOutputsParams:
        count = sum(getattr(self, _attr(k)) is not None for k in _CONSTRAINT_KEYS)
        if count > 1:
            raise RequestValidationFailure(
                "You can only use one kind of structured outputs constraint "
                f"but multiple are specified: {self.as_dict()}"
            )
        if count < 1:
            raise RequestValidationFailure(
                "You must use one kind of structured outputs constraint "
                f"but none are specified: {self.as_dict()}"
            )
        return self

    def as_dict(self) -> dict[str, Any]:
        """The JSON vLLM emits for it inside `sampling_params` (private fields included)."""
        return {
            "json": self.json_,
            "regex": self.regex,
            "choice": self.choice,
            "grammar": self.grammar,
            "json_object": self.json_object,
            "disable_any_whitespace": self.disable_any_whitespace,
            "disable_additional_properties": self.disable_additional_properties,
            "whitespace_pattern": self.whitespace_pattern,
            "structural_tag": self.structural_tag,
            "_backend": None,
            "_backend_was_auto": False,
        }


def _attr(key: str) -> str:
    return "json_" if key == "json" else key


class RepetitionDetectionParams(BaseModel):
    max_pattern_size: int = 0
    min_pattern_size: int = 0
    min_count: int = 0

    @model_validator(mode="after")
    def _check(self) -> RepetitionDetectionParams:
        if (
            self.max_pattern_size < 0
            or self.min_pattern_size < 0
            or self.min_pattern_size > self.max_pattern_size
        ):
            raise RequestValidationFailure(
                "max_pattern_size, min_pattern_size must be >=0, "
                "with min_pattern_size <= max_pattern_size. "
                "Set both to 0 to disable repetitive pattern detection."
            )
        if self.max_pattern_size > 0 and self.min_count < 2:
            raise RequestValidationFailure(
                "min_count must be >= 2 to detect repetitive patterns "
                "in engine output. If you do not wish to detect repetitive "
                "patterns, set max_pattern_size to 0."
            )
        return self


def _dataclass_value(class_name: str) -> WrapValidator:
    """vLLM declares this parameter's type as a dataclass: a value that is no object fails
    with Pydantic's dataclass error (`dataclass_type`), not a model's."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if value is None or isinstance(value, (dict, BaseModel)):
            return handler(value)
        raise PydanticCustomError(
            "dataclass_type",
            "Input should be a dictionary or an instance of {class_name}",
            {"class_name": class_name},
        )

    return WrapValidator(check)


StructuredOutputsField = Annotated[
    StructuredOutputsParams | None, _dataclass_value("StructuredOutputsParams")
]
RepetitionDetectionField = Annotated[
    RepetitionDetectionParams | None, _dataclass_value("RepetitionDetectionParams")
]


# ---------------------------------------------------------------------------
# "before" checks shared by both request kinds
# ---------------------------------------------------------------------------


def check_cache_salt(data: dict[str, Any]) -> None:
    salt = data.get("cache_salt")
    if salt is None:
        return
    if not isinstance(salt, str) or not salt:
        raise RequestValidationFailure(
            "Parameter 'cache_salt' must be a non-empty string if provided.",
            parameter="cache_salt",
        )
    if len(salt) > MAX_CACHE_SALT_LENGTH or any(c in _CACHE_SALT_FORBIDDEN for c in salt):
        raise RequestValidationFailure(
            "Parameter 'cache_salt' must be at most 128 characters and must "
            "not contain '@', '/', '\\\\', or NUL.",
            parameter="cache_salt",
        )


def apply_return_mm_kwargs_alias(data: dict[str, Any]) -> dict[str, Any]:
    """The deprecated `return_mm_kwargs: false` as `mm_payload: "none"` (unless that is given)."""
    if data.get("return_mm_kwargs") is False and "mm_payload" not in data:
        data = {**data, "mm_payload": "none"}
    return data


def _check_response_format(data: dict[str, Any]) -> None:
    response_format = data.get("response_format")
    if response_format is None:
        return
    rf_type = response_format.get("type") if isinstance(response_format, dict) else None
    if rf_type == "json_schema" and response_format.get("json_schema") is None:
        raise RequestValidationFailure(
            "When response_format type is 'json_schema', the "
            "'json_schema' field must be provided.",
            parameter="response_format",
        )
    if rf_type == "structural_tag":
        _check_structural_tag_format(response_format)


def _check_structural_tag_format(response_format: dict[str, Any]) -> None:
    # vLLM's `validate_structural_tag_response_format`: the legacy or `format` model, then
    # xgrammar's verdict on the dumped tag.
    if response_format_error(response_format) is not None:
        raise RequestValidationFailure(
            "Invalid response_format structural_tag specification.",
            parameter="response_format",
        )


def _check_stream_options(data: dict[str, Any]) -> None:
    if data.get("stream_options") and not data.get("stream"):
        raise RequestValidationFailure(
            "Stream options can only be defined when `stream=True`.",
            parameter="stream_options",
        )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _check_prompt_logprobs(data: dict[str, Any]) -> None:
    prompt_logprobs = data.get("prompt_logprobs")
    if prompt_logprobs is None:
        return
    if data.get("stream") and (prompt_logprobs > 0 or prompt_logprobs == -1):
        raise RequestValidationFailure(
            "`prompt_logprobs` are not available when `stream=True`.",
            parameter="prompt_logprobs",
        )
    if prompt_logprobs < 0 and prompt_logprobs != -1:
        raise RequestValidationFailure(
            "`prompt_logprobs` must be a positive value or -1.",
            parameter="prompt_logprobs",
            value=prompt_logprobs,
        )


def _check_structured_outputs_count(data: dict[str, Any], *, chat: bool) -> None:
    so = data.get("structured_outputs")
    if so is None:
        return
    if not isinstance(so, dict):
        return
    count = sum(so.get(k) is not None for k in ("json", "regex", "choice"))
    if count > 1:
        raise RequestValidationFailure(
            "You can only use one kind of constraints for structured "
            "outputs ('json', 'regex' or 'choice').",
            parameter=None if chat else "structured_outputs",
        )
    if chat and count > 0 and data.get("tool_choice", "none") not in ("none", "auto", "required"):
        raise RequestValidationFailure(
            "You can only either use constraints for structured outputs or tools, not both.",
        )
    # vLLM's `validate_structured_outputs_structural_tag` (a too deep tag keeps its own message).
    tag = so.get("structural_tag")
    if tag is None:
        return
    error = structural_tag_error(tag) if isinstance(tag, str) else "not a string"
    if error == NESTING_MESSAGE:
        raise RequestValidationFailure(NESTING_MESSAGE)
    if error is not None:
        raise RequestValidationFailure(
            "Invalid structured_outputs structural_tag specification.",
            parameter="structured_outputs",
        )


# ---------------------------------------------------------------------------
# chat-only "before" checks
# ---------------------------------------------------------------------------

_CORRECT_USAGE = 'Correct usage: `{"type": "function", "function": {"name": "my_function"}}`'


def _check_tool_usage(data: dict[str, Any]) -> None:
    if data.get("tools") == []:
        raise RequestValidationFailure(
            "`tools` must not be an empty array. "
            "Either provide at least one tool or omit the field entirely.",
            parameter="tools",
        )
    if "tool_choice" not in data and data.get("tools"):
        data["tool_choice"] = "auto"
    if "tool_choice" in data and data["tool_choice"] == "none":
        return
    if "tool_choice" not in data or data["tool_choice"] is None:
        return
    tool_choice = data["tool_choice"]
    if "tools" not in data or data["tools"] is None:
        raise RequestValidationFailure(
            "When using `tool_choice`, `tools` must be set.", parameter="tool_choice"
        )
    if tool_choice not in ("auto", "required") and not isinstance(tool_choice, dict):
        raise RequestValidationFailure(
            f"Invalid value for `tool_choice`: {tool_choice}! "
            'Only named tools, "none", "auto" or "required" are supported.',
            parameter="tool_choice",
        )
    if isinstance(tool_choice, dict):
        function = tool_choice.get("function")
        if not isinstance(function, dict):
            raise RequestValidationFailure(
                f"Invalid value for `function`: `{function}` in `tool_choice`! {_CORRECT_USAGE}",
                parameter="tool_choice.function",
            )
        if "name" not in function:
            raise RequestValidationFailure(
                f"Expected field `name` in `function` in `tool_choice`! {_CORRECT_USAGE}",
                parameter="tool_choice.function.name",
            )
        name = function["name"]
        if not isinstance(name, str) or len(name) == 0:
            raise RequestValidationFailure(
                f"Invalid `name` in `function`: `{name}` in `tool_choice`! {_CORRECT_USAGE}",
                parameter="tool_choice.function.name",
            )
        tools = data["tools"]
        try:
            found = any(tool["function"]["name"] == name for tool in tools)
        except (TypeError, KeyError) as exc:
            # vLLM fails here with a raw exception (a 500); a malformed tool is the client's.
            raise APIError(f"{type(exc).__name__}: {exc}", param="tools") from None
        if not found:
            raise RequestValidationFailure(
                "The tool specified in `tool_choice` does not match any of the specified `tools`",
                parameter="tool_choice",
            )


def _normalize_messages(data: dict[str, Any]) -> None:
    messages = data.get("messages")
    if not isinstance(messages, list):
        return
    for msg in messages:
        if not isinstance(msg, dict):
            continue
        tool_calls = msg.get("tool_calls")
        if tool_calls is not None and not isinstance(tool_calls, list):
            try:  # vLLM turns an iterable into a list here; anything else fails with Python's text
                msg["tool_calls"] = list(tool_calls)
            except TypeError as exc:
                raise APIError(str(exc)) from None
        reasoning_content = msg.pop("reasoning_content", None)
        if reasoning_content is not None and msg.get("reasoning") is None:
            msg["reasoning"] = reasoning_content


def _check_chat_logprobs(data: dict[str, Any]) -> None:
    if data.get("logprob_token_ids") and data.get("use_beam_search"):
        raise RequestValidationFailure(
            "`logprob_token_ids` is not supported with beam search.",
            parameter="logprob_token_ids",
        )
    if data.get("logprob_token_ids") and not data.get("logprobs"):
        raise RequestValidationFailure(
            "when using `logprob_token_ids`, `logprobs` must be set to true.",
            parameter="logprob_token_ids",
        )
    for name in ("prompt_logprobs", "top_logprobs"):
        value = data.get(name)
        if value is not None and not _is_number(value):
            raise RequestValidationFailure(
                f"`{name}` must be an integer.", parameter=name, value=value
            )
    _check_prompt_logprobs(data)
    top_logprobs = data.get("top_logprobs")
    if top_logprobs is not None:
        if top_logprobs < 0 and top_logprobs != -1:
            raise RequestValidationFailure(
                "`top_logprobs` must be a positive value or -1.",
                parameter="top_logprobs",
                value=top_logprobs,
            )
        if (top_logprobs == -1 or top_logprobs > 0) and not data.get("logprobs"):
            raise RequestValidationFailure(
                "when using `top_logprobs`, `logprobs` must be set to true.",
                parameter="top_logprobs",
            )


def _iterate_messages(data: dict[str, Any]) -> None:
    """vLLM's system-message check walks `messages` before any field is validated: a value that
    cannot be iterated fails there with Python's own TypeError text, and so does a system
    content part whose `type` is a list or an object (vLLM's once-only warning about a
    non-text type caches its arguments, which must be hashable)."""
    messages = data.get("messages", [])
    try:
        iter(messages)
    except TypeError as exc:
        raise APIError(str(exc)) from None
    for msg in messages:
        if not (isinstance(msg, dict) and msg.get("role") == "system"):
            continue
        content = msg.get("content")
        for part in content if isinstance(content, list) else ():
            part_type = part.get("type") if isinstance(part, dict) else None
            if part_type and isinstance(part_type, (list, dict)):
                raise APIError(f"unhashable type: '{type(part_type).__name__}'")


def _drop_prompt_ids_with_media(data: dict[str, Any]) -> None:
    kv = data.get("kv_transfer_params")
    if (
        isinstance(kv, dict)
        and kv.get("prompt_token_ids") is not None
        and has_non_text_content(data.get("messages"))
    ):
        kv.pop("prompt_token_ids")


_TEXT_PART_TYPES = frozenset(
    {"text", "input_text", "output_text", "refusal", "thinking", "tool_reference"}
)
_MEDIA_PART_KEYS = frozenset(
    {
        "input_image",
        "image_url",
        "image_embeds",
        "audio_embeds",
        "video_embeds",
        "prompt_embeds",
        "image_pil",
        "audio_url",
        "input_audio",
        "video_url",
    }
)


def has_non_text_content(messages: Any) -> bool:
    """Whether any message carries media content or prompt-embeds reasoning (vLLM's rule)."""
    if not isinstance(messages, list):
        return False
    for msg in messages:
        if isinstance(msg, dict):
            for key in ("reasoning", "reasoning_content"):
                value = msg.get(key)
                if isinstance(value, dict) and value.get("type") == "prompt_embeds":
                    return True
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            continue
        for part in content:
            if isinstance(part, dict):
                kind = part.get("type", "text")
                if (
                    any(key in part for key in _MEDIA_PART_KEYS)
                    or not isinstance(kind, str)
                    or kind not in _TEXT_PART_TYPES
                ):
                    return True
    return False


def _bad_message(index: int, what: str) -> APIError:
    return APIError(
        f"1 validation error:\n  {{'type': 'value_error', 'loc': 'body.messages.{index}', "
        f"'msg': {what!r}}}",
        err_type="Bad Request",
        param=f"body.messages.{index}",
    )


def message_shape_error(msg: Any, *, tool_calls_walked: bool = True) -> str | None:
    """Why vLLM's message schemas refuse `msg` at validation time (None: they take it); with
    `tool_calls_walked` (the chat request's after-validator) an assistant's lazily validated
    tool calls are checked too."""
    if not isinstance(msg, dict):
        return "Input should be a valid dictionary"
    if not isinstance(msg.get("role"), str):
        return "Field required: role"
    if not openai_schema_takes(msg) and not custom_schema_takes(msg):
        return schema_refusal(msg)
    if tool_calls_walked and lazy_tool_calls_fail(msg):
        return "Invalid tool call"
    return None


def check_message_shape(index: int, msg: Any, *, tool_calls_walked: bool = True) -> None:
    """`message_shape_error` as the 400 of message `index`."""
    what = message_shape_error(msg, tool_calls_walked=tool_calls_walked)
    if what is not None:
        raise _bad_message(index, what)


def _checked_message(msg: Any) -> Any:
    """A chat request's message, refused as a validation error of its own (so a later
    field's non-validation error still wins, as in vLLM)."""
    what = message_shape_error(msg)
    if what is not None:
        raise PydanticCustomError("value_error", what)
    return msg


class ChatCompletionRequest(OpenAIModel):
    messages: list[Annotated[dict[str, Any] | Any, AfterValidator(_checked_message)]]
    model: str | None = None
    frequency_penalty: float | None = None
    logit_bias: dict[str, float] | None = None
    logprobs: bool | None = False
    top_logprobs: TopLogprobs = 0
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    n: int | None = 1
    presence_penalty: float | None = None
    response_format: AnyResponseFormat | None = None
    seed: Int64 | None = None
    stop: StopParam = Field(default_factory=list)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    temperature: float | None = None
    top_p: float | None = None
    tools: list[ChatCompletionToolsParam] | None = None
    tool_choice: (
        Literal["none"]
        | Literal["auto"]
        | Literal["required"]
        | ChatCompletionNamedToolChoiceParam
        | None
    ) = "none"
    reasoning_effort: ReasoningEffort | None = None
    thinking_token_budget: ThinkingTokenBudget = None
    include_reasoning: bool = True
    parallel_tool_calls: bool | None = True
    user: str | None = None

    use_beam_search: bool = False
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    watermarking: bool | None = None
    length_penalty: float = 1.0
    stop_token_ids: list[int] | None = Field(default_factory=list)
    include_stop_str_in_output: bool = False
    ignore_eos: bool = False
    min_tokens: int = 0
    skip_special_tokens: bool | None = None
    spaces_between_special_tokens: bool = True
    truncate_prompt_tokens: Annotated[int, Field(ge=-1, le=INT64_MAX)] | None = None
    truncation_side: Literal["left", "right"] | None = None
    prompt_logprobs: int | None = None
    logprob_token_ids: list[int] | None = None
    allowed_token_ids: list[int] | None = None
    bad_words: list[str] = Field(default_factory=list)

    echo: bool = False
    add_generation_prompt: bool = True
    continue_final_message: bool = False
    add_special_tokens: bool = False
    documents: list[dict[str, str]] | None = None
    chat_template: str | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    media_io_kwargs: dict[str, dict[str, Any]] | None = None
    mm_processor_kwargs: dict[str, Any] | None = None
    structured_outputs: StructuredOutputsField = None
    priority: Int64 = 0
    request_id: str = Field(default_factory=new_request_id)
    session_id: str | None = None
    return_tokens_as_token_ids: bool | None = None
    return_token_ids: bool | None = None
    return_weight_versions: bool = False
    routed_experts_prompt_start: Annotated[int, Field(ge=0)] = 0
    return_token_offsets: bool | None = False
    return_prompt_text: bool | None = None
    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    cache_salt: Annotated[str, Field(min_length=1, max_length=1024)] | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    vllm_xargs: dict[str, str | int | float | list[str | int | float]] | None = None
    repetition_detection: RepetitionDetectionField = None
    stream_interval: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _vllm_before_checks(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        # vLLM's "before" validators, in the order Pydantic runs them.
        data = dict(data)
        _iterate_messages(data)
        _drop_prompt_ids_with_media(data)
        if data.get("continue_final_message") and data.get("add_generation_prompt"):
            raise RequestValidationFailure(
                "Cannot set both `continue_final_message` and `add_generation_prompt` to True."
            )
        _check_tool_usage(data)
        _check_structured_outputs_count(data, chat=True)
        _check_chat_logprobs(data)
        _check_stream_options(data)
        _check_response_format(data)
        _normalize_messages(data)
        check_cache_salt(data)
        return apply_return_mm_kwargs_alias(data)

    # --- helpers -------------------------------------------------------------

    def tool_dicts(self) -> list[dict[str, Any]] | None:
        """The tools as vLLM passes them to the chat template and parse context."""
        if self.tools is None:
            return None
        return [tool.to_dict() for tool in self.tools]

    def tool_choice_value(self) -> str | dict[str, Any] | None:
        """`tool_choice` as plain JSON."""
        choice = self.tool_choice
        if isinstance(choice, ChatCompletionNamedToolChoiceParam):
            return choice.model_dump()  # (unknown keys kept, as vLLM's model keeps them)
        return choice

    @property
    def named_tool_choice(self) -> str | None:
        choice = self.tool_choice
        if isinstance(choice, ChatCompletionNamedToolChoiceParam):
            return choice.function.name
        return None


class CompletionRequest(OpenAIModel):
    model: str | None = None
    prompt: (
        list[Annotated[int, Field(ge=0)]]
        | list[list[Annotated[int, Field(ge=0)]]]
        | str
        | list[str]
        | None
    ) = None
    echo: bool | None = False
    frequency_penalty: float | None = None
    logit_bias: dict[str, float] | None = None
    logprobs: int | None = None
    max_tokens: int | None = 16
    n: int = 1
    presence_penalty: float | None = None
    seed: Int64 | None = None
    stop: StopParam = Field(default_factory=list)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    suffix: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    user: str | None = None

    use_beam_search: bool = False
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    watermarking: bool | None = None
    length_penalty: float = 1.0
    stop_token_ids: list[int] | None = Field(default_factory=list)
    include_stop_str_in_output: bool = False
    ignore_eos: bool = False
    min_tokens: int = 0
    skip_special_tokens: bool | None = None
    spaces_between_special_tokens: bool = True
    truncate_prompt_tokens: Annotated[int, Field(ge=-1, le=INT64_MAX)] | None = None
    truncation_side: Literal["left", "right"] | None = None
    allowed_token_ids: list[int] | None = None
    prompt_logprobs: int | None = None
    logprob_token_ids: list[int] | None = None
    bad_words: list[str] = Field(default_factory=list)

    prompt_embeds: bytes | list[bytes] | None = None
    add_special_tokens: bool = True
    response_format: AnyResponseFormat | None = None
    structured_outputs: StructuredOutputsField = None
    priority: Int64 = 0
    request_id: str = Field(default_factory=new_request_id)
    session_id: str | None = None
    return_tokens_as_token_ids: bool | None = None
    return_token_ids: bool | None = None
    return_weight_versions: bool = False
    routed_experts_prompt_start: Annotated[int, Field(ge=0)] = 0
    return_token_offsets: bool | None = False
    mm_payload: Literal["tensors", "none"] = "tensors"
    return_mm_kwargs: bool | None = None
    cache_salt: Annotated[str, Field(min_length=1, max_length=1024)] | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    vllm_xargs: dict[str, str | int | float | list[str | int | float]] | None = None
    repetition_detection: RepetitionDetectionField = None
    thinking_token_budget: ThinkingTokenBudget = None
    stream_interval: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _vllm_before_checks(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        _check_prompt_list_length(data)
        _check_prompt_present(data)
        _check_stream_options(data)
        _check_completion_logprobs(data)
        _check_structured_outputs_count(data, chat=False)
        _check_response_format(data)
        if data.get("max_tokens") is None:
            data["max_tokens"] = 16
        check_cache_salt(data)
        return apply_return_mm_kwargs_alias(data)


def _check_prompt_present(data: dict[str, Any]) -> None:
    prompt = data.get("prompt")
    embeds = data.get("prompt_embeds")
    prompt_empty = prompt is None or (isinstance(prompt, str) and prompt == "")
    embeds_empty = embeds is None or (isinstance(embeds, list) and len(embeds) == 0)
    if prompt_empty and embeds_empty:
        raise RequestValidationFailure(
            "Either prompt or prompt_embeds must be provided and non-empty.",
            parameter="prompt",
        )


def _check_prompt_list_length(data: dict[str, Any]) -> None:
    prompt = data.get("prompt")
    if (
        isinstance(prompt, list)
        and len(prompt) > MAX_COMPLETION_PROMPTS
        and not all(isinstance(p, int) for p in prompt)
    ):
        raise RequestValidationFailure(
            f"prompt list length {len(prompt)} exceeds the maximum "
            f"allowed count of {MAX_COMPLETION_PROMPTS}. To increase this "
            "limit, set the VLLM_MAX_COMPLETION_PROMPTS environment variable.",
            parameter="prompt",
        )
    embeds = data.get("prompt_embeds")
    if isinstance(embeds, list) and len(embeds) > MAX_COMPLETION_PROMPTS:
        raise RequestValidationFailure(
            f"prompt_embeds list length {len(embeds)} exceeds "
            f"the maximum allowed count of {MAX_COMPLETION_PROMPTS}. To increase "
            "this limit, set the VLLM_MAX_COMPLETION_PROMPTS environment variable.",
            parameter="prompt_embeds",
        )


def _check_completion_logprobs(data: dict[str, Any]) -> None:
    if data.get("logprob_token_ids") and data.get("use_beam_search"):
        raise RequestValidationFailure(
            "`logprob_token_ids` is not supported with beam search.",
            parameter="logprob_token_ids",
        )
    if data.get("use_beam_search") and data.get("echo") and data.get("logprobs") is not None:
        raise RequestValidationFailure(
            "`echo` with `logprobs` is not supported with beam search "
            "because beam search does not compute prompt logprobs.",
            parameter="echo",
        )
    if data.get("logprob_token_ids") and data.get("echo") and data.get("max_tokens") == 0:
        raise RequestValidationFailure(
            "`logprob_token_ids` is not supported when `echo=True` and "
            "`max_tokens=0` because no output tokens are generated.",
            parameter="logprob_token_ids",
        )
    if data.get("logprob_token_ids") and data.get("logprobs") is None:
        raise RequestValidationFailure(
            "when using `logprob_token_ids`, `logprobs` must be set.",
            parameter="logprob_token_ids",
        )
    for name in ("prompt_logprobs", "logprobs"):
        value = data.get(name)
        if value is not None and not _is_number(value):
            raise RequestValidationFailure(
                f"`{name}` must be an integer.", parameter=name, value=value
            )
    _check_prompt_logprobs(data)
    logprobs = data.get("logprobs")
    if logprobs is not None and logprobs < 0 and logprobs != -1:
        raise RequestValidationFailure(
            "`logprobs` must be a positive value or -1.", parameter="logprobs", value=logprobs
        )

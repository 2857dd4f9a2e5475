"""`/v1/responses/render`: an OpenAI Responses request rendered as vLLM 0.33.0 renders it.

The input items become chat messages (vLLM's `construct_input_messages`), the tools the
function tools the model is shown (namespaces flattened, custom tools as a one-string
function), and the chat render pieces do the rest: template, tokenization, the parsers'
request adjustments. The sampling params follow the Responses rules, not the chat ones.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from openai.types.responses import (
    CustomTool,
    FunctionTool,
    NamespaceTool,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseReasoningItem,
)
from openai.types.responses.response_function_tool_call_output_item import (
    ResponseFunctionToolCallOutputItem,
)
from pydantic import ValidationError

from tokenfront.api.errors import APIError
from tokenfront.parsers.registry import get_tool_parser
from tokenfront.protocol.requests import (
    ChatCompletionNamedToolChoiceParam,
    ChatCompletionRequest,
    ChatCompletionToolsParam,
    RequestValidationFailure,
    StructuredOutputsParams,
)
from tokenfront.protocol.responses import ResponsesRequest, flat_tool_name
from tokenfront.render import adjust
from tokenfront.render.chat import (
    check_mm_kwargs,
    check_request_template,
    render_prompt,
    reused_prompt_ids,
)
from tokenfront.render.chat_params import resolve_chat_template_kwargs
from tokenfront.render.harmony import HARMONY_MODEL_TYPES, harmony_sampling
from tokenfront.render.responses_form import ResponsesForm, attach_form, responses_form
from tokenfront.render.responses_harmony import render_responses_harmony
from tokenfront.render.sampling import (
    build_sampling_params,
    get_max_tokens,
    override_max_tokens,
    sampling_defaults,
)
from tokenfront.render.tokens import TokenizeParams
from tokenfront.tokenization.registry import ServedModel

# The key of a custom tool's one-string shim function.
CUSTOM_INPUT_KEY = "input"
CUSTOM_TOOL_PARAMETERS = {
    "type": "object",
    "properties": {CUSTOM_INPUT_KEY: {"type": "string", "description": "The freeform text payload for this tool."}},
    "required": [CUSTOM_INPUT_KEY],
    "additionalProperties": False,
}
_PARTIAL = ("in_progress", "incomplete")


def _invalid_input(message: str) -> RequestValidationFailure:
    return RequestValidationFailure(message, parameter="input")


# --- input items -> chat messages --------------------------------------------------------


def _kind(item: Any) -> Any:
    return item.get("type") if isinstance(item, dict) else getattr(item, "type", None)


def continues_final_message(items: str | list[Any]) -> bool:
    """Whether the last item is an unfinished assistant message or reasoning to continue."""
    if isinstance(items, str) or not items:
        return False
    last = items[-1]
    if isinstance(last, (ResponseOutputMessage, ResponseReasoningItem)):
        return last.status in _PARTIAL
    if isinstance(last, dict):
        return last.get("type", "message") in ("message", "reasoning") and last.get("status") in _PARTIAL
    return False


def _tool_call(item: Any) -> dict[str, Any] | None:
    """A function_call / custom_tool_call item as a chat tool call."""
    if isinstance(item, ResponseFunctionToolCall):
        name = flat_tool_name(item.namespace, item.name) if item.namespace else item.name
        return {"id": item.call_id, "function": {"name": name, "arguments": item.arguments}, "type": "function"}
    if _kind(item) == "custom_tool_call":
        call = item if isinstance(item, dict) else item.model_dump()
        payload = json.dumps({CUSTOM_INPUT_KEY: call.get("input") or ""}, ensure_ascii=False)
        return {"id": call["call_id"], "function": {"name": call["name"], "arguments": payload}, "type": "function"}
    return None


def _reasoning_text(item: ResponseReasoningItem) -> str:
    if item.encrypted_content:
        raise _invalid_input("Encrypted content is not supported.")
    if item.content:
        return item.content[0].text
    return item.summary[0].text if item.summary else ""


def _output_text(item: ResponseOutputMessage) -> str:
    # vLLM reads the first part's text (a 500 for a refusal part or no part at all)
    if not item.content or not hasattr(item.content[0], "text"):
        raise _invalid_input("An assistant output message needs an output_text first content part.")
    return item.content[0].text


def _dict_assistant_text(item: dict[str, Any]) -> str | None:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        first = content[0]
        if not isinstance(first, dict):
            raise _invalid_input("An assistant message's content parts must be objects.")
        return first.get("text")
    return None


def _fill(previous: dict[str, Any] | None, key: str, value: Any) -> bool:
    """Put `value` into the previous assistant message when it has no `key` yet."""
    if previous is not None and previous.get(key) is None:
        previous[key] = value
        return True
    return False


def _item_message(item: Any, previous: dict[str, Any] | None) -> dict[str, Any] | None:
    """One input item as a new chat message, or None when it went into `previous` (the
    preceding message, when an assistant one)."""
    call = _tool_call(item)
    if call is not None:
        if previous is not None:
            calls = previous.get("tool_calls")
            if calls is None:
                previous["tool_calls"] = [call]
                return None
            if isinstance(calls, list):
                calls.append(call)
                return None
        return {"role": "assistant", "tool_calls": [call]}
    if isinstance(item, ResponseReasoningItem):
        text = _reasoning_text(item)
        return None if _fill(previous, "reasoning", text) else {"role": "assistant", "reasoning": text}
    if isinstance(item, ResponseOutputMessage):
        text = _output_text(item)
        return None if _fill(previous, "content", text) else {"role": "assistant", "content": text}
    if isinstance(item, ResponseFunctionToolCallOutputItem):
        return {"role": "tool", "content": item.output, "tool_call_id": item.call_id}
    if _kind(item) in ("function_call_output", "custom_tool_call_output"):
        output = item if isinstance(item, dict) else item.model_dump()
        return {"role": "tool", "content": output.get("output"), "tool_call_id": output.get("call_id")}
    if isinstance(item, dict) and item.get("role") == "assistant":
        said = _dict_assistant_text(item)
        if said is not None:
            return None if _fill(previous, "content", said) else {"role": "assistant", "content": said}
    if isinstance(item, dict) and "role" in item:
        return item
    raise _invalid_input(f"Unsupported input item type: {_kind(item)}")


def input_messages(request: ResponsesRequest) -> list[dict[str, Any]]:
    """The chat messages of a request: instructions as a system message, then the input."""
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    if isinstance(request.input, str):
        messages.append({"role": "user", "content": request.input})
        return messages
    start = len(messages)
    for item in request.input:
        last = messages[-1] if len(messages) > start else None
        previous = last if last is not None and last.get("role") == "assistant" else None
        message = _item_message(item, previous)
        if message is not None:
            messages.append(message)
    return messages


# --- tools -------------------------------------------------------------------------------


def _function(name: str, description: str | None, parameters: Any, strict: bool | None, defer: bool | None) -> ChatCompletionToolsParam:
    function: dict[str, Any] = {"name": name, "description": description, "parameters": parameters}
    if strict is not None:
        function["strict"] = strict
    if defer is not None:
        function["defer_loading"] = defer
    try:
        return ChatCompletionToolsParam.model_validate({"type": "function", "function": function})
    except ValidationError as exc:  # e.g. a namespace member's parameters that are no object
        raise APIError(str(exc), param="tools") from None


def function_tools(tools: list[Any]) -> list[ChatCompletionToolsParam]:
    """The tools the model is shown, in request order, as chat tools: function tools,
    namespace members as `<namespace>__<name>`, custom tools as a one-string function.
    Hosted tools (web search, MCP, ...) are not shown."""
    out: list[ChatCompletionToolsParam] = []
    for tool in tools:
        if isinstance(tool, FunctionTool):
            out.append(_function(tool.name, tool.description, tool.parameters, tool.strict, tool.defer_loading))
        elif isinstance(tool, NamespaceTool):
            out.extend(
                _function(
                    flat_tool_name(tool.name, member.name),
                    member.description,
                    member.parameters,
                    member.strict,
                    member.defer_loading,
                )
                for member in tool.tools
                if member.type == "function"
            )
        elif isinstance(tool, CustomTool):
            out.append(_function(tool.name, tool.description, dict(CUSTOM_TOOL_PARAMETERS), None, None))
    return out


def chat_tool_choice(choice: Any) -> Any:
    """The chat form of a tool choice: the option strings as they are, a named function or
    custom tool as a named function; other kinds (allowed_tools, hosted tools) force nothing,
    kept as their type name."""
    if isinstance(choice, str):
        return choice
    if choice.type in ("function", "custom"):
        return ChatCompletionNamedToolChoiceParam.model_validate({"type": "function", "function": {"name": choice.name}})
    return choice.type


# --- the chat request --------------------------------------------------------------------


def _text_format(request: ResponsesRequest) -> Any:
    return request.text.format if request.text is not None else None


def request_structured_outputs(request: ResponsesRequest) -> StructuredOutputsParams | None:
    """The output constraint of `text.format` or `structured_outputs` (not both)."""
    fmt = _text_format(request)
    if fmt is None:
        return request.structured_outputs
    if request.structured_outputs is not None:
        raise RequestValidationFailure(
            "Cannot specify both structured_outputs and text.format", parameter="structured_outputs"
        )
    if fmt.type == "json_object":
        return StructuredOutputsParams.model_validate({"json_object": True})
    if fmt.type == "json_schema" and fmt.schema_ is not None:
        return StructuredOutputsParams.model_validate({"json": fmt.schema_})
    return None


def to_chat_request(request: ResponsesRequest, *, with_messages: bool = True) -> ChatCompletionRequest:
    """The chat request vLLM's Responses render amounts to. Only the base is validated;
    messages, tools and the rest are set unchecked, as vLLM hands them to the renderer.
    A `text.format` beside `structured_outputs` is refused later (`request_structured_outputs`),
    where vLLM refuses it."""
    continue_final = continues_final_message(request.input)
    chat = ChatCompletionRequest.model_validate({"messages": [], "model": request.model})
    if with_messages:
        chat.messages = input_messages(request)
    tools = function_tools(request.tools)
    chat.tools = tools if request.tools else None
    chat.tool_choice = chat_tool_choice(request.tool_choice) if request.tools else "none"
    chat.parallel_tool_calls = request.parallel_tool_calls
    chat.add_generation_prompt = not continue_final
    chat.continue_final_message = continue_final
    chat.reasoning_effort = request.reasoning.effort if request.reasoning is not None else None
    chat.chat_template_kwargs = request.chat_template_kwargs
    chat.media_io_kwargs = request.media_io_kwargs
    chat.mm_processor_kwargs = request.mm_processor_kwargs
    chat.kv_transfer_params = request.kv_transfer_params
    chat.cache_salt = request.cache_salt
    chat.mm_payload = request.mm_payload
    own = request.structured_outputs is not None
    text_format = _text_format(request) is not None
    if not (own and text_format):
        chat.structured_outputs = request_structured_outputs(request)
    attach_form(chat, ResponsesForm(request.tool_choice if request.tools else None, own, text_format,
                                    tuple(request.tools)))
    # sampling fields, read by `build_sampling_params`
    for name in (
        "temperature", "top_p", "top_k", "min_p", "repetition_penalty", "presence_penalty",
        "frequency_penalty", "skip_special_tokens", "spaces_between_special_tokens",
        "include_stop_str_in_output", "stop", "stop_token_ids", "seed", "ignore_eos",
        "logit_bias", "watermarking", "vllm_xargs", "ec_transfer_params", "stream",
    ):  # fmt: skip
        setattr(chat, name, getattr(request, name))
    chat.logprobs = request.include_logprobs()
    chat.top_logprobs = request.top_logprobs
    return chat


def adjust_hosted_only(model: ServedModel, request: ResponsesRequest, chat: ChatCompletionRequest) -> None:
    """Tools that are all hosted ones (web search, MCP, ...) show the model no function, but
    vLLM's tool parser still sees a tool list: "required" finds nothing to call, and parsers
    that keep special tokens once tools are in play keep them."""
    options = model.options
    tool = options.tool_call_parser if options.enable_auto_tool_choice else None
    if tool is None or not request.tools or chat.tools or chat.tool_choice == "none":
        return
    traits = adjust.TOOL_PARSERS.get(tool, adjust.ToolParserTraits())
    forced = get_tool_parser(tool).forced_choice(options.strict_tool_calling)
    if chat.tool_choice == "required" and (traits.structural_tag_model is not None or forced):
        raise RequestValidationFailure(
            "tool_choice requires a function call, but tools contains no function tool the "
            "model can call.",
            parameter="tool_choice",
        )
    if traits.kind in ("skip_if_tools", "kimi"):
        chat.skip_special_tokens = False


def tokenize_params(model: ServedModel, request: ResponsesRequest) -> TokenizeParams:
    params = TokenizeParams(
        max_total_tokens=model.max_model_len,
        max_output_tokens=request.max_output_tokens,
        truncate_prompt_tokens=-1 if request.truncation != "disabled" else None,
        truncation_side=None,
        add_special_tokens=True,
        max_output_tokens_param="max_output_tokens",
    )
    params.validate()
    return params


def responses_sampling_params(
    chat: ChatCompletionRequest, max_tokens: int, defaults: dict[str, Any], max_n: int
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
    """vLLM's `ResponsesRequest.to_sampling_params` (JSON, kv / ec transfer params hoisted):
    the chat rules on the fields a Responses request has; `extra_args` is `{}` when empty."""
    return build_sampling_params(chat, max_tokens, defaults, max_n=max_n, always_extra_args=True)


def render_responses_request(
    model: ServedModel,
    request: ResponsesRequest,
    *,
    header_request_id: str | None = None,
    max_n: int = 16384,
) -> dict[str, Any]:
    """A Responses request to its `GenerateRequest`. The request id is the body's own: vLLM's
    Responses render does not read the `X-Request-Id` header (`header_request_id`)."""
    if request.previous_response_id is not None:
        raise APIError(
            "previous_response_id is not supported by the stateless render endpoint.",
            err_type="invalid_request_error",
            param="previous_response_id",
        )
    harmony = model.model_type in HARMONY_MODEL_TYPES
    chat = to_chat_request(request, with_messages=False)
    check_request_template(model, chat)
    features: list[dict[str, Any]] = []  # image inputs on vision checkpoints
    # (vLLM's order: the messages, then the output-token check of the tokenize params)
    if harmony:  # vLLM adjusts (the output format) before it builds the Harmony messages
        request_structured_outputs(request)
        form = responses_form(chat)
        assert form is not None
        attach_form(chat, replace(form, builtin_tools=any(tool.type != "function" for tool in request.tools)))
        adjust.adjust_request(model, chat, [])
        try:
            token_ids = render_responses_harmony(model, request, lambda: tokenize_params(model, request))
        except (TypeError, AttributeError, ValidationError) as exc:
            # parts the SDK types validate lazily, malformed previous_input_messages
            raise APIError(str(exc)) from None
        except KeyError as exc:  # an item without a key vLLM reads (vLLM: a 500)
            raise APIError(f"KeyError: {exc}", param="input") from None
    else:
        chat.messages = input_messages(request)
        check_mm_kwargs(model, chat)
        tok_params = tokenize_params(model, request)
        reused = reused_prompt_ids(model, chat)
        token_ids = reused if reused is not None else render_prompt(model, chat, tok_params, features_out=features)[0]
        request_structured_outputs(request)
        adjust.adjust_request(model, chat, token_ids)
        adjust_hosted_only(model, request, chat)
    if not token_ids:
        raise APIError("No token_ids rendered")

    defaults = sampling_defaults(model)
    truncate = -1 if request.truncation != "disabled" else None
    max_tokens = get_max_tokens(
        model.max_model_len, request.max_output_tokens, len(token_ids), defaults, override_max_tokens(model), truncate
    )
    sampling, kv, ec = responses_sampling_params(chat, max_tokens, defaults, max_n)
    if harmony and not getattr(chat, adjust.TOOL_SCHEMA, False):
        sampling = harmony_sampling(sampling)
    template_kwargs = resolve_chat_template_kwargs(model, chat)
    return {
        "request_id": request.request_id,
        "token_ids": token_ids,
        "token_offsets": None,
        "features": features[0] if features else None,
        "content_parts": None,
        "sampling_params": sampling,
        "model": request.model,
        "reasoning_ended": None,
        "reasoning_parser_kwargs": (
            {"chat_template_kwargs": template_kwargs} if model.options.reasoning_parser else None
        ),
        "return_token_ids": None,
        "output_mode": "tokens",
        "parse_context": None,
        "stream": bool(request.stream),
        "stream_options": None,
        "cache_salt": request.cache_salt,
        "priority": request.priority,
        "kv_transfer_params": kv,
        "ec_transfer_params": ec,
    }

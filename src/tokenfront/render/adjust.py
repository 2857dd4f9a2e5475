"""What vLLM's parsers change on a chat request before its sampling params are built
(`Parser.adjust_request`): `skip_special_tokens`, and structured outputs that force
tool calls for `tool_choice` "required" or a named function."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tokenfront.parsers.registry import get_tool_parser
from tokenfront.protocol.requests import (
    ChatCompletionRequest,
    RequestValidationFailure,
    StructuredOutputsParams,
)
from tokenfront.render import (
    cohere_adjust,
    rtemplate_adjust,
    structural_tags,
    structural_tags_hy_v4,
)
from tokenfront.render.chat_params import check_parser_setup, resolve_chat_template_kwargs
from tokenfront.render.responses_form import responses_form
from tokenfront.render.sampling import structured_outputs_for
from tokenfront.tokenization.registry import ServedModel

# Reasoning parsers built on vLLM's parser engine: their adjust_request always keeps
# special tokens.
_ENGINE_REASONING = frozenset(
    {"qwen3", "glm45", "minimax_m2", "seed_oss", "kimi_k2"}
    | {"deepseek_v4", "deepseek_v41", "step3p5", "mimo", "minicpmv", "glm47"}  # group A
    | {"plamo3", "gemma4", "inkling", "kimi_k3", "muse", "musespark1x", "muse_glimmer"}  # group C
    | {"ling3", "nemotron_v3", "granite_thinking_parser"}  # group B
    | {"mistral"}  # MistralParser's adjust_request (a reasoning adapter too)
)


@dataclass(frozen=True)
class ToolParserTraits:
    # "base": the ToolParser default; "skip_if_tools": default + keep special tokens when
    # tools are in play; "engine": default + always keep special tokens;
    # "kimi": only keeps special tokens; "mistral": engine + pre-v11 JSON schema.
    kind: str = "base"
    structural_tag_model: str | None = None
    # The parser's default strict level is FUNCTION (glm45 / glm47), not AUTO.
    function_strict_default: bool = False


TOOL_PARSERS: dict[str, ToolParserTraits] = {
    "hermes": ToolParserTraits("skip_if_tools", "hermes"),
    "qwen3_coder": ToolParserTraits("engine", "qwen_3_coder"),
    "llama3_json": ToolParserTraits("base", "llama"),
    "llama4_json": ToolParserTraits("base", "llama"),  # vLLM's class for llama3_json too
    "pythonic": ToolParserTraits("base"),
    "deepseek_v31": ToolParserTraits("base", "deepseek_v3_1"),
    "deepseek_v3": ToolParserTraits("base", "deepseek_r1"),
    "mistral": ToolParserTraits("mistral"),
    "kimi_k2": ToolParserTraits("kimi", "kimi"),
    "glm45": ToolParserTraits("engine", "glm_4_7", function_strict_default=True),
    "minimax_m2": ToolParserTraits("engine", "minimax"),
    "granite": ToolParserTraits("engine"),
    "phi4_mini_json": ToolParserTraits("base"),
    "xlam": ToolParserTraits("base"),
    "internlm": ToolParserTraits("skip_if_tools"),
    "seed_oss": ToolParserTraits("engine"),
    "step3": ToolParserTraits("skip_if_tools"),
    "hunyuan_a13b": ToolParserTraits("base"),
    "ernie45": ToolParserTraits("base"),
    "jamba": ToolParserTraits("skip_if_tools"),
    "lfm2": ToolParserTraits("skip_if_tools"),
    # Group C (vLLM classes: qwen3_json = hermes, olmo3 = pythonic base).
    "qwen3_json": ToolParserTraits("skip_if_tools", "hermes"),
    "olmo3": ToolParserTraits("base"),
    # Group A.
    "deepseek_v32": ToolParserTraits("engine", "deepseek_v3_2"),
    "deepseek_v4": ToolParserTraits("engine", "deepseek_v4"),
    "deepseek_v41": ToolParserTraits("engine", "deepseek_v4_1"),
    "step3p5": ToolParserTraits("engine", "qwen_3_coder"),
    "step5": ToolParserTraits("engine", "qwen_3_coder"),
    "mimo": ToolParserTraits("engine", "mimo"),
    "longcat": ToolParserTraits("skip_if_tools", "longcat"),
    "minimax_m3": ToolParserTraits("base"),
    "dots": ToolParserTraits("base"),
    "minicpm5": ToolParserTraits("skip_if_tools"),
    # Group C: engine adapters and Muse / Kimi K3 always keep special tokens.
    "plamo3": ToolParserTraits("engine", "plamo3"),
    "gemma4": ToolParserTraits("engine"),
    "inkling": ToolParserTraits("engine"),
    "kimi_k3": ToolParserTraits("engine", "kimi_k3"),
    "muse": ToolParserTraits("engine"),
    "musespark1x": ToolParserTraits("engine"),
    "muse_glimmer": ToolParserTraits("engine"),
    "functiongemma": ToolParserTraits("skip_if_tools"),
    # Render sweep (tests/golden/vllm-rendertools.jsonl): vLLM keeps special tokens once tools are
    # in play for these.
    "apertus": ToolParserTraits("skip_if_tools"),
    "gigachat3": ToolParserTraits("skip_if_tools"),
    "granite4": ToolParserTraits("skip_if_tools"),
    "poolside_v1": ToolParserTraits("skip_if_tools"),
    "k2_horizon": ToolParserTraits("base"),
    "qwen3_xml": ToolParserTraits("engine", "qwen_3_coder"),
    "glm47": ToolParserTraits("engine", "glm_4_7", function_strict_default=True),
    "ling3": ToolParserTraits("engine", "glm_4_7"),
    "hy_v4": ToolParserTraits("base", "hy_v4"),
    # gpt-oss (vLLM's GptOssToolParser stub; HarmonyParser reads the output).
    "openai": ToolParserTraits("base", "harmony"),
}
# Kimi K3's reasoning and tool parsers read XTML markers as contiguous text: both also turn
# `spaces_between_special_tokens` off, whatever the request.
_NO_SPECIAL_TOKEN_SPACING = frozenset({"kimi_k3"})
# `--tool-strict-level`: the server's floor for tool structural tags.
STRICT_LEVELS = {"auto": 0, "function": 1, "parameter": 2}


def _tools_in_play(request: ChatCompletionRequest) -> bool:
    return bool(request.tools) and request.tool_choice != "none"


def _params_or_empty(params: dict[str, Any] | None) -> dict[str, Any]:
    return params if params else {"type": "object", "properties": {}}


def _pop_defs(request: ChatCompletionRequest) -> dict[str, Any]:
    all_defs: dict[str, Any] = {}
    for tool in request.tools or ():
        params = tool.function.parameters
        if params is None:
            continue
        defs = params.pop("$defs", {})
        if not isinstance(defs, dict):
            raise RequestValidationFailure(
                f"`$defs` in the parameters of tool '{tool.function.name}' must be an "
                f"object, got {type(defs).__name__}.",
                parameter="tools",
            )
        for name, schema in defs.items():
            if name in all_defs and all_defs[name] != schema:
                raise RequestValidationFailure(
                    f"Tool definition '{name}' has multiple schemas, which is not supported.",
                    parameter="tools",
                )
            all_defs[name] = schema
    return all_defs


def json_schema_from_tools(request: ChatCompletionRequest) -> dict[str, Any] | None:
    """The JSON schema vLLM forces for required / named tool choices."""
    choice = request.tool_choice
    if choice in ("none", None) or request.tools is None:
        return None
    named = request.named_tool_choice
    if named is not None:
        for tool in request.tools:
            if tool.function.name == named:
                return _params_or_empty(tool.function.parameters)
        raise RequestValidationFailure(f"Tool '{named}' has not been passed in `tools`.")
    if choice != "required":
        return None
    schema: dict[str, Any] = {
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "anyOf": [
                {
                    "properties": {
                        "name": {"type": "string", "enum": [tool.function.name]},
                        "parameters": _params_or_empty(tool.function.parameters),
                    },
                    "required": ["name", "parameters"],
                }
                for tool in request.tools
            ],
        },
    }
    if request.parallel_tool_calls is False:
        schema["maxItems"] = 1
    defs = _pop_defs(request)
    if defs:
        schema["$defs"] = defs
    return schema


def _base_tool_adjust(request: ChatCompletionRequest, forced_json: bool) -> None:
    if not request.tools:
        return
    so = request.structured_outputs
    if so is not None and so.structural_tag is not None:
        return
    if not forced_json:
        return
    schema = json_schema_from_tools(request)
    form = responses_form(request)
    # vLLM puts a forced tool schema into a Responses request's `text.format`
    if schema is not None and form is not None and form.own_structured_outputs:
        raise RequestValidationFailure(
            "Cannot specify both structured_outputs and text.format", parameter="structured_outputs"
        )
    if schema is not None:
        request.structured_outputs = StructuredOutputsParams.model_validate({"json": schema})
        request.response_format = None


# Set on a gpt-oss request whose JSON schema is the tool call's: Harmony rendering leaves it
# as it is (vLLM turns only the request's own output format into a channel tag).
TOOL_SCHEMA = "_tool_schema"


def _harmony_lax_tool_adjust(request: ChatCompletionRequest, forced_json: bool) -> None:
    """vLLM's gpt-oss parser first makes the request's own output format a channel tag, so a
    required / named tool schema is forced only on a request without one."""
    if structured_outputs_for(request) is not None:
        return
    _base_tool_adjust(request, forced_json)
    if request.structured_outputs is not None:
        setattr(request, TOOL_SCHEMA, True)


def _mistral_adjust(request: ChatCompletionRequest) -> None:
    request.skip_special_tokens = False
    if responses_form(request) is not None:  # a Responses request gets no pre-v11 tool schema
        return
    named = request.named_tool_choice is not None
    if not (request.tool_choice == "required" or named):
        return
    rf = request.response_format
    overridable = rf is None or rf.type in ("text", "json_object", "json_schema")
    if request.tools and request.structured_outputs is None and overridable:
        schema = structural_tags.mistral_pre_v11_schema(request)
        if schema is not None:
            request.structured_outputs = StructuredOutputsParams.model_validate({"json": schema})
            request.response_format = None


def _tool_adjust(
    request: ChatCompletionRequest,
    traits: ToolParserTraits,
    strict_level: int | None = None,
    forced_json: bool = True,
    strict_tool_calling: bool = True,
    token_suffix: str = "",
) -> None:
    """One tool parser's adjustments (`forced_json`: required / named force the tools' JSON
    schema, the parser's `forced_choice`); without strict tool calling vLLM applies no
    structural tag."""
    if strict_tool_calling:
        structural_tags.apply_structural_tag(
            request,
            traits.structural_tag_model,
            traits.function_strict_default,
            strict_level,
            token_suffix,
        )
    kind = traits.kind
    if kind == "kimi":
        if _tools_in_play(request):
            request.skip_special_tokens = False
        return
    if kind == "mistral":
        _mistral_adjust(request)
        return
    if traits.structural_tag_model == "harmony" and not strict_tool_calling:
        _harmony_lax_tool_adjust(request, forced_json)
        return
    _base_tool_adjust(request, forced_json)
    if kind == "engine" or (kind == "skip_if_tools" and _tools_in_play(request)):
        request.skip_special_tokens = False


def adjust_request(
    model: ServedModel, request: ChatCompletionRequest, prompt_ids: list[int]
) -> None:
    """Apply the configured parsers' request adjustments in place."""
    options = model.options
    reasoning = options.reasoning_parser or None
    tool = options.tool_call_parser if options.enable_auto_tool_choice else None
    if reasoning is None and tool is None:
        return
    if rtemplate_adjust.applies(model):  # hf / beam adjust every request
        rtemplate_adjust.adjust(model, request, prompt_ids)
        return
    if reasoning is None and request.tool_choice == "none":
        return
    check_parser_setup(model, resolve_chat_template_kwargs(model, request))  # vLLM builds them here
    if cohere_adjust.applies(model):  # Cohere's unified parser replaces the per-parser rules
        cohere_adjust.adjust(model, request)
        return
    if reasoning in _ENGINE_REASONING:
        request.skip_special_tokens = False
    if reasoning in _NO_SPECIAL_TOKEN_SPACING:
        request.spaces_between_special_tokens = False
    if tool is not None:
        level = STRICT_LEVELS.get(options.tool_strict_level or "")
        _tool_adjust(
            request,
            TOOL_PARSERS.get(tool, ToolParserTraits()),
            level,
            get_tool_parser(tool).forced_choice(options.strict_tool_calling),
            options.strict_tool_calling,
            structural_tags_hy_v4.token_suffix(model.tokenizer) if tool == "hy_v4" else "",
        )
        if tool in _NO_SPECIAL_TOKEN_SPACING:
            request.spaces_between_special_tokens = False

"""What vLLM 0.33.0's `beam` parser does to a rendered chat request: constrain it with the
structural tag `rtemplate_grammar` derives from the checkpoint's `response_template`.

The tag replaces the request's own structured output (which, as a json / regex / choice
constraint the template's answer field can hold, moves into the tag's answer); a structural
tag of the request's own, a constraint xgrammar would reject, or an answer field without an
opener leaves the request as it is. A prompt that ends at the message start makes the tag cover
the reasoning too, so the engine applies it from the first token (`reasoning_ended` true). A
forced tool choice (required / named) the tag cannot serve is rejected.
"""

from __future__ import annotations

import json
from typing import Any

from tokenfront.parsers.engines import rtemplate_scan
from tokenfront.parsers.engines.response_template import decode_prompt
from tokenfront.parsers.engines.rtemplate_spec import (
    CONTENT,
    THINKING,
    TOOLS,
    Template,
    serving_template,
    tokenizer_template,
)
from tokenfront.protocol.requests import (
    ChatCompletionRequest,
    RequestValidationFailure,
    StructuredOutputsParams,
)
from tokenfront.render import rtemplate_grammar as grammar
from tokenfront.render import rtemplate_literals as lit
from tokenfront.render import rtemplate_values_grammar as vg
from tokenfront.render.sampling import structured_outputs_for
from tokenfront.render.structural_tags import json_schema
from tokenfront.tokenization.registry import ServedModel

# vLLM's VLLM_BEAM_ALWAYS_CONSTRAIN_OUTPUT default.
ALWAYS_CONSTRAIN = True
_STRICT_LEVELS = {"auto": 0, "function": 1, "parameter": 2}
GRAMMAR_FROM_PARSER = "_grammar_from_parser"


def starts_message(template: Template, prefix: str) -> bool:
    """Whether the prompt ends exactly at a message-start anchor."""
    ends = [match.end() for match in template.anchor.pattern.finditer(prefix)]
    return bool(ends) and ends[-1] == len(prefix)


def open_field(template: Template, prefix: str) -> str | None:
    """The field the prompt leaves open with an explicit opener, if any."""
    _, events = rtemplate_scan.start(template, prefix, {})
    field = None
    for event in events:
        if event["type"] == "region_open" and event["end"] > event["start"]:
            field = event["field"]
        elif event["type"] in ("region_close", "region_malformed"):
            field = None
    return field


def answer_format(output: StructuredOutputsParams) -> dict[str, Any] | None:
    """The request's own constraint as an xgrammar format (as vLLM dumps it)."""
    if output.json_object:
        return json_schema({"type": "object"})
    if output.json_ is not None:
        schema = output.json_
        return json_schema(json.loads(schema) if isinstance(schema, str) else schema)
    if output.regex is not None:
        return {"type": "regex", "pattern": output.regex}
    if output.choice is not None:
        return {"type": "or", "elements": [{"type": "const_string", "value": choice} for choice in output.choice]}
    if output.grammar is not None:
        return {"type": "grammar", "grammar": output.grammar}
    return None


def xgrammar_supports(output: StructuredOutputsParams) -> bool:
    """Whether xgrammar would accept the constraint on its own (approximated without it)."""
    if output.regex is not None:
        return vg.regex_compiles(output.regex)
    if output.grammar is not None:
        return "::=" in output.grammar  # EBNF; Lark text would need xgrammar's converter
    if output.json_ is not None:
        schema = output.json_
        if isinstance(schema, str):
            try:
                schema = json.loads(schema)
            except ValueError:
                return False
        return vg.json_compiles(schema)
    return True


def _function_dicts(request: ChatCompletionRequest, strict: list[bool] | None) -> list[dict[str, Any]]:
    out = []
    for index, tool in enumerate(request.tools or ()):
        function: dict[str, Any] = {"name": tool.function.name, "parameters": tool.function.parameters}
        pinned = tool.function.strict if strict is None else strict[index]
        if pinned is not None:
            function["strict"] = pinned
        out.append(function)
    return out


def _pinned_strictness(model: ServedModel, request: ChatCompletionRequest) -> list[bool] | None:
    """vLLM's resolve_tool_strictness: None (no constraint) for an auto choice at the auto level
    without a strict tool, else each tool's `strict` pinned."""
    level = _STRICT_LEVELS.get(model.options.tool_strict_level or "auto", 0)
    tools = request.tools or []
    if request.tool_choice == "auto" and level == 0 and not any(t.function.strict is True for t in tools):
        return None
    return [level >= 2 or tool.function.strict is True for tool in tools]


def constrain(model: ServedModel, request: ChatCompletionRequest, prompt_ids: list[int]) -> None:
    """Put the template's structural tag on `request` (or leave it; or reject a forced choice)."""
    spec = tokenizer_template(model.tokenizer)
    if spec is None:
        return
    template = serving_template(spec)
    prefix = decode_prompt(model.tokenizer, prompt_ids)
    message_start = starts_message(template, prefix)
    tag = template_tag(model, request, template, prefix, message_start)
    if tag is None:
        return
    request.structured_outputs = StructuredOutputsParams(structural_tag=json.dumps(tag))
    request.response_format = None
    setattr(request, GRAMMAR_FROM_PARSER, message_start)


def template_tag(
    model: ServedModel, request: ChatCompletionRequest, template: Template, prefix: str, message_start: bool
) -> dict[str, Any] | None:
    options = model.options
    fields = template.fields
    has_tool_parser = options.tool_call_parser == "beam" and options.enable_auto_tool_choice
    has_reasoning_parser = options.reasoning_parser == "beam"
    named = request.named_tool_choice is not None
    choice = request.tool_choice
    tools_enabled = has_tool_parser and bool(request.tools) and choice != "none" and (
        choice == "required" or named or choice in (None, "auto")
    )
    forced = tools_enabled and (choice == "required" or named)
    tools_forbidden = bool(request.tools) and choice == "none" and TOOLS in fields
    strictness = None
    constrained = False
    if tools_enabled and (forced or model.options.strict_tool_calling):
        strictness = _pinned_strictness(model, request)
        constrained = strictness is not None
    output = structured_outputs_for(request)
    if forced and output is not None:
        output = None  # a forced call overrides structured outputs
    answer = fields.get(CONTENT)
    if output is not None and (
        output.structural_tag is not None or answer is None or answer.opener is None or not xgrammar_supports(output)
    ):
        return None
    always = ALWAYS_CONSTRAIN and not forced
    if not constrained and output is None and not tools_forbidden and not always:
        return None

    current = open_field(template, prefix)
    reasoning_gated = has_reasoning_parser and request.include_reasoning
    tag = None
    if current == CONTENT:
        if always and output is None and answer is not None:
            tag = grammar.answer_rest_tag(answer)
    elif current != THINKING or reasoning_gated:
        functions = _function_dicts(request, strictness) if tools_enabled else []
        if named:
            functions = [f for f in functions if f.get("name") == request.named_tool_choice]
        try:
            tag = grammar.tool_call_tag(
                fields.get(TOOLS),
                functions,
                parallel=not named and request.parallel_tool_calls is not False,
                thinking=fields.get(THINKING),
                answer=None if forced else answer,
                answer_format=None if output is None else answer_format(output),
                message_start=lit.anchors(template) if message_start else None,
                requires_reasoning=_thinking_on(model, request),
                sorted_too=True,
                strict_arguments=True,
            )
        except ValueError as exc:
            raise RequestValidationFailure(str(exc), parameter="tools") from exc
    if tag is None and forced:
        kind = "named" if named else "required"
        raise RequestValidationFailure(
            f"response_template parsing cannot guarantee {kind} tool choice for this request",
            parameter="tool_choice",
        )
    return tag


def _thinking_on(model: ServedModel, request: ChatCompletionRequest) -> bool:
    """`enable_thinking` of the effective chat-template kwargs (default on)."""
    from tokenfront.render.chat_params import resolve_chat_template_kwargs

    kwargs = resolve_chat_template_kwargs(model, request) or {}
    return bool(kwargs.get("enable_thinking", True))

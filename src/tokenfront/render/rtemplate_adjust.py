"""What vLLM's response-template parsers (`hf`, `beam`) change on every rendered chat request.

vLLM runs their `adjust_request` whatever the tool choice: special tokens are kept and not
spaced (the template delimiters must reach the parser verbatim). With the `hf` tool parser
active and tools offered, the guarantees a template cannot enforce without a structural
grammar are rejected (strict tools, tool_choice required / named, `parallel_tool_calls`
false). `beam` instead constrains the request with the structural tag it derives from the
template (`rtemplate_beam`), and rejects a forced tool choice only when no tag can be derived.
"""

from __future__ import annotations

from tokenfront.protocol.requests import ChatCompletionRequest, RequestValidationFailure
from tokenfront.render import rtemplate_beam
from tokenfront.tokenization.registry import ServedModel

TEMPLATE_PARSERS = frozenset({"hf", "beam"})


def applies(model: ServedModel) -> bool:
    options = model.options
    tool = options.tool_call_parser if options.enable_auto_tool_choice else None
    return bool({options.reasoning_parser, tool} & TEMPLATE_PARSERS)


def _unsupported(request: ChatCompletionRequest) -> tuple[str, str] | None:
    if any(tool.function.strict for tool in request.tools or ()):
        return "strict tools", "tools"
    if request.tool_choice == "required":
        return "required tool choice", "tool_choice"
    if request.named_tool_choice is not None:
        return "named tool choice", "tool_choice"
    if request.parallel_tool_calls is False:
        return "parallel_tool_calls=False", "parallel_tool_calls"
    return None


def adjust(model: ServedModel, request: ChatCompletionRequest, prompt_ids: list[int] | None = None) -> None:
    request.skip_special_tokens = False
    request.spaces_between_special_tokens = False
    options = model.options
    tool = options.tool_call_parser if options.enable_auto_tool_choice else None
    if "beam" in (options.reasoning_parser, tool):
        rtemplate_beam.constrain(model, request, list(prompt_ids or ()))
        return
    if tool not in TEMPLATE_PARSERS or not request.tools or request.tool_choice == "none":
        return
    unsupported = _unsupported(request)
    if unsupported is not None:
        guarantee, parameter = unsupported
        raise RequestValidationFailure(
            f"response_template parsing cannot guarantee {guarantee} without a "
            "format-compatible structural grammar",
            parameter=parameter,
        )

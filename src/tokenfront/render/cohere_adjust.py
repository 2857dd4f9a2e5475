"""What vLLM's Cohere Command parser (`cohere_command3` / `cohere_command4`) changes on a render.

Special tokens are always kept (the filter needs the markers). A JSON response format (from
`response_format` json_object / json_schema, else `structured_outputs` json / json_object) and
the tools are folded into one xgrammar `structural_tag` whose tags depend on the architecture:
the schema inside `<|START_RESPONSE|>` (and `<|START_TEXT|>` for the vision / MoE models), the
calls inside `<|START_ACTION|>`. Other architectures cannot take it: vLLM answers 400.
On a Responses request vLLM reads the request's own `structured_outputs` (not `text.format`)
and its tools as sent (any kind with a name); a tag beside a `text.format` is refused.

The tools' tag holds the list-of-calls EBNF grammar of `cohere_tools_grammar` (xgrammar's
JSON-schema conversion reproduced for a subset of JSON Schema); a tool schema outside that
subset leaves the request as it is (docs/parsers.md).
"""

from __future__ import annotations

import json
from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import (
    ChatCompletionRequest,
    RequestValidationFailure,
    ResponseFormat,
    StructuredOutputsParams,
)
from tokenfront.render.cohere_tools_grammar import tool_definitions, tools_grammar
from tokenfront.render.json_schema_ebnf import SchemaRejected, UnsupportedSchema
from tokenfront.render.responses_form import responses_form
from tokenfront.tokenization.registry import ServedModel

COHERE_PARSERS = frozenset({"cohere_command3", "cohere_command4"})

_RESPONSE = ("<|START_RESPONSE|>", "<|END_RESPONSE|>")
_TEXT = ("<|START_TEXT|>", "<|END_TEXT|>")
_ACTION = ("<|START_ACTION|>", "<|END_ACTION|>")
_JSON_TAGS: dict[str, tuple[tuple[str, str], ...]] = {
    "Cohere2ForCausalLM": (_RESPONSE,),
    "Cohere2VisionForConditionalGeneration": (_RESPONSE, _TEXT),
    "Cohere2MoeForCausalLM": (_RESPONSE, _TEXT),
}


def applies(model: ServedModel) -> bool:
    options = model.options
    tool = options.tool_call_parser if options.enable_auto_tool_choice else None
    return bool({options.reasoning_parser, tool} & COHERE_PARSERS)


def _unwrap(candidate: Any) -> dict[str, Any] | None:
    if isinstance(candidate, str):
        try:
            candidate = json.loads(candidate)
        except ValueError:
            return None
    if not isinstance(candidate, dict):
        return None
    nested = candidate.get("schema")
    return nested if isinstance(nested, dict) else candidate


def _from_body(body: dict[str, Any]) -> dict[str, Any]:
    for key in ("schema", "json_schema"):
        found = _unwrap(body.get(key))
        if found is not None:
            return found
    return body


def _schema(rf: Any, so: StructuredOutputsParams | None) -> dict[str, Any] | None:
    """The JSON schema a request asks for: `response_format` first, then `structured_outputs`."""
    if isinstance(rf, ResponseFormat):
        if rf.type == "json_object":
            return {"type": "object"}
        if rf.type == "json_schema" and rf.json_schema is not None:
            found = _unwrap(rf.json_schema.json_schema)
            if found is not None:
                return found
    if so is None:
        return None
    if so.json_object:
        return {"type": "object"}
    body = so.json_
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            raise RequestValidationFailure("structured_outputs.json must be valid JSON.") from None
        if not isinstance(body, dict):
            raise RequestValidationFailure("structured_outputs.json must decode to a JSON object.")
    return _from_body(body) if isinstance(body, dict) else None


def adjust(model: ServedModel, request: ChatCompletionRequest) -> None:
    request.skip_special_tokens = False
    form = responses_form(request)
    so = request.structured_outputs
    if form is not None and not form.own_structured_outputs:
        so = None  # vLLM reads a Responses request's own field, not its text.format
    if so is not None and so.structural_tag is not None:
        return
    if request.response_format is not None and request.response_format.type == "structural_tag":
        return
    schema = _schema(request.response_format, so)
    tools = request.tools if form is None else list(form.request_tools)
    if schema is None and not tools:
        return
    architectures = model.hf_config.get("architectures") or []
    if not architectures:
        return
    arch = architectures[0]
    if arch not in _JSON_TAGS:
        raise RequestValidationFailure(
            "Failed to build structural_tag guided decoding constraints from this request's JSON "
            f"schema and/or tools. The configured model architecture ({arch!r}) does not support "
            "Cohere command structural tags, or the schema cannot be expressed in that format."
        )
    tags: list[dict[str, Any]] = []
    if schema is not None:
        tags = [{"begin": begin, "content": {"type": "json_schema", "json_schema": schema}, "end": end}
                for begin, end in _JSON_TAGS[arch]]
    if tools:
        definitions = tool_definitions(tools)
        if not definitions:
            raise RequestValidationFailure(
                "No valid tool definitions could be parsed from the request for structural tag "
                "conversion."
            )
        try:
            grammar = tools_grammar(definitions)
        except SchemaRejected as exc:  # vLLM: xgrammar's error escapes as a 500 (deviations.md)
            raise APIError(f"Invalid tool parameters schema: {exc}", param="tools") from None
        except UnsupportedSchema:
            return  # a tool schema outside the reproduced subset: no tag (docs/parsers.md)
        tags.append({"begin": _ACTION[0], "content": {"type": "grammar", "grammar": grammar},
                     "end": _ACTION[1]})
    tag = {"type": "structural_tag",
           "format": {"type": "triggered_tags", "triggers": [t["begin"] for t in tags], "tags": tags}}
    if form is not None and form.text_format:
        raise RequestValidationFailure(
            "Cannot specify both structured_outputs and text.format", parameter="structured_outputs"
        )
    request.structured_outputs = StructuredOutputsParams.model_validate({"structural_tag": json.dumps(tag)})
    if isinstance(request.response_format, ResponseFormat) and request.response_format.type != "text":
        request.response_format = None

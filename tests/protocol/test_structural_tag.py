"""Structural tags are accepted/refused as vLLM 0.33.0 (xgrammar 0.2.8) does.

`data/structural_tag_verdicts.json` is recorded from vLLM by
`scripts/record_structural_tag_verdicts.py`: every format kind, valid and broken, the legacy
`structures`/`triggers` shape, raw payload texts, response format dicts and seeded random trees.
Each entry must get the same verdict here.

Known approximations (all cases in the table agree; these are where untested inputs may not):
regexes follow xgrammar's regex-to-EBNF converter by hand (escapes, groups, classes,
quantifiers); EBNF grammars are checked for rule structure, undefined/duplicate rules, empty
alternatives, quantifier bounds, reversed class ranges and lookahead placement only; JSON
schemas are checked by `schema_to_ebnf` (a schema outside its subset is accepted) plus dangling
local `$ref`s; the JSON-schema styles other than `json` are checked as `json`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import ChatCompletionRequest, CompletionRequest
from tokenfront.protocol.structural_tag import (
    exceeds_tag_nesting,
    response_format_error,
    structural_tag_error,
)

TABLE = json.loads((Path(__file__).parent / "data" / "structural_tag_verdicts.json").read_text())
MSGS = [{"role": "user", "content": "hi"}]


def _verdict(case: dict[str, Any]) -> bool:
    payload = case["payload"]
    if case.get("via") == "response_format":
        return response_format_error(payload) is None
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return structural_tag_error(text) is None


@pytest.mark.parametrize("case", TABLE, ids=[str(i) for i in range(len(TABLE))])
def test_verdict_matches_vllm(case: dict[str, Any]) -> None:
    assert _verdict(case) == case["valid"], json.dumps(case["payload"])[:300]


def test_table_covers_every_format_kind() -> None:
    text = json.dumps(TABLE)
    kinds = [
        "const_string", "json_schema", "qwen_xml_parameter", "any_text", "token", "exclude_token",
        "any_tokens", "grammar", "regex", "sequence", "or", "tag", "triggered_tags",
        "token_triggered_tags", "tags_with_separator", "optional", "plus", "star", "repeat",
        "dispatch", "token_dispatch",
    ]  # fmt: skip
    assert all(f'"type": "{kind}"' in text for kind in kinds)
    assert len(TABLE) >= 150 and 0 < sum(c["valid"] for c in TABLE) < len(TABLE)


def test_deep_nesting_is_bounded() -> None:
    deep = '{"format": ' + '{"type": "optional", "content": ' * 500 + '{"value": "a"}' + "}" * 501
    assert exceeds_tag_nesting(deep)
    assert structural_tag_error(deep) is not None


def _reject(model: Any, body: dict[str, Any]) -> APIError:
    with pytest.raises(APIError) as err:
        model.model_validate(body)
    assert err.value.err_type == "BadRequestError"
    return err.value


@pytest.mark.parametrize(
    "fmt",
    [
        {"type": "structural_tag", "format": {}},
        {"type": "structural_tag", "format": {"type": "sequence", "elements": []}},
        {"type": "structural_tag", "format": {"type": "regex", "pattern": "(a"}},
        {"type": "structural_tag", "structures": [], "triggers": []},
    ],
)
def test_render_request_with_a_refused_response_format_is_a_400(fmt: dict[str, Any]) -> None:
    for model, body in ((ChatCompletionRequest, {"messages": MSGS}), (CompletionRequest, {"prompt": "hi"})):
        err = _reject(model, {**body, "response_format": fmt})
        assert "Invalid response_format structural_tag specification." in str(err)
        assert err.param == "response_format"


@pytest.mark.parametrize("tag", ["{}", "not json", '{"format": {"type": "grammar", "grammar": "x ::= \\"a\\""}}'])
def test_render_request_with_a_refused_structured_outputs_tag_is_a_400(tag: str) -> None:
    for model, body in ((ChatCompletionRequest, {"messages": MSGS}), (CompletionRequest, {"prompt": "hi"})):
        err = _reject(model, {**body, "structured_outputs": {"structural_tag": tag}})
        assert "Invalid structured_outputs structural_tag specification." in str(err)
        assert err.param == "structured_outputs"


def test_accepted_tags_pass_and_a_too_deep_tag_keeps_vllms_nesting_message() -> None:
    good = {"type": "structural_tag", "format": {"type": "const_string", "value": "x"}}
    ChatCompletionRequest.model_validate({"messages": MSGS, "response_format": good})
    CompletionRequest.model_validate({"prompt": "hi", "structured_outputs": {"structural_tag": json.dumps(good)}})
    deep = '{"format": ' + '{"type": "optional", "content": ' * 90 + '{"value": "a"}' + "}" * 91
    err = _reject(CompletionRequest, {"prompt": "hi", "structured_outputs": {"structural_tag": deep}})
    assert "nested too deeply" in str(err) and err.param is None


def test_formats_without_a_type_are_read_once_however_deep(monkeypatch: pytest.MonkeyPatch) -> None:
    # An untyped format is tried as each kind in turn; each sub-format is read once per
    # payload, not once per try (3^depth reads: 14 levels took a minute).
    import tokenfront.protocol.structural_tag as module

    node: dict[str, Any] = {"bad": 1}
    for _ in range(60):
        node = {"content": node}
    reads: list[int] = []
    original = module._read_format

    def counting(value: Any, depth: int) -> Any:
        reads.append(depth)
        return original(value, depth)

    monkeypatch.setattr(module, "_read_format", counting)
    assert structural_tag_error(json.dumps({"type": "structural_tag", "format": node})) is not None
    assert len(reads) <= 61

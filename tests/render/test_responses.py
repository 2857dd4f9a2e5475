"""`/v1/responses/render`: the Responses request model and its chat conversion
(tokenfront.protocol.responses, tokenfront.render.responses).

The expected shapes are vLLM 0.33.0's (`ResponsesRequest` validators, `construct_input_messages`,
`to_sampling_params`), checked side by side with `scripts/responses_diff.py`; served answers are
pinned by tests/golden/vllm-responses.jsonl, replayed in process at the end of this module.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import (
    ChatCompletionNamedToolChoiceParam,
    RequestValidationFailure,
)
from tokenfront.protocol.responses import ResponsesRequest
from tokenfront.render.responses import (
    CUSTOM_TOOL_PARAMETERS,
    continues_final_message,
    function_tools,
    input_messages,
    render_responses_request,
    request_structured_outputs,
    to_chat_request,
)
from tokenfront.render.responses_harmony import harmony_messages, preamble
from tokenfront.tokenization.registry import ServedModel

pytestmark = pytest.mark.usefixtures("template_clock_on_the_recording_day")

WEATHER = {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
CRM = {"type": "namespace", "name": "crm", "description": "CRM", "tools": [
    {"type": "function", "name": "lookup"}, {"type": "function", "name": "search"}]}


def _request(**fields: Any) -> ResponsesRequest:
    return ResponsesRequest.model_validate({"model": "qwen3", "input": "Hi", **fields})


def _messages(items: Any, **fields: Any) -> list[dict[str, Any]]:
    return input_messages(_request(input=items, **fields))


def test_the_openai_sdk_is_imported_by_the_responses_route_only() -> None:
    code = (
        "import sys\n"
        "from tokenfront.api import deferred\n"
        "deferred.load_request_modules()\n"
        "import tokenfront.api.app, tokenfront.render.anthropic\n"
        "print('openai' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- validation --------------------------------------------------------------------------


def test_no_tools_makes_auto_tool_choice_none() -> None:
    assert _request().tool_choice == "none"
    assert _request(tool_choice="auto").tool_choice == "none"


@pytest.mark.parametrize("choice", ["required", {"type": "function", "name": "get_weather"}])
def test_forcing_a_tool_without_tools_is_a_400(choice: Any) -> None:
    with pytest.raises(RequestValidationFailure) as info:
        _request(tool_choice=choice)
    assert info.value.param == "tool_choice"


@pytest.mark.parametrize("tools", [7, 1.5, True])
def test_tools_that_are_no_list_are_vllms_400_with_pythons_text(tools: Any) -> None:
    # vLLM's check_tool_usage calls len(tools): a TypeError its server answers as a 400
    with pytest.raises(APIError) as info:
        _request(tools=tools)
    assert info.value.status == 400 and "has no len()" in info.value.message


def test_a_namespace_member_whose_parameters_are_no_object_is_a_400() -> None:
    crm = {"type": "namespace", "name": "crm", "description": "CRM", "tools": [
        {"type": "function", "name": "lookup", "parameters": 7}]}
    with pytest.raises(APIError) as info:
        to_chat_request(_request(tools=[crm]))
    assert info.value.status == 400 and info.value.param == "tools"


def test_named_choice_of_a_namespace_member_resolves_to_its_flat_name() -> None:
    assert _request(tools=[CRM], tool_choice={"type": "function", "name": "lookup"}).tool_choice.name == "crm__lookup"  # type: ignore[union-attr]


def test_named_choice_defined_in_two_namespaces_is_ambiguous() -> None:
    other = {**CRM, "name": "erp"}
    with pytest.raises(RequestValidationFailure, match="ambiguous"):
        _request(tools=[CRM, other], tool_choice={"type": "function", "name": "search"})


def test_custom_tool_with_a_grammar_is_refused() -> None:
    tool = {"type": "custom", "name": "g", "format": {"type": "grammar", "syntax": "lark", "definition": "x"}}
    with pytest.raises(RequestValidationFailure, match="grammar format"):
        _request(tools=[tool])


@pytest.mark.parametrize(
    ("fields", "param"),
    [({"prompt": {"id": "p"}}, "prompt"), ({"background": True, "store": False}, "background"), ({"cache_salt": "a/b"}, "cache_salt")],
)
def test_vllm_before_checks(fields: dict[str, Any], param: str) -> None:
    with pytest.raises(RequestValidationFailure) as info:
        _request(**fields)
    assert info.value.param == param


@pytest.mark.parametrize(
    "items",
    [[{"type": "item_reference"}], [{"role": "user"}], [{"type": "function_call", "name": "f"}], 5],
)
def test_malformed_input_items_fail_sdk_validation(items: Any) -> None:
    with pytest.raises(ValidationError):
        _request(input=items)


def test_function_call_reasoning_and_assistant_list_items_become_sdk_models() -> None:
    request = _request(input=[
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]},
        {"role": "assistant", "content": "plain"},
    ])
    kinds = [type(item).__name__ for item in request.input]
    assert kinds == ["ResponseFunctionToolCall", "ResponseReasoningItem", "ResponseOutputMessage", "dict"]


def test_assistant_part_list_without_the_message_type_fails_validation() -> None:
    with pytest.raises(ValidationError):
        _request(input=[{"role": "assistant", "content": [{"type": "output_text", "text": "x"}]}])


def test_input_image_gets_the_auto_detail() -> None:
    image = {"type": "input_image", "image_url": "data:image/png;base64,AA=="}
    request = _request(input=[{"role": "user", "content": [image]}])
    assert request.input[0]["content"][0]["detail"] == "auto"  # type: ignore[index]


def test_old_prompt_cache_retention_spelling_is_accepted() -> None:
    assert _request(prompt_cache_retention="in-memory").prompt_cache_retention == "in_memory"


# --- input -> messages -------------------------------------------------------------------


def test_string_input_with_instructions() -> None:
    assert _messages("Hi", instructions="Be brief.") == [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]


def test_empty_instructions_add_no_system_message() -> None:
    assert _messages("Hi", instructions="") == [{"role": "user", "content": "Hi"}]


def test_reasoning_text_and_calls_merge_into_one_assistant_message() -> None:
    got = _messages([
        {"role": "user", "content": "Weather?"},
        {"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "think"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"type": "function_call", "call_id": "c2", "name": "lookup", "namespace": "crm", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny."}]},
    ])
    assert got == [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "reasoning": "think", "tool_calls": [
            {"id": "c1", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}, "type": "function"},
            {"id": "c2", "function": {"name": "crm__lookup", "arguments": "{}"}, "type": "function"},
        ]},
        {"role": "tool", "content": "sunny", "tool_call_id": "c1"},
        {"role": "assistant", "content": "Sunny."},
    ]


def test_assistant_text_after_its_calls_fills_the_same_message() -> None:
    got = _messages([
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"role": "assistant", "content": "done"},
    ])
    assert got == [{"role": "assistant", "tool_calls": [
        {"id": "c1", "function": {"name": "f", "arguments": "{}"}, "type": "function"}], "content": "done"}]


def test_reasoning_summary_is_the_fallback_text() -> None:
    got = _messages([{"type": "reasoning", "summary": [{"type": "summary_text", "text": "s"}]}])
    assert got == [{"role": "assistant", "reasoning": "s"}]


def test_custom_tool_call_is_a_json_shim_call() -> None:
    got = _messages([
        {"type": "custom_tool_call", "call_id": "c", "name": "run_sql", "input": "SELECT 'é';"},
        {"type": "custom_tool_call_output", "call_id": "c", "output": "1"},
    ])
    assert got[0]["tool_calls"][0]["function"]["arguments"] == json.dumps({"input": "SELECT 'é';"}, ensure_ascii=False)
    assert got[1] == {"role": "tool", "content": "1", "tool_call_id": "c"}


def test_user_and_system_items_pass_through() -> None:
    item = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "x"}]}
    assert _messages([item]) == [item]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"type": "reasoning", "summary": [], "encrypted_content": "xx"}, "Encrypted content"),
        ({"type": "item_reference", "id": "msg_1"}, "Unsupported input item type: item_reference"),
        ({"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}, "output_text"),
        ({"type": "message", "role": "assistant", "content": []}, "output_text"),  # (vLLM: 500s)
    ],
)
def test_unusable_items_are_400s(item: dict[str, Any], message: str) -> None:
    with pytest.raises(RequestValidationFailure, match=message) as info:
        _messages([item])
    assert info.value.param == "input"


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        ({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}], "status": "incomplete"}, True),
        ({"type": "reasoning", "summary": [], "status": "in_progress"}, True),
        ({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]}, False),
        ({"role": "user", "content": "x", "status": "incomplete"}, True),
        ({"type": "function_call_output", "call_id": "c", "output": "x", "status": "incomplete"}, False),
    ],
)
def test_unfinished_last_item_continues_the_final_message(last: dict[str, Any], expected: bool) -> None:
    request = _request(input=[{"role": "user", "content": "Hi"}, last])
    assert continues_final_message(request.input) is expected
    chat = to_chat_request(request)
    assert (chat.continue_final_message, chat.add_generation_prompt) == (expected, not expected)


# --- tools -------------------------------------------------------------------------------


def test_function_tools_flatten_namespaces_shim_custom_tools_and_drop_hosted_ones() -> None:
    request = _request(tools=[WEATHER, CRM, {"type": "custom", "name": "run_sql"}, {"type": "web_search"}])
    tools = [tool.to_dict() for tool in function_tools(request.tools)]
    assert [t["function"]["name"] for t in tools] == ["get_weather", "crm__lookup", "crm__search", "run_sql"]
    assert tools[3]["function"]["parameters"] == CUSTOM_TOOL_PARAMETERS
    assert "strict" not in tools[0]["function"]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("required", "required"),
        ({"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "get_weather"}]}, "allowed_tools"),
    ],
)
def test_tool_choice_in_chat_form(choice: Any, expected: Any) -> None:
    assert to_chat_request(_request(tools=[WEATHER], tool_choice=choice)).tool_choice == expected


def test_named_function_choice_becomes_a_named_chat_choice() -> None:
    chat = to_chat_request(_request(tools=[WEATHER], tool_choice={"type": "function", "name": "get_weather"}))
    assert isinstance(chat.tool_choice, ChatCompletionNamedToolChoiceParam)
    assert chat.named_tool_choice == "get_weather"


def test_only_hosted_tools_leave_an_empty_tool_list() -> None:
    assert to_chat_request(_request(tools=[{"type": "web_search"}])).tools == []


# --- output format and sampling ----------------------------------------------------------


def test_text_format_and_structured_outputs_together_are_a_400() -> None:
    request = _request(text={"format": {"type": "json_object"}}, structured_outputs={"regex": "a"})
    with pytest.raises(RequestValidationFailure, match="Cannot specify both") as info:
        request_structured_outputs(request)
    assert info.value.param == "structured_outputs"


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ({"type": "text"}, None),
        ({"type": "json_object"}, {"json_object": True}),
        ({"type": "json_schema", "name": "a", "schema": {"type": "object"}}, {"json": {"type": "object"}}),
    ],
)
def test_text_format_is_the_structured_output(fmt: dict[str, Any], expected: Any) -> None:
    so = to_chat_request(_request(text={"format": fmt})).structured_outputs
    got = None if so is None else {k: v for k, v in so.as_dict().items() if v not in (None, False)}
    assert got == expected


def test_sampling_defaults_extra_args_and_logprobs(qwen3_plain: ServedModel) -> None:
    got = render_responses_request(qwen3_plain, _request(include=["message.output_text.logprobs"], top_logprobs=3))
    sp = got["sampling_params"]
    assert sp["extra_args"] == {} and sp["logprobs"] == 3
    assert (sp["temperature"], sp["top_p"], sp["top_k"]) == (0.6, 0.95, 20)  # generation_config.json


def test_logprobs_need_the_include_entry(qwen3_plain: ServedModel) -> None:
    assert "logprobs" not in render_responses_request(qwen3_plain, _request(top_logprobs=3))["sampling_params"]


def test_hoisted_transfer_params_leave_no_extra_args(qwen3_plain: ServedModel) -> None:
    got = render_responses_request(qwen3_plain, _request(kv_transfer_params={"do_remote_decode": True}))
    assert "extra_args" not in got["sampling_params"]
    assert got["kv_transfer_params"] == {"do_remote_decode": True}


def test_max_output_tokens_caps_the_budget(qwen3_plain: ServedModel) -> None:
    assert render_responses_request(qwen3_plain, _request(max_output_tokens=7))["sampling_params"]["max_tokens"] == 7


def test_max_output_tokens_beyond_the_context_is_a_400(qwen3_plain: ServedModel) -> None:
    with pytest.raises(RequestValidationFailure) as info:
        render_responses_request(qwen3_plain, _request(max_output_tokens=10**7))
    assert info.value.param == "max_output_tokens"


def test_forced_tool_schema_beside_own_structured_outputs_is_a_400() -> None:
    """vLLM's JSON-forcing tool parsers (pythonic here) write the tool schema into `text.format`."""
    path = Path(os.environ["TOKENFRONT_TEST_MODELS"]) / "llama3"
    if not path.is_dir():
        pytest.skip("shared llama3 model not available")
    from tokenfront.config import ModelOptions
    from tokenfront.tokenization.registry import load_model

    model = load_model(ModelOptions(model=str(path), served_model_name=["llama3"], tool_call_parser="pythonic",
                                    enable_auto_tool_choice=True))
    request = _request(tools=[WEATHER], tool_choice={"type": "function", "name": "get_weather"},
                       structured_outputs={"choice": ["yes", "no"]})
    with pytest.raises(RequestValidationFailure, match="Cannot specify both") as info:
        render_responses_request(model, request)
    assert info.value.param == "structured_outputs"
    assert "structured_outputs" in render_responses_request(model, _request(structured_outputs={"choice": ["a"]}))["sampling_params"]


# --- the render --------------------------------------------------------------------------


def test_previous_response_id_is_refused(qwen3_plain: ServedModel) -> None:
    with pytest.raises(APIError) as info:
        render_responses_request(qwen3_plain, _request(previous_response_id="resp_1"))
    assert (info.value.err_type, info.value.param) == ("invalid_request_error", "previous_response_id")


def test_answer_uses_the_body_request_id_not_the_header(qwen3_plain: ServedModel) -> None:
    got = render_responses_request(qwen3_plain, _request(request_id="resp_x"), header_request_id="hdr")
    assert got["request_id"] == "resp_x"
    assert got["parse_context"] is None and got["reasoning_ended"] is None


def test_prompt_matches_the_chat_template(qwen3_hermes: ServedModel) -> None:
    got = render_responses_request(qwen3_hermes, _request(
        instructions="Be brief.", tools=[WEATHER], reasoning={"effort": "none"},
        input=[{"role": "user", "content": [{"type": "input_text", "text": "Weather?"}]}],
    ))
    prompt = qwen3_hermes.tokenizer.decode(got["token_ids"])
    assert prompt.startswith("<|im_start|>system\nBe brief.") and '"name": "get_weather"' in prompt
    assert prompt.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")  # effort none: thinking off
    kwargs = got["reasoning_parser_kwargs"]["chat_template_kwargs"]
    assert kwargs["enable_thinking"] is False and kwargs["reasoning_effort"] == "none"
    assert got["sampling_params"]["skip_special_tokens"] is False


def test_required_tool_choice_forces_a_tool_call_grammar(llama3_json: ServedModel) -> None:
    got = render_responses_request(llama3_json, _request(tools=[WEATHER], tool_choice="required"))
    tag = json.loads(got["sampling_params"]["structured_outputs"]["structural_tag"])
    assert tag["format"]["at_least_one"] is True
    assert tag["format"]["tags"][0]["begin"] == '{"name": "get_weather", "parameters": '


# --- gpt-oss: Harmony ---------------------------------------------------------------------


def test_harmony_instructions_come_from_a_leading_system_item() -> None:
    request = _request(input=[{"role": "developer", "content": [{"type": "input_text", "text": "Be "}, {"type": "input_text", "text": "brief"}]},
                              {"role": "user", "content": "Hi"}])
    messages = harmony_messages(request, None)
    assert [m.role for m in messages] == ["system", "developer", "user"]
    assert messages[1].parts == ["# Instructions\n\nBe brief"]


def test_harmony_items_become_channel_messages() -> None:
    request = _request(input=[
        {"role": "user", "content": "Weather?"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "ignored"}]},
        {"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "a"}, {"type": "reasoning_text", "text": "b"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny."}]},
    ])
    got = [(m.role, m.name, m.channel, m.recipient, m.parts) for m in harmony_messages(request, "low")[1:]]
    assert got == [
        ("user", None, None, None, ["Weather?"]),
        ("assistant", None, "analysis", None, ["a\nb"]),
        ("assistant", None, "commentary", "functions.get_weather", ["{}"]),
        ("tool", "functions.get_weather", "commentary", "assistant", ["sunny"]),
        ("assistant", None, "final", None, ["Sunny."]),
    ]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([{"type": "function_call_output", "call_id": "nope", "output": "x"}], "No call message found for nope"),
        ([{"type": "custom_tool_call_output", "call_id": "c", "output": "x"}], "Unknown input type: custom_tool_call_output"),
    ],
)
def test_harmony_item_errors_are_invalid_request_errors(items: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(APIError, match=message) as info:
        harmony_messages(_request(input=items), None)
    assert (info.value.err_type, info.value.param) == ("invalid_request_error", "input")


def test_harmony_builtin_only_tools_add_no_developer_message() -> None:
    assert [m.role for m in preamble(None, _request(tools=[{"type": "web_search_preview"}]).tools, None)] == ["system"]


def test_harmony_refuses_custom_tools_and_unknown_efforts() -> None:
    with pytest.raises(RequestValidationFailure, match="tool type 'custom' is not supported"):
        preamble(None, _request(tools=[{"type": "custom", "name": "x"}]).tools, None)
    with pytest.raises(RequestValidationFailure, match="Supported values are: high, medium, low"):
        preamble(None, [], "none")


def test_harmony_previous_input_messages_drop_instructions() -> None:
    request = _request(input="", previous_input_messages=[
        {"role": "system", "content": "old"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "name": "f", "content": "r"},
        {"author": {"role": "assistant"}, "content": "{}", "channel": "commentary", "recipient": "functions.g", "content_type": "<|constrain|>json"},
    ])
    got = [(m.role, m.name, m.recipient, m.content_type) for m in harmony_messages(request, None)[1:]]
    assert got == [
        ("assistant", None, "functions.f", "json"),
        ("tool", "functions.f", "assistant", None),
        ("assistant", None, "functions.g", "<|constrain|>json"),
    ]  # and no user message for the empty input


# --- vLLM's answers, replayed in process -------------------------------------------------
# tests/golden/vllm-responses.jsonl (scripts/responses_diff.py --record-all), each case
# through the app `tokenfront serve` builds for its config (the ASGI stack, no server process),
# compared with the shared harness's rules. tests/parity/test_inprocess_parity.py leaves this
# corpus to this module.

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden" / "vllm-responses.jsonl"
CONFIGS = REPO / "tests" / "golden" / "configs-responses.json"
PARITY = Path(os.environ.get("TOKENFRONT_SHARED", REPO.parent / "shared")) / "parity"


def _golden_cases() -> list[Any]:
    if not GOLDEN.is_file():
        return []
    cases = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases.sort(key=lambda case: case["config"])  # one app alive at a time
    return [pytest.param(case, id=case["id"]) for case in cases]


def _paritylib() -> Any:
    if str(PARITY) not in sys.path:
        sys.path.insert(0, str(PARITY))
    import paritylib

    return paritylib


def _model_dir(model: str) -> Path:
    """A config's model: under ../shared, or `repo:PATH` (built from `PATH-src/build.py` if any)."""
    if not model.startswith("repo:"):
        return PARITY.parent / model
    path = REPO / model.removeprefix("repo:")
    builder = path.with_name(path.name + "-src") / "build.py"
    if builder.is_file():
        spec = importlib.util.spec_from_file_location(f"_build_{path.name}", builder)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.build(path)
    return path


def _deviations() -> dict[str, str]:
    path = REPO / "tests" / "golden" / "deviations.json"
    if not path.is_file() or os.environ.get("TOKENFRONT_PARITY_NO_DEVIATIONS"):
        return {}
    listed: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return listed


_clients: dict[str, Any] = {}


def _client(name: str, config: dict[str, Any]) -> Any:
    if name not in _clients:
        from starlette.testclient import TestClient

        from tokenfront import cli

        for client in _clients.values():
            client.__exit__(None, None, None)
        _clients.clear()
        argv = ["--model", str(_model_dir(config["model"])), "--served-model-name", config["served_model_name"],
                *config.get("args", [])]
        _clients[name] = TestClient(cli.app_from_argv(argv), raise_server_exceptions=False)
        _clients[name].__enter__()
    return _clients[name]


@pytest.mark.skipif(not (PARITY / "paritylib.py").is_file(), reason=f"shared parity harness not found at {PARITY}")
@pytest.mark.parametrize("case", _golden_cases())
def test_golden_answer_matches_vllm(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    reason = _deviations().get(case["id"])
    if reason:
        pytest.skip(f"deliberate deviation from vLLM 0.33.0: {reason}")
    lib = _paritylib()
    config = lib.load_configs(CONFIGS)[case["config"]]
    if not _model_dir(config["model"]).is_dir():
        pytest.skip(f"model {config['model']} not available")
    for name, value in config.get("env", {}).items():  # VLLM_SYSTEM_START_DATE for gpt-oss
        monkeypatch.setenv(name, value)
    client = _client(case["config"], config)
    got = lib.run_case(client, str(client.base_url).rstrip("/"), case)
    diffs = lib.compare_result(case, case, got)
    assert not diffs, "\n".join(diffs)

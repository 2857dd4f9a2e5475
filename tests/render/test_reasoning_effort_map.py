"""`--reasoning-effort-map`: checked like vLLM's flag, applied to the request's reasoning effort."""

from __future__ import annotations

import pytest

from tokenfront.cli import reasoning_effort_map
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.chat_params import request_template_kwargs


def test_flag_parses_a_json_object() -> None:
    assert reasoning_effort_map('{"medium": "low"}') == {"medium": "low"}
    assert reasoning_effort_map(None) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('["low"]', "must be a JSON object mapping reasoning efforts to strings"),
        ('{"low": 1}', "must be a JSON object mapping reasoning efforts to strings"),
        ('{"huge": "max"}', "has unknown efforts ['huge']"),
    ],
)
def test_flag_rejects(value: str, message: str) -> None:
    with pytest.raises(SystemExit, match=message.replace("[", r"\[").replace("]", r"\]")):
        reasoning_effort_map(value)


def test_mapped_effort_drives_enable_thinking() -> None:
    request = ChatCompletionRequest.model_validate(
        {"messages": [{"role": "user", "content": "x"}], "reasoning_effort": "minimal"}
    )
    kwargs = request_template_kwargs(request, {"minimal": "none", "medium": "low"})
    assert kwargs["reasoning_effort"] == "none"
    assert kwargs["enable_thinking"] is False
    assert request_template_kwargs(request)["reasoning_effort"] == "minimal"

"""cohere_command3 / cohere_command4: the mode filter engine against cohere-melody's own answers.

`data/cohere_melody_vectors.json` holds cohere-melody 0.15.3's results (the filter vLLM 0.33.0
delegates to) per chunk, for the final flush and one-shot, recorded by
`scripts/record_cohere_melody_vectors.py`. The served behaviour (tool_choice, ids, citations on
the wire) is pinned by the golden corpus `tests/golden/vllm-cohere.jsonl`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.cited_text import Batch
from tokenfront.parsers.engines.mode_filter import flush, new_state, run_whole, write
from tokenfront.parsers.reasoning.cohere_command import CohereCommand3ReasoningParser
from tokenfront.parsers.tools.cohere_command import COMMAND3, COMMAND4, SPECS

DATA = Path(__file__).parent / "data" / "cohere_melody_vectors.json"
MODEL = Path(__file__).resolve().parents[1] / "models" / "cohere-synth"
VECTORS: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["vectors"]

CALL = '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>'


def _view(batch: Batch) -> list[Any] | None:
    calls = [[i, p["id"], p["name"], p["args"]] for i, p in batch.call_list()]
    citations = [
        [c["start"], c["end"], c["text"], c["thinking"],
         [[s["tool_call_index"], s["tool_result_indices"]] for s in c["sources"]]]
        for c in batch.citations
    ]
    if batch.content is None and batch.reasoning is None and not calls and not citations:
        return None
    return [batch.content, batch.reasoning, calls, citations]


@pytest.mark.parametrize("vec", VECTORS, ids=lambda v: f"{v['preset']}-{len(v['chunks'])}-{v['chunks'][0][:20]}")
def test_matches_melody(vec: dict[str, Any]) -> None:
    spec = SPECS[vec["preset"]]
    assert _view(run_whole(spec, "".join(vec["chunks"]))) == vec["whole"]
    state = new_state(spec)
    got = []
    for chunk in vec["chunks"]:
        got.append(_view(write(spec, state, chunk)))
        state = json.loads(json.dumps(state))  # the state must survive a stream_state round trip
    got.append(_view(flush(spec, state)))
    assert got == vec["steps"]


def test_one_shot_fields() -> None:
    ctx = ParseContext(tools=[{"type": "function", "function": {"name": "get_weather"}}], tool_choice="auto")
    text = "<|START_THINKING|>Plan.<|END_THINKING|>" + CALL + "<|START_RESPONSE|>Done.<|END_RESPONSE|>"
    reasoning, content, calls = COMMAND3(None, ctx, parse_tools=True).parse(text)
    assert (reasoning, content) == ("Plan.", "Done.")
    assert calls is not None and [(c.id, c.name, c.arguments) for c in calls] == [
        ("0", "get_weather", '{"city": "Paris"}')
    ]
    # Without tool parsing the calls are dropped but their markup still is not content.
    assert COMMAND3(None, ctx, parse_tools=False).parse(text) == ("Plan.", "Done.", None)
    # Command 4 output starts in reasoning.
    assert COMMAND4(None, ctx).parse("thinking<|END_THINKING|>answer")[:2] == ("thinking", "answer")


def test_stream_holds_id_until_name_and_sends_citations() -> None:
    ctx = ParseContext(tools=[{"type": "function", "function": {"name": "get_weather"}}], tool_choice="auto")
    output = COMMAND3(None, ctx, parse_tools=True)
    state = None
    deltas = []
    pieces = ['<|START_ACTION|>[{"tool_call_id": "0"', ', "tool_name": "get_weather"', ', "parameters": {"city": "P',
              'aris"}}]<|END_ACTION|>', "<|START_RESPONSE|>It is <co>sunny</co: 0:[0]>", "."]
    for i, piece in enumerate(pieces):
        delta, state = output.stream(state, piece, finished=i == len(pieces) - 1)
        deltas.append(delta.to_dict() if delta else None)
    assert deltas[0] is None
    assert deltas[1]["tool_calls"] == [
        {"index": 0, "id": "0", "type": "function", "function": {"name": "get_weather"}}
    ]
    assert deltas[2]["tool_calls"] == [{"index": 0, "function": {"arguments": '{"city": "P'}}]
    assert deltas[3]["tool_calls"] == [{"index": 0, "function": {"arguments": 'aris"}'}}]
    assert deltas[4]["content"] == "It is sunny"
    assert deltas[4]["citations"] == [
        {"start": 6, "end": 11, "text": "sunny", "sources": [], "content_index": None, "type": "TEXT_CONTENT"}
    ]
    assert deltas[5]["content"] == "."


def test_include_reasoning_false_hides_reasoning_deltas() -> None:
    ctx = ParseContext(include_reasoning=False)
    output = COMMAND3(None, ctx)
    delta, state = output.stream(None, "<|START_THINKING|>secret", finished=False)
    assert delta is None
    delta, _ = output.stream(state, "<|END_THINKING|>shown", finished=True)
    assert delta is not None and (delta.content, delta.reasoning) == ("shown", None)


def test_prompt_reasoning_end() -> None:
    transformers = pytest.importorskip("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(MODEL))
    parser = CohereCommand3ReasoningParser(tokenizer, ParseContext())

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False)

    assert parser.is_reasoning_end(ids("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>")) is False
    assert parser.is_reasoning_end(ids("<|CHATBOT_TOKEN|><|START_THINKING|>")) is False
    assert parser.is_reasoning_end(ids("<|CHATBOT_TOKEN|><|START_THINKING|>x<|END_THINKING|>")) is True
    assert parser.is_reasoning_end(ids("<|END_THINKING|><|CHATBOT_TOKEN|>")) is False


def test_ignored_text_keeps_only_a_marker_tail() -> None:
    spec = SPECS["cmd3"]
    state = new_state(spec)
    write(spec, state, "<|START_RESPONSE|>Answer.<|END_RESPONSE|>")
    for _ in range(2000):
        assert _view(write(spec, state, "ignored ")) is None
        assert len(state["buf"]) < 20
    assert _view(write(spec, state, "<|START_RESP")) is None
    assert _view(write(spec, state, "ONSE|>More")) == ["More", None, [], []]

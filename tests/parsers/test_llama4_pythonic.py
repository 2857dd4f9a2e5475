"""llama4_pythonic: vLLM's own test vectors plus own cases."""

from __future__ import annotations

import pytest
from calls_support import check_vector, make, oneshot, run_stream, vectors


def parser():
    return make("llama4_pythonic", "llama3")


@pytest.mark.parametrize(
    "vec", vectors("llama4_pythonic"), ids=lambda v: v["source"].split("::")[-1]
)
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector("llama4_pythonic", vec) == []


def test_python_tags_are_removed() -> None:
    text = '<|python_start|>[get_weather(city="Paris")]<|python_end|>'
    assert oneshot(parser(), text) == ([("get_weather", '{"city": "Paris"}')], None)


def test_plain_text() -> None:
    assert oneshot(parser(), "no calls here") == ([], "no calls here")


def test_stream_with_tags() -> None:
    chunks = [
        ("<|python_start|>", [1]),
        ('[f(a="', [2]),
        ("x", [3]),
        ('")]', [4]),
        ("<|python_end|>", [5]),
    ]
    _, content, calls = run_stream(parser(), chunks)
    assert content is None and calls == [("f", '{"a": "x"}')]

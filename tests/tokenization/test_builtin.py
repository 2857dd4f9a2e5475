"""The built-in Qwen3 model folder: built offline, cached, identical ids to the shared Qwen3 folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokenfront.tokenization import builtin

SHARED_QWEN3 = Path(__file__).resolve().parents[2].parent / "shared" / "models" / "qwen3"

TEXTS = [
    "Hello, world! What's 2+2?",
    "  leading spaces\n\n\tTabs and 中文字符 and emojis 🎉🚀 café naïve",
    'def f(x):\n    return {"a": [1,2,3]}\n',
    "<|im_start|>user\n<tool_call>\n{}\n</tool_call><think>x</think><|im_end|>",
    "12345678 3.14159 I'M YOU'LL we'd",
    "e\u0301 cafe\u0301 \u212b",
    "\r\n\r\n   \n x   ",
    "Привет мир; こんにちは世界 <|endoftext|>",
]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]

CONVERSATIONS = [
    [{"role": "user", "content": "hi"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
    [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": "<think>\nlook it up\n</think>\n\nChecking.",
            "tool_calls": [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                },
                {
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                },
            ],
        },
        {"role": "tool", "content": "sunny"},
        {"role": "tool", "content": "rainy"},
        {"role": "user", "content": "<tool_response>\nlate\n</tool_response>"},
        {
            "role": "assistant",
            "content": "Paris sunny, Rome rainy.",
            "reasoning_content": "combine",
        },
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "<think>old</think>You're welcome."},
        {"role": "system", "content": "mid-conversation system"},
    ],
]


@pytest.fixture(scope="module")
def model_dir(builtin_cache: Path) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOKENFRONT_CACHE_DIR", str(builtin_cache))
        yield builtin.builtin_model_dir()


@pytest.fixture(scope="module")
def ours(model_dir: Path):  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(model_dir))


@pytest.fixture(scope="module")
def ref():  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(SHARED_QWEN3))


def test_folder_layout_and_configs(model_dir: Path) -> None:
    assert model_dir.parent.name and model_dir.name.startswith(f"qwen3-v{builtin.BUILD_FORMAT}-")
    names = {p.name for p in model_dir.iterdir()}
    assert {
        "tokenizer.json",
        "tokenizer_config.json",
        "config.json",
        "generation_config.json",
    } <= names
    gen = json.loads((model_dir / "generation_config.json").read_text())
    assert gen["eos_token_id"] == [151645, 151643]
    assert (gen["temperature"], gen["top_p"], gen["top_k"]) == (0.6, 0.95, 20)
    cfg = json.loads((model_dir / "config.json").read_text())
    assert cfg["max_position_embeddings"] == 40960 and cfg["model_type"] == "qwen3"
    tok_cfg = json.loads((model_dir / "tokenizer_config.json").read_text())
    assert tok_cfg["chat_template"] == builtin.chat_template()
    assert not list(model_dir.parent.glob(".qwen3-build-*")), "staging folder left behind"


def test_cached_folder_is_reused(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKENFRONT_CACHE_DIR", str(model_dir.parent))

    def fail(_: Path) -> None:
        raise AssertionError("rebuilt a cached folder")

    monkeypatch.setattr(builtin, "write_model_dir", fail)
    assert builtin.builtin_model_dir() == model_dir


def test_cache_root_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TOKENFRONT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert builtin.cache_root() == tmp_path / "tokenfront"


def test_added_tokens_and_special_ids(ours) -> None:  # type: ignore[no-untyped-def]
    tok = ours
    assert len(tok) == 151669
    assert tok.convert_tokens_to_ids(["<|endoftext|>", "<|im_end|>", "<think>", "</think>"]) == [
        151643,
        151645,
        151667,
        151668,
    ]
    assert tok.eos_token_id == 151645
    ids = tok.encode("<tool_call>hi</tool_call>", add_special_tokens=True)
    assert ids[0] == 151657 and ids[-1] == 151658
    assert tok.decode(tok.encode(TEXTS[1])) == TEXTS[1]


def test_generation_prompt_and_thinking_switch(ours) -> None:  # type: ignore[no-untyped-def]
    tok = ours
    msgs = [{"role": "user", "content": "hi"}]
    on = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    off = tok.apply_chat_template(
        msgs, tokenize=False, add_generation_prompt=True, enable_thinking=False
    )
    assert on == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    assert off == on + "<think>\n\n</think>\n\n"
    with_tools = tok.apply_chat_template(msgs, tools=TOOLS, tokenize=False)
    assert "<tools>\n" + json.dumps(TOOLS[0]) + "\n</tools>" in with_tools


needs_shared = pytest.mark.skipif(
    not SHARED_QWEN3.is_dir(), reason=f"shared Qwen3 folder not found at {SHARED_QWEN3}"
)


@needs_shared
def test_same_ids_as_shared_qwen3(ours, ref) -> None:  # type: ignore[no-untyped-def]
    for text in TEXTS:
        assert ours.encode(text) == ref.encode(text), text
        assert ours.decode(ours.encode(text)) == ref.decode(ref.encode(text))


@needs_shared
@pytest.mark.parametrize("kwargs", [{}, {"tools": TOOLS}, {"enable_thinking": False}])
@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_template_renders_like_qwen3(ours, ref, conversation: list, kwargs: dict) -> None:  # type: ignore[no-untyped-def]
    for prompt in (True, False):
        got = ours.apply_chat_template(
            conversation, tokenize=False, add_generation_prompt=prompt, **kwargs
        )
        want = ref.apply_chat_template(
            conversation, tokenize=False, add_generation_prompt=prompt, **kwargs
        )
        assert got == want

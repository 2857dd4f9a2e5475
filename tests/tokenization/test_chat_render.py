"""Chat templates render exactly as transformers 5.20.2's `apply_chat_template`.

The reference is transformers' own `PreTrainedTokenizerBase.apply_chat_template` (called on
the `FastTokenizer`, which supplies the template and special tokens), so texts and error
messages are compared on every distinct template of the model dirs and on small templates
that exercise the Jinja environment (sandbox, filters, globals, extensions).
"""

from __future__ import annotations

import inspect
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import pytest

from tokenfront.tokenization import chat_render
from tokenfront.tokenization.chat_render import APPLY_CHAT_TEMPLATE_PARAMS
from tokenfront.tokenization.fast_loader import load_fast_tokenizer
from tokenfront.tokenization.fast_tokenizer import FastTokenizer

_REPO = Path(__file__).resolve().parents[2]
_SHARED = Path(os.environ["TOKENFRONT_TEST_MODELS"])
QWEN3 = _SHARED / "qwen3"


def _template_dirs() -> list[Path]:
    seen: set[str] = set()
    out = []
    for d in sorted(_SHARED.glob("*/")) + sorted((_REPO / "tests" / "models").glob("*/")):
        if not (d / "tokenizer.json").is_file() or not (d / "tokenizer_config.json").is_file():
            continue
        # The template as the loader reads it (cheap: no tokenizer is built to collect).
        template: object = json.loads((d / "tokenizer_config.json").read_text()).get("chat_template")
        if (d / "chat_template.jinja").is_file():
            template = (d / "chat_template.jinja").read_text(encoding="utf-8")
        key = repr(template)
        if template is not None and key not in seen:
            seen.add(key)
            out.append(d)
    return out


@lru_cache(maxsize=2)
def _fast(path: Path) -> FastTokenizer | None:
    return load_fast_tokenizer(path)


def _reference(tok: FastTokenizer, *args: Any, **kwargs: Any) -> Any:
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase

    return PreTrainedTokenizerBase.apply_chat_template(tok, *args, **kwargs)


def _outcome(fn: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as exc:
        return type(exc).__name__, str(exc)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city <b>now</b> — «quoted» 'single' \"double\"",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "Ville / 都市"}},
                "required": ["city"],
            },
        },
    }
]
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
}
CONVERSATIONS: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = [
    ("user", [{"role": "user", "content": "Hi <there> & 'you'"}], {}),
    ("gen_prompt", [{"role": "user", "content": "Hi"}], {"add_generation_prompt": True}),
    (
        "system",
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "ünïcode 🎉"}],
        {"add_generation_prompt": True},
    ),
    (
        "tools",
        [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": "", "tool_calls": [CALL]},
            {"role": "tool", "content": "sunny", "tool_call_id": "call_1"},
        ],
        {"tools": TOOLS, "add_generation_prompt": True},
    ),
    (
        "multi_turn",
        [
            {"role": "user", "content": "one"},
            {"role": "assistant", "content": "two"},
            {"role": "user", "content": "three"},
        ],
        {"add_generation_prompt": True, "enable_thinking": False},
    ),
    (
        "continue",
        [{"role": "user", "content": "Say"}, {"role": "assistant", "content": "Hello the"}],
        {"continue_final_message": True},
    ),
    (
        "continue_trailing_space",
        [{"role": "user", "content": "Say"}, {"role": "assistant", "content": "Hello the  "}],
        {"continue_final_message": True},
    ),
    (
        "continue_missing_field",
        [{"role": "user", "content": "Say"}, {"role": "assistant"}],
        {"continue_final_message": True},
    ),
    (
        "continue_named_field",
        [{"role": "user", "content": "Say"}, {"role": "assistant", "content": "x", "reasoning": "r"}],
        {"continue_final_message": "reasoning_content_not_in_template"},
    ),
    (
        "continue_and_gen_prompt",
        [{"role": "user", "content": "Say"}, {"role": "assistant", "content": "x"}],
        {"continue_final_message": True, "add_generation_prompt": True},
    ),
    ("empty", [], {}),
    ("documents", [{"role": "user", "content": "q"}], {"documents": [{"title": "t", "text": "x"}]}),
    ("bad_documents", [{"role": "user", "content": "q"}], {"documents": ["not a dict"]}),
    ("mask_untokenized", [{"role": "user", "content": "q"}], {"return_assistant_tokens_mask": True}),
    ("sanitize_untokenized", [{"role": "user", "content": "q"}], {"sanitize_control_tokens": True}),
    (
        "parts",
        [{"role": "user", "content": [{"type": "text", "text": "part one"}, {"type": "text", "text": "two"}]}],
        {"add_generation_prompt": True},
    ),
]


@pytest.mark.parametrize("path", _template_dirs(), ids=lambda p: p.name)
def test_model_templates_render_and_fail_like_transformers(path: Path) -> None:
    tok = _fast(path)
    assert tok is not None
    for name, conversation, kwargs in CONVERSATIONS:
        got = _outcome(tok.apply_chat_template, conversation, tokenize=False, **kwargs)
        want = _outcome(_reference, tok, conversation, tokenize=False, **kwargs)
        assert got == want, name


SMALL_TEMPLATES = {
    "tojson": "{{ messages | tojson }}|{{ messages[0] | tojson(indent=2, sort_keys=True) }}",
    "raise": "{% if messages[0].content == 'bad' %}{{ raise_exception('rejected: ' ~ messages[0].content) }}{% endif %}ok",
    "strftime": "{{ strftime_now('%Y') | length }}",
    "generation": "{% for m in messages %}{% generation %}[{{ m.content }}]{% endgeneration %}{% endfor %}",
    "loopcontrols": "{% for m in messages %}{% if loop.index > 1 %}{% break %}{% endif %}{{ m.content }}{% continue %}{% endfor %}",
    "trim": "{% for m in messages %}\n    {{ m.content }}\n{% endfor %}\n",
    "special_tokens": "{{ bos_token }}|{{ eos_token }}|{{ pad_token }}",
    "sandbox_attr": "{{ messages.__class__ }}",
    "sandbox_mutation": "{% set x = messages.append(1) %}",
    "dict_attributes": (
        "{% set d = {'items': 1, 'role': 'r', 'pop': 2} %}{{ d.items is callable }}|{{ d.role }}|"
        "{{ d.pop is defined }}|{{ d['pop'] }}|{{ d.nothing is defined }}|{{ messages[0].role }}|"
        "{{ loop is defined }}{% for m in messages %}{{ loop.first }}{{ m.content.upper() }}{% endfor %}"
    ),
    "dict_mutation": "{% set d = {'a': 1} %}{{ d.update({'b': 2}) }}",
    "undefined": "{{ missing.attr }}",
    "syntax": "{% for %}",
    "tools_var": "{{ tools | tojson }}|{{ documents }}|{{ add_generation_prompt }}",
}


@pytest.mark.parametrize("name", sorted(SMALL_TEMPLATES))
def test_jinja_environment_matches_transformers(name: str) -> None:
    tok = _fast(QWEN3)
    assert tok is not None
    template = SMALL_TEMPLATES[name]
    for content in ("hello", "bad", "ünï <b>"):
        conversation = [{"role": "user", "content": content}, {"role": "assistant", "content": "x"}]
        got = _outcome(tok.apply_chat_template, conversation, chat_template=template, tokenize=False, tools=TOOLS)
        want = _outcome(_reference, tok, conversation, chat_template=template, tokenize=False, tools=TOOLS)
        assert got == want


def test_template_errors_are_jinja_template_errors() -> None:
    tok = _fast(QWEN3)
    assert tok is not None
    with pytest.raises(jinja2.TemplateError, match="rejected: bad"):
        tok.apply_chat_template(
            [{"role": "user", "content": "bad"}], chat_template=SMALL_TEMPLATES["raise"], tokenize=False
        )


def test_tokenized_render_returns_the_ids_transformers_returns() -> None:
    from transformers import AutoTokenizer

    tok = _fast(QWEN3)
    ref = AutoTokenizer.from_pretrained(str(QWEN3))
    conversation = [{"role": "user", "content": "Hi <|im_start|> 🎉"}]
    for kwargs in ({"return_dict": False}, {}):
        got = tok.apply_chat_template(conversation, add_generation_prompt=True, **kwargs)
        want = ref.apply_chat_template(conversation, add_generation_prompt=True, **kwargs)
        if isinstance(want, list):
            assert got == want
        else:
            assert got == dict(want)


def test_no_template_and_named_templates_select_like_transformers() -> None:
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase

    class Holder:
        def __init__(self, template: Any) -> None:
            self.chat_template = template

    cases = [
        (None, None, None),
        ("{{ 1 }}", None, None),
        ({"default": "d", "tool_use": "t"}, None, None),
        ({"default": "d", "tool_use": "t"}, None, [{}]),
        ({"default": "d", "tool_use": "t"}, "tool_use", None),
        ({"tool_use": "t", "rag": "r"}, None, None),
        ({"tool_use": "t"}, "{{ inline }}", None),
    ]
    for own, passed, tools in cases:
        got = _outcome(chat_render.select_chat_template, own, passed, tools)
        want = _outcome(PreTrainedTokenizerBase.get_chat_template, Holder(own), passed, tools)
        assert got == want


def test_duplicate_keyword_errors_name_transformers_method() -> None:
    tok = _fast(QWEN3)
    assert tok is not None
    from transformers import AutoTokenizer

    ref = AutoTokenizer.from_pretrained(str(QWEN3))
    messages = []
    for tokenizer in (tok, ref):
        with pytest.raises(TypeError) as exc:
            tokenizer.apply_chat_template(conversation=[], tokenize=False, **{"conversation": []})  # type: ignore[misc]
        messages.append(str(exc.value))
    assert messages[0] == messages[1]


def test_named_parameter_list_matches_transformers_signature() -> None:
    from transformers import PythonBackend

    sig = inspect.signature(PythonBackend.apply_chat_template)
    named = {
        p.name
        for p in sig.parameters.values()
        if p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
    }
    assert named == APPLY_CHAT_TEMPLATE_PARAMS
    ours = inspect.signature(FastTokenizer.apply_chat_template)
    assert [p.name for p in ours.parameters.values()] == [p.name for p in sig.parameters.values()]


def test_compiled_templates_are_cached_per_text() -> None:
    template = "{{ messages | length }}"
    assert chat_render.compile_chat_template(template) is chat_render.compile_chat_template(template)

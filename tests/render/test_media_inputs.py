"""Media parts on the model-specific renderers (`render/media_inputs.py`); served parity in
tests/golden/vllm-dsimage.jsonl."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.render.chat import check_mm_kwargs
from tokenfront.render.media_inputs import check_media_support, has_media, is_media_part

_IMG = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


def _model(architectures: list[str], names: list[str], trust_mm_kwargs: bool = False) -> Any:
    return SimpleNamespace(
        hf_config={"architectures": architectures},
        options=SimpleNamespace(
            served_model_name=names, model="/models/x", trust_request_mm_kwargs=trust_mm_kwargs
        ),
    )


def test_media_parts() -> None:
    assert is_media_part(_IMG)
    assert is_media_part({"type": "input_image", "image_url": "x"})
    assert is_media_part({"image_url": {"url": "x"}})  # typeless
    assert is_media_part({"type": "image_url", "image_url": None, "uuid": "u"})
    assert not is_media_part({"type": "text", "text": "x"})
    assert not is_media_part("text")
    assert has_media([{"role": "user", "content": ["a", _IMG]}])
    assert not has_media([{"role": "user", "content": "a"}, {"role": "tool"}])


def test_text_only_architecture_rejects_media() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "?"}, _IMG]}]
    with pytest.raises(APIError) as err:
        check_media_support(_model(["DeepseekV3ForCausalLM"], ["deepseek", "alias"]), messages)
    assert err.value.message == "deepseek is not a multimodal model"
    with pytest.raises(APIError) as err:
        check_media_support(_model(["Qwen3ForCausalLM"], []), messages)
    assert err.value.message == "/models/x is not a multimodal model"


def test_multimodal_architecture_and_text_pass() -> None:
    messages = [{"role": "user", "content": [_IMG]}]
    check_media_support(_model(["DeepseekV41ForCausalLM"], ["d"]), messages)
    check_media_support(_model(["KimiK3ForConditionalGeneration"], ["k"]), messages)
    check_media_support(_model(["Qwen3ForCausalLM"], ["q"]), [{"role": "user", "content": "hi"}])


def test_config_with_vision_section_counts_as_multimodal() -> None:
    model = _model(["Qwen2VLForConditionalGeneration"], ["vl"])
    model.hf_config["vision_config"] = {}
    check_media_support(model, [{"role": "user", "content": [_IMG]}])


def _request(content: Any, **kwargs: Any) -> Any:
    fields = {"mm_processor_kwargs": None, "media_io_kwargs": None, **kwargs}
    return SimpleNamespace(messages=[{"role": "user", "content": content}], **fields)


@pytest.mark.parametrize("field", ["mm_processor_kwargs", "media_io_kwargs"])
def test_request_mm_kwargs_are_refused_unless_the_server_trusts_them(field: str) -> None:
    request = _request("hi", **{field: {"x": 1}})
    with pytest.raises(RequestValidationFailure) as err:
        check_mm_kwargs(_model(["Qwen3ForCausalLM"], ["q"]), request)
    assert "--trust-request-mm-kwargs" in str(err.value)
    check_mm_kwargs(_model(["Qwen3ForCausalLM"], ["q"], trust_mm_kwargs=True), request)


def test_trusted_mm_kwargs_with_images_are_refused_after_the_text_model_answer() -> None:
    # vLLM applies them in the model's processor; tokenfront's processors take none
    request = _request([_IMG], mm_processor_kwargs={"x": 1})
    with pytest.raises(APIError) as err:
        check_mm_kwargs(_model(["Qwen3ForCausalLM"], ["q"], trust_mm_kwargs=True), request)
    assert err.value.message == "q is not a multimodal model"
    with pytest.raises(RequestValidationFailure) as err:
        check_mm_kwargs(_model(["DeepseekV41ForCausalLM"], ["d"], trust_mm_kwargs=True), request)
    assert "not supported with image inputs" in str(err.value)

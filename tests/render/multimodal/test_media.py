"""Image URLs and decoding: vLLM's rules, limits and error texts."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from tokenfront.render.multimodal.hashing import HashedImage, hash_item
from tokenfront.render.multimodal.media import (
    DecodeBudget,
    MediaError,
    b64decode_strict,
    decode_image,
    read_url,
)


def _png(mode: str = "RGB", size: tuple[int, int] = (4, 3)) -> bytes:
    buf = io.BytesIO()
    Image.new(mode, size).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("text", ["!!!", "abc", "YQ", "YQ=", "YQ==\n", "-_-_", "YQ===", "=", "é"])
def test_base64_refusals(text: str) -> None:
    with pytest.raises(MediaError, match="^Non-base64 digit found$"):
        b64decode_strict(text)


@pytest.mark.parametrize(("text", "data"), [("", b""), ("YQ==", b"a"), ("YWJj", b"abc"), ("YR==", b"a")])
def test_base64_accepts(text: str, data: bytes) -> None:
    assert b64decode_strict(text) == data


def test_data_url_forms() -> None:
    payload = base64.b64encode(b"xyz").decode()
    assert read_url(f"data:image/png;base64,{payload}") == b"xyz"
    assert read_url(f"DATA:image/png;foo=bar;base64,{payload}") == b"xyz"
    with pytest.raises(MediaError, match="missing ','"):
        read_url("data:image/png;base64")
    with pytest.raises(MediaError, match="Only base64 data URLs"):
        read_url("data:image/png,abcd")


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/x.png", "ftp://h/x.png", "x.png", "file:///etc/hostname"]
)
def test_other_urls_are_not_fetched(url: str) -> None:
    with pytest.raises(MediaError):
        read_url(url)


def test_decode_converts_and_records_io_config() -> None:
    rgb = decode_image(_png("RGB"), DecodeBudget())
    assert rgb.image.mode == "RGB" and rgb.hashed.io_config is None
    rgba = decode_image(_png("RGBA"), DecodeBudget())
    assert rgba.image.mode == "RGB"
    assert rgba.hashed.io_config == {"image_mode": "RGB", "rgba_background_color": (255, 255, 255)}
    assert rgba.image.getpixel((0, 0)) == (255, 255, 255)  # transparent black over white


def test_decode_errors_are_vllms() -> None:
    with pytest.raises(MediaError, match=r"^Failed to load image: cannot identify image file <_io.BytesIO object>$"):
        decode_image(b"hello", DecodeBudget())
    with pytest.raises(MediaError, match="^Failed to load image: "):
        decode_image(_png(size=(40, 40))[:45], DecodeBudget())


def test_pixel_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_MAX_IMAGE_PIXELS", "11")
    with pytest.raises(MediaError, match=r"^Image dimensions 4x3 \(12 pixels\) exceed the maximum of 11"):
        decode_image(_png(), DecodeBudget())


def test_request_decode_budget() -> None:
    budget = DecodeBudget(limit=100)
    decode_image(_png(), budget)  # 48 bytes
    decode_image(_png(), budget)  # 96 bytes
    with pytest.raises(MediaError, match=r"VLLM_MAX_MEDIA_REQUEST_DECODE_BYTES=100 \(144 bytes\)"):
        decode_image(_png(), budget)


def test_hash_framing() -> None:
    """Known digests (computed with vLLM 0.33.0's MultiModalHasher)."""
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    io_config = {"image_mode": "RGB", "rgba_background_color": (255, 255, 255)}
    model_id = "/work/main/tests/models/deepseek-v41-vl"
    assert (
        hash_item("blake3", model_id=model_id, image=HashedImage(png, io_config))
        == "f823298276ae4df54ba728dba84dacb0d9764492b77ced92a6d121f05228d2e3"
    )
    assert (
        hash_item("blake3", model_id="tests/models/deepseek-v41-vl", image=HashedImage(png, io_config))
        == "6a386d1705708194ee667ae426b06e6e30b3e5a1ff4743398ff98b02bf365149"
    )

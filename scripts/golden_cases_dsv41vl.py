"""Image cases for the dsv41vl corpus (DeepSeek V4.1 vision checkpoint, tests/models/deepseek-v41-vl),
recorded by `scripts/record_render41_golden.py --cases-module golden_cases_dsv41vl`.

The images are drawn here with Pillow (deterministic for one Pillow version); the recorded requests
carry their bytes, so a replay does not depend on this module.
"""

from __future__ import annotations

import base64
import io
import struct
import zlib
from typing import Any

from golden_cases import TOOLS
from golden_cases_dsimage import IMAGES as BASE_IMAGES

Body = dict[str, Any]


def _gradient(width: int, height: int, mode: str = "RGB") -> Any:
    from PIL import Image

    image = Image.new("RGB", (width, height))
    image.putdata(
        [((x * 255) // max(width - 1, 1), (y * 255) // max(height - 1, 1), (x * 7 + y * 13) % 256)
         for y in range(height) for x in range(width)]
    )  # fmt: skip
    return image if mode == "RGB" else image.convert(mode)


def _url(image: Any, fmt: str, mime: str, **save: Any) -> str:
    buf = io.BytesIO()
    image.save(buf, fmt, **save)
    return f"data:{mime};base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _png(image: Any) -> str:
    return _url(image, "PNG", "image/png")


def _rgba(width: int, height: int) -> Any:
    image = _gradient(width, height).convert("RGBA")
    alpha = [(x * 255) // max(width - 1, 1) for y in range(height) for x in range(width)]
    image.putalpha(_gradient(width, height, "L").point(lambda v: v))
    image.putdata([(r, g, b, a) for (r, g, b, _), a in zip(image.getdata(), alpha, strict=True)])
    return image


def _palette(transparent: bool) -> Any:
    image = _gradient(40, 40).convert("P", palette=1, colors=16)  # ADAPTIVE
    if transparent:
        image.info["transparency"] = 0
    return image


def _exif_rotated() -> str:
    from PIL import Image

    image = _gradient(80, 40)
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90 CW on display
    return _url(image, "JPEG", "image/jpeg", quality=90, exif=exif.tobytes())


def _animated_gif() -> str:
    frames = [_gradient(30, 20).convert("P"), _gradient(30, 20).rotate(180).convert("P")]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return "data:image/gif;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _png_header_only(width: int, height: int) -> str:
    """A PNG whose header claims a size but which has no pixel data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(raw).decode("ascii")


def _img(url: str, **extra: Any) -> Body:
    return {"type": "image_url", "image_url": {"url": url}, **extra}


def _ask(*parts: Body, text: str = "Describe.") -> list[Body]:
    return [{"role": "user", "content": [{"type": "text", "text": text}, *parts]}]


def _build() -> dict[str, Body]:
    from PIL import Image

    urls = {
        "png_rgb_20x10": _png(_gradient(20, 10)),
        "png_rgb_84x84": _png(_gradient(84, 84)),
        "png_rgb_300x40": _png(_gradient(300, 40)),
        "png_rgb_40x300": _png(_gradient(40, 300)),
        "png_rgb_300x300": _png(_gradient(300, 300)),
        "png_rgb_1000x700": _png(_gradient(1000, 700)),
        "png_rgb_2000x20": _png(_gradient(2000, 20)),
        "png_rgb_20x2000": _png(_gradient(20, 2000)),
        "png_rgb_14x14": _png(_gradient(14, 14)),
        "png_rgb_57x131": _png(_gradient(57, 131)),
        "jpeg_64x48": _url(_gradient(64, 48), "JPEG", "image/jpeg", quality=90),
        "jpeg_cmyk_60x40": _url(_gradient(60, 40).convert("CMYK"), "JPEG", "image/jpeg"),
        "jpeg_exif_rotated": _exif_rotated(),
        "png_rgba_30x30": _png(_rgba(30, 30)),
        "png_gray_50x70": _png(_gradient(50, 70, "L")),
        "png_gray_alpha_33x20": _png(_gradient(33, 20, "LA")),
        "png_palette_40x40": _png(_palette(False)),
        "png_palette_transparent_40x40": _png(_palette(True)),
        "png_bitonal_64x64": _png(_gradient(64, 64, "1")),
        "png_i16_40x40": _png(_gradient(40, 40, "L").convert("I;16")),
        "gif_animated_30x20": _animated_gif(),
        "webp_50x50": _url(_gradient(50, 50), "WEBP", "image/webp", lossless=True),
        "bmp_30x20": _url(_gradient(30, 20), "BMP", "image/bmp"),
        "jpeg_as_png_mime": _url(_gradient(64, 48), "JPEG", "image/png", quality=80),
    }
    cases: dict[str, Body] = {f"img_{name}": {"messages": _ask(_img(url))} for name, url in urls.items()}
    a, b, c = urls["png_rgb_20x10"], urls["jpeg_64x48"], urls["png_rgb_300x40"]
    cases.update(
        {
            "two_different_images": {"messages": _ask(_img(a), _img(b))},
            "three_images_text_between": {
                "messages": [
                    {
                        "role": "user",
                        "content": [_img(c), {"type": "text", "text": "and"}, _img(a), _img(b)],
                    }
                ]
            },
            "images_across_turns": {
                "messages": [
                    {"role": "user", "content": [_img(a), {"type": "text", "text": "What?"}]},
                    {"role": "assistant", "content": "A gradient."},
                    {"role": "user", "content": [{"type": "text", "text": "And this?"}, _img(b)]},
                ]
            },
            "image_in_system": {
                "messages": [
                    {"role": "system", "content": [{"type": "text", "text": "Ref:"}, _img(a)]},
                    {"role": "user", "content": [{"type": "text", "text": "Compare."}, _img(b)]},
                ]
            },
            "image_in_dropped_developer": {
                "messages": [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello", "reasoning": "greet"},
                    {"role": "developer", "content": [{"type": "text", "text": "ref"}, _img(a)]},
                    {"role": "user", "content": [{"type": "text", "text": "Look"}, _img(b)]},
                ]
            },
            "image_in_tool_result": {
                "messages": [
                    {"role": "user", "content": "Screenshot please"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {"id": "c1", "type": "function",
                             "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
                            {"id": "c2", "type": "function",
                             "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "r"}, _img(b)]},
                    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "o"}, _img(a)]},
                ],
                "tools": TOOLS,
                "tool_choice": "none",
            },  # fmt: skip
            "image_thinking_off": {
                "messages": _ask(_img(a)),
                "chat_template_kwargs": {"thinking": False},
            },
            "image_mm_payload_none": {"messages": _ask(_img(a)), "mm_payload": "none"},
            "image_return_mm_kwargs_false": {"messages": _ask(_img(a)), "return_mm_kwargs": False},
            "image_uuid_and_url": {"messages": _ask(_img(a, uuid="my-image-1"))},
            "image_uuid_int": {"messages": _ask(_img(a, uuid=7))},
            "input_image_detail_auto": {
                "messages": _ask({"type": "input_image", "image_url": a, "detail": "auto"})
            },
            "input_image_detail_bad": {
                "messages": _ask({"type": "input_image", "image_url": a, "detail": "ultra"})
            },
            "image_url_detail_low": {
                "messages": _ask({"type": "image_url", "image_url": {"url": a, "detail": "low"}})
            },
            "image_url_detail_bad": {
                "messages": _ask({"type": "image_url", "image_url": {"url": a, "detail": "ultra"}})
            },
            "image_url_missing_url": {"messages": _ask({"type": "image_url", "image_url": {}})},
            "image_url_string": {"messages": _ask({"type": "image_url", "image_url": a})},
            "image_url_empty": {"messages": _ask(_img(""))},
            "image_return_token_offsets": {"messages": _ask(_img(a)), "return_token_offsets": True},
            "image_truncate_prompt": {"messages": _ask(_img(a)), "truncate_prompt_tokens": 20},
            "image_max_tokens": {"messages": _ask(_img(a)), "max_tokens": 10},
            "image_not_image_bytes": {"messages": _ask(_img("data:image/png;base64,aGVsbG8gd29ybGQ="))},
            "image_truncated_png": {"messages": _ask(_img(a[: 22 + 80]))},
            "image_no_comma": {"messages": _ask(_img("data:image/png;base64"))},
            "image_not_base64_encoding": {"messages": _ask(_img("data:image/png,abcd"))},
            "image_bad_padding": {"messages": _ask(_img("data:image/png;base64,iVBORw0KGgo"))},
            "image_base64_whitespace": {"messages": _ask(_img(a[:40] + "\n" + a[40:]))},
            "image_ftp_url": {"messages": _ask(_img("ftp://example.com/x.png"))},
            "image_file_url": {"messages": _ask(_img("file:///etc/hostname"))},
            "image_relative_url": {"messages": _ask(_img("x.png"))},
            "image_eps": {
                "messages": _ask(
                    _img("data:application/postscript;base64,"
                         + base64.b64encode(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n").decode())
                )
            },  # fmt: skip
            "image_header_only_100m": {"messages": _ask(_img(_png_header_only(10000, 10000)))},
            "image_header_only_200m": {"messages": _ask(_img(_png_header_only(20000, 10000)))},
            "image_embeds_part": {
                "messages": _ask({"type": "image_embeds", "image_embeds": "AAAA"})
            },
            "audio_part": {
                "messages": _ask({"type": "audio_url", "audio_url": {"url": "data:audio/wav;base64,AAAA"}})
            },
            "image_placeholder_in_text": {
                "messages": [{"role": "user", "content": "see <｜deepseek_image｜> here"}]
            },
            "image_and_bad_effort": {
                "messages": _ask(_img(a)),
                "chat_template_kwargs": {"reasoning_effort": "extreme"},
            },
            "bad_image_and_bad_effort": {
                "messages": _ask(_img("data:image/png;base64,aGVsbG8=")),
                "chat_template_kwargs": {"reasoning_effort": "extreme"},
            },
            "four_images": {"messages": _ask(_img(a), _img(b), _img(c), _img(a))},
            "tok_two_images": {"_endpoint": "tokenize", "messages": _ask(_img(a), _img(c))},
            "tok_bad_image": {"_endpoint": "tokenize", "messages": _ask(_img("data:image/png;base64,!!"))},
        }
    )
    del Image
    return cases


IMAGES: dict[str, Body] = {**BASE_IMAGES, **_build()}
RENDER_CASES: dict[str, dict[str, Body]] = {"dsv41vl": IMAGES}


def _limit_cases() -> dict[str, Body]:
    """For a server started with `--limit-mm-per-prompt '{"image": 2}' --max-model-len 120`."""
    small, big = IMAGES["img_png_rgb_20x10"], IMAGES["img_png_rgb_300x300"]
    small_part = small["messages"][0]["content"][1]
    big_part = big["messages"][0]["content"][1]
    return {
        "one_image": small,
        "two_images": {"messages": _ask(small_part, small_part)},
        "three_images": {"messages": _ask(small_part, small_part, small_part)},
        "three_images_two_turns": {
            "messages": [
                {"role": "user", "content": [small_part, small_part]},
                {"role": "assistant", "content": "Two."},
                {"role": "user", "content": [small_part]},
            ]
        },
        "big_image_over_context": {"messages": _ask(big_part, big_part)},
        "big_image_max_tokens": {"messages": _ask(big_part), "max_tokens": 100},
        "tok_three_images": {"_endpoint": "tokenize", "messages": _ask(small_part, small_part, small_part)},
        "tok_big_images": {"_endpoint": "tokenize", "messages": _ask(big_part, big_part)},
    }


RENDER_CASES["dsv41vl_limit"] = _limit_cases()

"""Image cases on the Kimi K3 test checkpoint (tests/models/kimi-k3), recorded by
`scripts/record_render41_golden.py --cases-module golden_cases_k3image` into
tests/golden/vllm-k3image.jsonl (configs-k3image.json; docs/multimodal.md).
"""

from __future__ import annotations

from typing import Any

from golden_cases_dsv41vl import IMAGES as DS_IMAGES

Body = dict[str, Any]

_PICK = (
    "image_and_text", "image_only", "two_images", "image_in_history", "bad_base64", "image_uuid_only",
    "img_png_rgb_20x10", "img_png_rgb_1000x700", "img_png_rgb_2000x20", "img_jpeg_64x48",
    "img_png_rgba_30x30", "img_png_gray_50x70", "img_png_palette_transparent_40x40",
    "img_jpeg_exif_rotated", "two_different_images", "images_across_turns", "image_mm_payload_none",
    "image_uuid_and_url", "image_not_image_bytes", "tok_image", "tok_two_images",
)  # fmt: skip
IMAGES: dict[str, Body] = {name: DS_IMAGES[name] for name in _PICK}
RENDER_CASES: dict[str, dict[str, Body]] = {"k3image": IMAGES}

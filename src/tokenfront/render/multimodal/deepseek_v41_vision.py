"""DeepSeek V4.1 vision: one decoded RGB image -> ViT patches and its span in the prompt.

vLLM 0.33.0's processor for `DeepseekV41ForCausalLM` (a port of the checkpoint's reference
image code) does, per image:
- scale tiny images up to at least `min_pixels` (`int()` truncation of each side),
- round each side up to whole patches; when the token grid that gives would exceed
  `max_image_tokens`, solve for the largest aspect-preserving size that fits,
- letterbox the image onto that canvas with grey 127 (Pillow's `ImageOps.pad`, bicubic), or plain
  `resize` when a configured `max_wh_ratio` clamps a very wide image,
- scale pixels to [-1, 1] in float32 and round to bfloat16, cut into (3, p, p) patches in row-major
  patch order.
Each `<｜deepseek_image｜>` becomes `n_llm_h * (n_llm_w + 1) + 2` copies of the image token id
(start, rows of IMAGE ids each closed by a newline slot, end); `types` names each slot's role.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

IMAGE_TOKEN = "<｜deepseek_image｜>"
IMAGE_TOKEN_ID = 129264
SPAN_START, SPAN_IMAGE, SPAN_NEWLINE, SPAN_END = 0, 1, 2, 3


@dataclass(frozen=True)
class VisionConfig:
    patch_size: int = 14
    downsample_ratio: int = 3
    max_tokens: int = 1024
    min_pixels: int = 295936
    max_wh_ratio: float | None = None

    @classmethod
    def from_hf_config(cls, config: dict[str, Any]) -> VisionConfig:
        vision = config.get("vision_config") or {}
        return cls(
            patch_size=int(vision.get("patch_size", 14)),
            downsample_ratio=int(vision.get("downsample_ratio", 3)),
            max_tokens=int(vision.get("max_image_tokens", 1024)),
            min_pixels=int(vision.get("min_pixels", 295936)),
            max_wh_ratio=vision.get("max_wh_ratio"),
        )


@dataclass(frozen=True)
class ProcessedImage:
    """One image's processor outputs."""

    patches: bytes  # bfloat16, shape (n_vit_h * n_vit_w, 3, p, p), little-endian
    patch_shape: tuple[int, int, int, int]
    vit_grid: tuple[int, int]
    llm_grid: tuple[int, int]

    @property
    def span_length(self) -> int:
        return span_length(*self.llm_grid)

    def span_types(self) -> list[int]:
        rows, cols = self.llm_grid
        return [SPAN_START, *(([SPAN_IMAGE] * cols + [SPAN_NEWLINE]) * rows), SPAN_END]


def span_length(rows: int, cols: int) -> int:
    return rows * (cols + 1) + 2


def _token_grid(height: int, width: int, cfg: VisionConfig) -> tuple[int, int]:
    ratio, patch = cfg.downsample_ratio, cfg.patch_size
    return math.ceil((height // patch) / ratio), math.ceil((width // patch) / ratio)


def _fit_budget(height: float, width: float, cfg: VisionConfig) -> tuple[int, int]:
    """The largest aspect-preserving (height, width) whose token grid fits `max_tokens`."""
    patch, budget = cfg.patch_size, cfg.max_tokens
    cell = patch * cfg.downsample_ratio
    aspect = height / width
    cols_f = math.sqrt((budget - 2) / aspect + 0.25) - 0.5
    rows_f = cols_f * aspect
    if cols_f < 1.0:  # one column
        return (budget - 2) // 2 * cell, cell
    if rows_f < 1.0:  # one row
        return cell, (budget - 3) * cell
    scale = min(math.floor(cols_f) * cell / width, math.floor(rows_f) * cell / height)
    return (
        math.floor(height * scale / patch) * patch,
        math.floor(width * scale / patch) * patch,
    )


def canvas_size(width: float, height: float, cfg: VisionConfig) -> tuple[int, int]:
    """(canvas height, canvas width) in pixels for an image of this (adjusted) size."""
    patch = cfg.patch_size
    best_h = math.ceil(height / patch) * patch
    best_w = math.ceil(width / patch) * patch
    rows, cols = _token_grid(best_h, best_w, cfg)
    if span_length(rows, cols) > cfg.max_tokens:
        best_h, best_w = _fit_budget(height, width, cfg)
    return best_h, best_w


def process_image(image: Any, cfg: VisionConfig) -> ProcessedImage:
    """`image`: a decoded PIL image (already in RGB, as vLLM's media loader hands it over)."""
    import numpy as np
    from PIL import ImageOps

    patch = cfg.patch_size
    rgb = image.convert("RGB")
    width: float = rgb.width
    height: float = rgb.height
    if cfg.max_wh_ratio is not None and width > height * cfg.max_wh_ratio:
        width = height * cfg.max_wh_ratio
    if 0 < width * height < cfg.min_pixels:
        grow = (cfg.min_pixels / (width * height)) ** 0.5
        width = int(width * grow)
        height = int(height * grow)
    best_h, best_w = canvas_size(width, height, cfg)
    n_h, n_w = best_h // patch, best_w // patch
    if cfg.max_wh_ratio is not None and rgb.width >= cfg.max_wh_ratio * rgb.height:
        canvas = rgb.resize((best_w, best_h))
    else:
        canvas = ImageOps.pad(rgb, (best_w, best_h), color=(127, 127, 127))

    pixels = np.asarray(canvas, dtype=np.float32) / np.float32(255)
    pixels = (pixels - np.float32(0.5)) / np.float32(0.5)
    bf16 = _to_bfloat16(pixels)  # (H, W, 3) uint16
    patches = bf16.reshape(n_h, patch, n_w, patch, 3).transpose(0, 2, 4, 1, 3)
    data = np.ascontiguousarray(patches).astype("<u2", copy=False).tobytes()
    return ProcessedImage(
        patches=data,
        patch_shape=(n_h * n_w, 3, patch, patch),
        vit_grid=(n_h, n_w),
        llm_grid=_token_grid(best_h, best_w, cfg),
    )


def _to_bfloat16(values: Any) -> Any:
    """float32 -> bfloat16 bit patterns, rounding to nearest even (torch's conversion)."""
    import numpy as np

    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounding = ((bits >> np.uint32(16)) & np.uint32(1)) + np.uint32(0x7FFF)
    return ((bits + rounding) >> np.uint32(16)).astype(np.uint16)

"""Kimi K3 vision: one decoded image -> raw uint8 ViT patches and its prompt span.

vLLM 0.33.0's K3 processor (the fused Kimi K2.5 image processor, called with normalization left
to the device) does, per image:
- pick the patch budget from `preprocessor_config.json`'s `media_proc_cfg`: scale the image down
  (never up) so that it has at most `in_patch_limit` whole patches and at most
  `patch_limit_on_one_side` patches per side (`int()` truncation, at least one pixel a side);
- convert it to RGB with Pillow's plain `convert` (no background: K3 keeps the decoded mode),
  resize it with Pillow's bicubic filter when the size changed, pad it with zeros on the right and
  bottom to whole merge cells (`merge_kernel_size * patch_size` pixels), and cut it into
  (3, p, p) uint8 patches in row-major patch order;
- `grid_thws` = [1, padded height / p, padded width / p]; the image takes
  (padded height / cell) * (padded width / cell) media tokens.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class K3VisionConfig:
    patch_size: int = 14
    merge_kernel_size: int = 2
    in_patch_limit: int = 4096
    patch_limit_on_one_side: int = 512
    fixed_output_tokens: int | None = None

    @classmethod
    def from_media_proc_cfg(cls, cfg: dict[str, Any]) -> K3VisionConfig:
        merge = cfg.get("merge_kernel_size", 2)
        if isinstance(merge, (list, tuple)):
            merge = merge[0]
        fixed = cfg.get("fixed_output_tokens")
        return cls(
            patch_size=int(cfg.get("patch_size", 14)),
            merge_kernel_size=int(merge),
            in_patch_limit=int(cfg.get("in_patch_limit", 4096)),
            patch_limit_on_one_side=int(cfg.get("patch_limit_on_one_side", 512)),
            fixed_output_tokens=None if fixed is None else int(fixed),
        )

    @classmethod
    def from_model_dir(cls, model_dir: str | Path) -> K3VisionConfig | None:
        """The checkpoint's `preprocessor_config.json`, or None when it has none."""
        path = Path(model_dir) / "preprocessor_config.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        cfg = data.get("media_proc_cfg") if isinstance(data, dict) else None
        return cls.from_media_proc_cfg(cfg) if isinstance(cfg, dict) else None


@dataclass(frozen=True)
class ResizePlan:
    new_width: int
    new_height: int
    pad_width: int
    pad_height: int
    num_tokens: int


def resize_plan(width: int, height: int, cfg: K3VisionConfig) -> ResizePlan:
    """The target size, padding and media-token count of a `width` x `height` image."""
    patch, side = cfg.patch_size, cfg.patch_limit_on_one_side
    by_area = math.sqrt(cfg.in_patch_limit / (max(1.0, width // patch) * max(1.0, height // patch)))
    scale = min(1.0, by_area, side * patch / width, side * patch / height)
    new_w = min(max(1, int(width * scale)), side * patch)
    new_h = min(max(1, int(height * scale)), side * patch)
    cell = cfg.merge_kernel_size * patch
    pad_h = (cell - new_h % cell) % cell
    pad_w = (cell - new_w % cell) % cell
    if cfg.fixed_output_tokens is not None:
        tokens = cfg.fixed_output_tokens
    else:
        tokens = ((new_h + pad_h) // cell) * ((new_w + pad_w) // cell)
    return ResizePlan(new_w, new_h, pad_w, pad_h, tokens)


@dataclass(frozen=True)
class K3ProcessedImage:
    """One image's processor outputs."""

    patches: bytes  # uint8, shape (grid_h * grid_w, 3, p, p)
    patch_shape: tuple[int, int, int, int]
    grid_thw: tuple[int, int, int]
    num_tokens: int


def process_image(image: Any, cfg: K3VisionConfig) -> K3ProcessedImage:
    """`image`: a decoded PIL image in its own mode (K3 loads images without conversion)."""
    import numpy as np
    from PIL import Image

    rgb = image if image.mode == "RGB" else image.convert("RGB")
    plan = resize_plan(rgb.width, rgb.height, cfg)
    resized = rgb.resize((plan.new_width, plan.new_height), resample=Image.Resampling.BICUBIC)
    pixels = np.asarray(resized, dtype=np.uint8)
    patch = cfg.patch_size
    padded_h, padded_w = plan.new_height + plan.pad_height, plan.new_width + plan.pad_width
    canvas = np.zeros((padded_h, padded_w, 3), dtype=np.uint8)
    canvas[: plan.new_height, : plan.new_width] = pixels
    grid_h, grid_w = padded_h // patch, padded_w // patch
    patches = canvas.reshape(grid_h, patch, grid_w, patch, 3).transpose(0, 2, 4, 1, 3)
    return K3ProcessedImage(
        patches=np.ascontiguousarray(patches).tobytes(),
        patch_shape=(grid_h * grid_w, 3, patch, patch),
        grid_thw=(1, grid_h, grid_w),
        num_tokens=plan.num_tokens,
    )

"""Image URLs -> decoded images, with vLLM 0.33.0's rules, limits and error texts.

- `data:` URLs: `data:<media type>[;params];base64,<payload>`; the payload is strictly
  validated base64 (vLLM uses pybase64 with `validate=True`, whose error texts are mirrored).
- `http(s)://` URLs: vLLM fetches them; tokenfront does not reach out to arbitrary hosts, and
  answers 400 unless the server was told which domains it may fetch from (not implemented yet:
  such a URL is refused with its own message).
- `file://` URLs need `--allowed-local-media-path` in vLLM; tokenfront has no such flag, so it
  gives vLLM's answer for a server started without it.
- Decoding: Pillow with vLLM's allowlist of formats, at most `VLLM_MAX_IMAGE_PIXELS` pixels per
  image (Pillow's own decompression-bomb check fires first at the same size) and at most
  `VLLM_MAX_MEDIA_REQUEST_DECODE_BYTES` decoded bytes (4 per pixel) per request; EXIF orientation
  applied; converted to RGB (transparent images over a white background).
"""

from __future__ import annotations

import binascii
import contextlib
import functools
import os
import re
from dataclasses import dataclass, field
from typing import Any

from tokenfront.render.multimodal.hashing import HashedImage

# Pillow formats vLLM opens for untrusted media (no Ghostscript / external-handler formats).
ALLOWED_FORMATS = (
    "AVIF", "BLP", "BMP", "CUR", "DCX", "DDS", "DIB", "FITS", "FLI", "FTEX", "GBR", "GIF",
    "ICNS", "ICO", "IM", "IMT", "IPTC", "JPEG", "JPEG2000", "MCIDAS", "MSP", "PCD", "PCX",
    "PIXAR", "PNG", "PPM", "PSD", "QOI", "SGI", "SPIDER", "SUN", "TGA", "TIFF", "WEBP", "XBM",
    "XPM", "XVTHUMB",
)  # fmt: skip
DEFAULT_MAX_IMAGE_PIXELS = 178_956_970
DEFAULT_MAX_DECODE_BYTES = 715_827_880
WHITE = (255, 255, 255)


class MediaError(ValueError):
    """A media input the server refuses: a 400 with vLLM's message (where vLLM answers a
    client's bad media with a 500 / 501, tokenfront answers 400: docs/deviations.md)."""

    def __init__(self, message: str) -> None:
        # vLLM's error bodies drop object addresses ("<_io.BytesIO object at 0x...>").
        super().__init__(re.sub(r" at 0x[0-9a-fA-F]+>", ">", message))


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class DecodeBudget:
    """Decoded bytes (4 per pixel) charged against one request's limit."""

    limit: int = field(default_factory=lambda: _env_int("VLLM_MAX_MEDIA_REQUEST_DECODE_BYTES", DEFAULT_MAX_DECODE_BYTES))
    used: int = 0

    def charge(self, nbytes: int) -> None:
        if self.limit <= 0 or nbytes <= 0:
            return
        total = self.used + nbytes
        if total > self.limit:
            raise MediaError(
                "Request decoded media exceeds "
                f"VLLM_MAX_MEDIA_REQUEST_DECODE_BYTES={self.limit} ({total} bytes)."
            )
        self.used = total


@dataclass
class LoadedImage:
    image: Any  # PIL.Image.Image in RGB
    hashed: HashedImage


# ---------------------------------------------------------------- base64 (pybase64 semantics)

@functools.lru_cache(maxsize=1)
def _b64_pattern() -> re.Pattern[str]:
    return re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def b64decode_strict(text: str) -> bytes:
    """Strict base64 as pybase64's `b64decode(validate=True)`: whole 4-character groups of the
    standard alphabet, padding only at the end; anything else is "Non-base64 digit found"."""
    if not _b64_pattern().fullmatch(text):
        raise MediaError("Non-base64 digit found")
    return binascii.a2b_base64(text)


# ---------------------------------------------------------------- URLs

def read_url(url: str) -> bytes:
    """The encoded bytes behind an image URL (only `data:` URLs are read)."""
    if url[:5].lower() == "data:":
        spec, sep, payload = url[5:].partition(",")
        if not sep:
            raise MediaError(f"Invalid data URL {url[:32]!r}: missing ',' separator.")
        _media_type, sep, encoding = spec.rpartition(";")
        if not sep or encoding != "base64":
            raise MediaError("Only base64 data URLs are supported for now.")
        return b64decode_strict(payload)
    scheme = url.partition(":")[0].lower() if ":" in url else ""
    if scheme.startswith("http"):
        raise MediaError(
            "Fetching media from http(s) URLs is disabled on this server; "
            "send the image inline as a base64 data URL."
        )
    if scheme == "file":
        raise MediaError("Cannot load local files without `--allowed-local-media-path`.")
    raise MediaError("The URL must be either a HTTP, data or file URL.")


# ---------------------------------------------------------------- decoding

def _has_transparency(image: Any) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in getattr(image, "info", {})


def _to_rgb(image: Any) -> Any:
    """vLLM's RGB conversion: transparent images are flattened over white."""
    from PIL import Image

    if _has_transparency(image):
        rgba = image if image.mode == "RGBA" else image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, WHITE)
        flat.paste(rgba, mask=rgba.split()[3])
        return flat
    if image.mode == "RGB":
        return image
    return image.convert("RGB")


def decode_image(data: bytes, budget: DecodeBudget, *, to_rgb: bool = True) -> LoadedImage:
    """`to_rgb=False`: keep the decoded mode (vLLM's `image_mode: None`, K3's default)."""
    import io

    from PIL import Image, ImageOps

    max_pixels = _env_int("VLLM_MAX_IMAGE_PIXELS", DEFAULT_MAX_IMAGE_PIXELS)
    try:
        image: Any = Image.open(io.BytesIO(data), formats=ALLOWED_FORMATS)
        width, height = image.size
        if max_pixels > 0 and width * height > max_pixels:
            raise MediaError(
                f"Image dimensions {width}x{height} ({width * height} pixels) exceed "
                f"the maximum of {max_pixels} pixels. Set "
                "VLLM_MAX_IMAGE_PIXELS to increase this limit."
            )
        budget.charge(width * height * 4)
        with contextlib.suppress(Exception):  # vLLM ignores broken EXIF data
            image = ImageOps.exif_transpose(image)
        image.load()
        converted = _to_rgb(image) if to_rgb else image
    except (OSError, SyntaxError) as exc:  # UnidentifiedImageError is an OSError
        raise MediaError(f"Failed to load image: {exc}") from None
    except Image.DecompressionBombError as exc:  # vLLM lets this escape as a 500
        raise MediaError(str(exc)) from None
    io_config = None if converted is image else {"image_mode": "RGB", "rgba_background_color": WHITE}
    return LoadedImage(converted, HashedImage(data, io_config))

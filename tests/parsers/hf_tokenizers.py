"""The Hugging Face tokenizers the parser tests load: one per model dir and loading options in a
test process.

A loaded tokenizer with the tables tokenfront builds on it takes 100-200 MB; when each test
module cached its own, a pytest worker held the same model several times over.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any


def hf_tokenizer(model_dir: str | Path, **options: Any) -> Any:
    """`AutoTokenizer.from_pretrained(model_dir, **options)`, shared by every caller."""
    return _load(str(Path(model_dir).resolve()), tuple(sorted(options.items())))


@functools.cache
def _load(model_dir: str, options: tuple[tuple[str, Any], ...]) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model_dir, **dict(options))

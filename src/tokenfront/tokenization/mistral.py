"""`--tokenizer-mode mistral`: mistral-common's tokenizer with vLLM's MistralTokenizer rules.

In this mode vLLM does not go through a `tokenizers` backend: pieces come from
mistral-common (`id_to_piece`), special tokens are dropped when pieces are joined
except the tool-call / args / think markers, and pieces of a Tekken token that end
inside a UTF-8 character are carried as raw bytes.  This module gives the rest of
tokenfront the same surface (`MistralModeTokenizer`) and a `TokenizerView` variant
for incremental detokenization (`MistralTokenizerView`).

Raw-byte pieces cannot travel in a JSON stream state, so the view writes them as
`BYTE_PIECE_PREFIX + str(id)`: joining them decodes the id itself, which is what
vLLM's byte path does after mapping the bytes back to an id.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokenfront.tokenization.detokenizer import DetokWindow, TokenizerView, id_overflow

REPLACEMENT_CHAR = "\ufffd"
# Marker for a byte piece in a window of token strings (never a vocabulary piece).
BYTE_PIECE_PREFIX = "\x00\x01byte:"
# Special tokens vLLM keeps when it joins pieces or skips special ids.
KEPT_SPECIALS = ("[TOOL_CALLS]", "[ARGS]", "[THINK]", "[/THINK]")


def is_mistral_tokenizer(tokenizer: Any) -> bool:
    return isinstance(tokenizer, MistralModeTokenizer)


def load_mistral_tokenizer(source: Path, revision: str | None = None) -> MistralModeTokenizer:
    """mistral-common's tokenizer of a model directory, in vLLM's "test" validation mode."""
    from mistral_common.protocol.instruct.validator import ValidationMode
    from transformers.tokenization_mistral_common import MistralCommonBackend

    kwargs: dict[str, Any] = {"mode": ValidationMode.test}
    if revision:
        kwargs["revision"] = revision
    backend = MistralCommonBackend.from_pretrained(str(source), **kwargs)
    return MistralModeTokenizer(backend)


class MistralModeTokenizer:
    """The tokenizer surface vLLM's `MistralTokenizer` offers, over mistral-common."""

    is_fast = True
    chat_template = None
    clean_up_tokenization_spaces = False

    def __init__(self, backend: Any) -> None:
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        self.backend = backend
        self.mistral = backend.tokenizer
        self.instruct = self.mistral.instruct_tokenizer
        self.raw = self.instruct.tokenizer
        self.version = int(str(self.raw.version.value).split("v")[-1])
        self.is_tekken = isinstance(self.raw, Tekkenizer)
        self.vocab_size = int(backend.vocab_size)
        self.special_id_list = [
            i for i in range(len(self.raw.vocab())) if self.raw.is_special(i)
        ]
        self.special_id_set = frozenset(self.special_id_list)
        self.special_token_list = [self._keep_decode([i]) for i in self.special_id_list]
        self.special_token_set = frozenset(self.special_token_list)
        self.kept_special_ids = frozenset(
            self.raw.get_special_token(tok) for tok in KEPT_SPECIALS if self.raw.is_special(tok)
        )
        self.max_token_id = self.vocab_size - 1
        self.max_chars_per_token = max(len(tok) for tok in self.raw.vocab())
        self._vocab: dict[str, int] | None = None

    @property
    def supports_grammar(self) -> bool:
        """mistral-common's `GrammarFactory.is_supported`: a tekken tokenizer of version >= 11."""
        return self.is_tekken and self.version >= 11

    # ---- basic facts
    def __len__(self) -> int:
        return self.vocab_size

    @property
    def all_special_ids(self) -> list[int]:
        return self.special_id_list

    @property
    def all_special_tokens(self) -> list[str]:
        return self.special_token_list

    @property
    def bos_token_id(self) -> int:
        return int(self.raw.bos_id)

    @property
    def eos_token_id(self) -> int:
        return int(self.raw.eos_id)

    @property
    def pad_token_id(self) -> int:
        return int(self.raw.pad_id)

    def make_tokenizer_view(self) -> MistralTokenizerView:
        return MistralTokenizerView(self)

    def get_vocab(self) -> dict[str, int]:
        """piece -> lowest id with that piece (vLLM's `_vocab_dict`)."""
        if self._vocab is None:
            piece = self.raw.id_to_piece
            vocab = {piece(i): i for i in range(self.vocab_size - 1, -1, -1)}
            self._vocab = dict(sorted(vocab.items(), key=lambda kv: kv[1]))
        return self._vocab

    def get_added_vocab(self) -> dict[str, int]:
        return {}

    # ---- encoding
    def encode(self, text: str, add_special_tokens: bool = True, **_: Any) -> list[int]:
        return list(self.raw.encode(text, bos=add_special_tokens, eos=False))

    def __call__(self, text: str, add_special_tokens: bool = True, **_: Any) -> dict[str, Any]:
        ids = self.encode(text, add_special_tokens=add_special_tokens)
        return {"input_ids": ids, "attention_mask": [1] * len(ids)}

    def convert_tokens_to_ids(self, tokens: str | list[str]) -> int | list[int]:
        return self.backend.convert_tokens_to_ids(tokens)  # type: ignore[no-any-return]

    # ---- decoding
    def _keep_decode(self, ids: list[int]) -> str:
        from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy

        return str(self.raw.decode(ids, SpecialTokenPolicy.KEEP))

    def decode(self, ids: Sequence[int] | int, skip_special_tokens: bool = False) -> str:
        """The backend's decode; an id it cannot decode is a 400 (vLLM answers a 500)."""
        try:
            return str(self.backend.decode(ids, skip_special_tokens=skip_special_tokens))
        except Exception as exc:
            from tokenfront.api.errors import APIError

            raise APIError(str(exc)) from exc

    def convert_ids_to_tokens(
        self, ids: Sequence[int], skip_special_tokens: bool = False
    ) -> list[str | bytes]:
        """vLLM's pieces: raw bytes (Tekken) when a skipped-specials list has a broken char."""
        piece = self.raw.id_to_piece
        if not skip_special_tokens:
            return [piece(i) for i in ids]
        kept = [
            i for i in ids if i in self.kept_special_ids or i not in self.special_id_set
        ]
        tokens: list[str | bytes] = [piece(i) for i in kept]
        if self.is_tekken and any(REPLACEMENT_CHAR in t for t in tokens):  # type: ignore[operator]
            tokens = [self._byte_piece(i) for i in kept]
        return tokens

    def _byte_piece(self, token_id: int) -> str | bytes:
        from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy

        if token_id in self.special_id_set:
            return self._keep_decode([token_id])
        return bytes(self.raw.id_to_byte_piece(token_id, SpecialTokenPolicy.KEEP))

    def token_to_id(self, token: str | bytes) -> int:
        """A piece back to an id (vLLM's Tekken lookup; unknown pieces are `<unk>`)."""
        data = token.encode("utf-8") if isinstance(token, str) else token
        raw = self.raw
        found = raw._tekken_token2id_nospecial.get(data)
        if found is not None:
            return int(raw.num_special_tokens + found)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return int(raw.unk_id)
        special = raw._special_tokens_reverse_vocab.get(text)
        return int(special) if special is not None else int(raw.unk_id)

    def convert_tokens_to_string(self, tokens: Sequence[str | bytes]) -> str:
        """Join pieces: specials other than tool-call/args/think markers are dropped."""
        kept = [t for t in tokens if t in KEPT_SPECIALS or t not in self.special_token_set]
        if not self.is_tekken:
            return self._spm_join(kept)
        if any(isinstance(t, bytes) for t in kept):
            return self._keep_decode([self.token_to_id(t) for t in kept])
        return "".join(kept)  # type: ignore[arg-type]

    def _spm_join(self, tokens: Sequence[str | bytes]) -> str:
        from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy

        parts: list[str] = []
        run: list[str] = []
        for token in tokens:
            if token in KEPT_SPECIALS:
                if run:
                    parts.append(self.raw.decode(run, SpecialTokenPolicy.IGNORE))
                    run = []
                parts.append(str(token))
            else:
                run.append(token)  # type: ignore[arg-type]
        if run:
            parts.append(self.raw.decode(run, SpecialTokenPolicy.IGNORE))
        return "".join(parts)


class MistralTokenizerView(TokenizerView):
    """`TokenizerView` with vLLM's MistralTokenizer piece and join rules.

    Window tokens stay strings: a byte piece is written as `BYTE_PIECE_PREFIX + id`.
    """

    def __init__(self, tokenizer: MistralModeTokenizer) -> None:
        self.tokenizer = tokenizer
        self.mt = tokenizer
        # No `tokenizers` backend to call directly in mistral-common mode (render/tokens.py).
        self.plain_backend = None
        self.length = len(tokenizer)
        self.special_ids = tokenizer.special_id_set
        # What `skip_special_tokens` drops (the tool-call / args / think markers stay).
        self.skip_ids = tokenizer.special_id_set - tokenizer.kept_special_ids
        self.special_tokens = tokenizer.special_token_set
        self.added_vocab = frozenset()
        self.is_fast = True
        self._backend = None
        self.fast_detokenizer = True
        self.space_marker = None
        self._pieces = []
        self._single_cache = {}
        self._raw_decode = None
        self._piece_cache: dict[int, str] = {}
        self.tokens_to_string = self._join

    # ---- pieces
    def _piece(self, token_id: int) -> str:
        cached = self._piece_cache.get(token_id)
        if cached is None:
            cached = self._piece_cache[token_id] = str(self.mt.raw.id_to_piece(token_id))
        return cached

    def id_to_token(self, token_id: int) -> str | None:
        if not 0 <= token_id < 2**32:
            raise id_overflow(token_id)
        if token_id >= self.length:
            return None
        return self._piece(token_id)

    def _encode_piece(self, token_id: int, piece: str | bytes) -> str:
        if isinstance(piece, bytes):
            return f"{BYTE_PIECE_PREFIX}{token_id}"
        return piece

    def ids_to_tokens(self, token_ids: Sequence[int], skip_special_tokens: bool) -> list[str]:
        """vLLM's `convert_ids_to_tokens` (out-of-range ids as "")."""
        ids = list(token_ids)
        if not skip_special_tokens:
            return [self._piece(i) if 0 <= i < self.length else "" for i in ids]
        kept = [i for i in ids if i not in self.skip_ids]
        pieces = [self._piece(i) if 0 <= i < self.length else "" for i in kept]
        if self.mt.is_tekken and any(REPLACEMENT_CHAR in p for p in pieces):
            return [
                self._encode_piece(i, self.mt._byte_piece(i)) if 0 <= i < self.length else ""
                for i in kept
            ]
        return pieces

    def _join(self, tokens: list[str]) -> str:
        mt = self.mt
        kept = [t for t in tokens if t in KEPT_SPECIALS or t not in self.special_tokens]
        if not mt.is_tekken:
            return mt._spm_join(kept)
        if not any(t.startswith(BYTE_PIECE_PREFIX) for t in kept):
            return "".join(kept)
        ids = [
            int(t[len(BYTE_PIECE_PREFIX) :]) if t.startswith(BYTE_PIECE_PREFIX) else mt.token_to_id(t)
            for t in kept
        ]
        return mt._keep_decode(ids)

    def tokens_to_string_with_added(
        self, tokens: list[str], skip_special_tokens: bool, spaces_between_special_tokens: bool
    ) -> str:
        return self._join(tokens)

    # ---- decode
    def decode(self, token_ids: Sequence[int]) -> str:
        return self.mt.decode([i for i in token_ids if 0 <= i < self.length])

    def token_string(self, token_id: int) -> tuple[str, list[int]] | None:
        cached = self._single_cache.get(token_id)
        if cached is not None:
            return cached
        if not 0 <= token_id < self.length:
            if not 0 <= token_id < 2**32:
                raise id_overflow(token_id)
            return None
        text = self.decode_single(token_id)
        entry = (text, list(text.encode("utf-8", errors="replace")))
        self._single_cache[token_id] = entry
        return entry

    # ---- incremental detokenization
    def detokenize_delta(
        self,
        window: DetokWindow,
        token_ids: Sequence[int],
        skip_special_tokens: bool,
        spaces_between_special_tokens: bool,
    ) -> tuple[str, DetokWindow]:
        """vLLM's `detokenize_incrementally` per id, each new id converted on its own."""
        start = min(window.prefix_offset, window.read_offset, len(window.tokens))
        tokens = window.tokens[start:]
        prefix = window.prefix_offset - start
        read = window.read_offset - start
        join = self._join
        parts: list[str] = []
        for tid in token_ids:
            if 0 <= tid < self.length:
                tokens.extend(self.ids_to_tokens([tid], skip_special_tokens))
            else:
                tokens.append("")
            prefix_text = join(tokens[prefix:read])
            full_text = join(tokens[prefix:])
            if len(full_text) > len(prefix_text) and not full_text.endswith(REPLACEMENT_CHAR):
                parts.append(full_text[len(prefix_text) :])
                prefix, read = read, len(tokens)
            if prefix:
                del tokens[:prefix]
                read -= prefix
                prefix = 0
        return "".join(parts), DetokWindow(tokens, prefix, read)

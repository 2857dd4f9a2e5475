"""Incremental detokenization with a bounded window, equivalent to vLLM's derender decoding.

vLLM's derender decodes output ids one at a time from a small window of token strings
(`prefix_offset`..`read_offset`) seeded from the tail of the prompt.  Decoding the prefix
and the whole window and emitting only the difference defeats decoder clean-ups that
depend on neighbours (SentencePiece leading spaces, byte-fallback pieces); text ending in
U+FFFD is held back until the multi-byte character completes.  After each token the
window is trimmed to what is still read, so it never grows with the output.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tokenfront.tokenization.byte_level import byte_of_char
from tokenfront.tokenization.fast_tokenizer import FastTokenizer

if TYPE_CHECKING:
    from tokenfront.tokenization.prompt_encoder import PromptEncoder

# How many trailing prompt tokens seed the window (plus two, in case some are special).
SEED_WINDOW = 5
SEED_IDS = SEED_WINDOW + 2
REPLACEMENT_CHAR = "\ufffd"
_UNSET = object()


def id_overflow(token_id: int) -> OverflowError:
    """The error the `tokenizers` binding raises for an id outside 32 unsigned bits; vLLM
    answers its text as a 400."""
    if not -(2**63) <= token_id < 2**63:
        return OverflowError("Python int too large to convert to C long")
    side = "small" if token_id < 0 else "large"
    return OverflowError(f"number too {side} to fit in target type")

class TokenizerView:
    """Facts about one tokenizer, computed once (special ids, added vocab, decoder...)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.length = len(tokenizer)
        self.special_ids = frozenset(int(i) for i in getattr(tokenizer, "all_special_ids", ()))
        self.special_tokens = frozenset(getattr(tokenizer, "all_special_tokens", ()))
        try:
            self.added_vocab = frozenset(tokenizer.get_added_vocab())
        except Exception:
            self.added_vocab = frozenset()
        self.is_fast = bool(getattr(tokenizer, "is_fast", True))
        backend = getattr(tokenizer, "backend_tokenizer", None)
        self._backend = backend
        decoder = backend.decoder if backend is not None else None
        # vLLM's engine uses its "fast" detokenizer rules for tokenizers backed by `tokenizers`.
        self.fast_detokenizer = _is_tokenizers_backend(tokenizer)
        self.space_marker = _leading_space_marker(backend)
        # Lazily filled id -> piece table (bounded by the vocabulary size).
        self._pieces: list[Any] = [_UNSET] * self.length if backend is not None else []
        if backend is None:
            self.tokens_to_string: Callable[[list[str]], str] = tokenizer.convert_tokens_to_string
        elif decoder is not None:
            self.tokens_to_string = decoder.decode
        else:
            self.tokens_to_string = " ".join
        self._single_cache: dict[int, tuple[str, list[int]]] = {}
        # Without clean-up, transformers' decode is the backend's decode plus overhead.
        cleanup = bool(getattr(tokenizer, "clean_up_tokenization_spaces", True))
        if cleanup and backend is not None and type(backend.model).__name__ == "BPE":
            # transformers skips the (WordPiece-only) clean-up for BPE models.
            cleanup = bool(
                getattr(
                    tokenizer,
                    "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output",
                    False,
                )
            )
        self._raw_decode = (
            backend.decode
            if self.fast_detokenizer and backend is not None and not cleanup
            else None
        )
        # transformers' generic fast tokenizer encodes with one backend call and nothing else.
        self.plain_backend = backend if _is_plain_tokenizers_backend(tokenizer) else None
        self._prompt_encoder: Any = _UNSET
        # A byte-level BPE decoder (GPT-2 style) joins each piece's bytes and decodes them as
        # UTF-8 with replacement; doing that in Python skips a Rust call per decoded window.
        self.byte_level = decoder is not None and type(decoder).__name__ == "ByteLevel"
        self._piece_bytes: dict[str, bytes] = {}
        # Per id: its clean text or None (`_clean_known` says whether it was worked out yet).
        self._clean_texts: list[str | None] = [None] * self.length if self.byte_level else []
        self._clean_known = bytearray(self.length if self.byte_level else 0)

    @property
    def prompt_encoder(self) -> PromptEncoder | None:
        """The fast encoder for the plain backend (built on first use), or None."""
        if self.plain_backend is None:  # also views that keep no backend (mistral mode)
            return None
        if self._prompt_encoder is _UNSET:
            from tokenfront.tokenization.prompt_encoder import PromptEncoder

            self._prompt_encoder = PromptEncoder.for_backend(self.plain_backend)
        return self._prompt_encoder  # type: ignore[no-any-return]

    # ---- id -> token string
    def id_to_token(self, token_id: int) -> str | None:
        """The vocabulary piece of an id; None when the tokenizer has none.

        Like the `tokenizers` binding, an id that does not fit in 32 unsigned bits raises
        `OverflowError` (which vLLM answers as a 400).
        """
        pieces = self._pieces
        if 0 <= token_id < len(pieces):
            piece = pieces[token_id]
            if piece is _UNSET:
                # The table is only built when there is a backend.
                piece = pieces[token_id] = self._backend.id_to_token(token_id)  # type: ignore[union-attr]
            return piece  # type: ignore[no-any-return]
        if not 0 <= token_id < 2**32:
            raise id_overflow(token_id)
        if self._backend is not None:
            return self._backend.id_to_token(token_id)  # type: ignore[no-any-return]
        token = self.tokenizer.convert_ids_to_tokens(token_id)
        return token if isinstance(token, str) else None

    def ids_to_tokens(self, token_ids: Sequence[int], skip_special_tokens: bool) -> list[str]:
        """`convert_ids_to_tokens` with unknown ids as "" (vLLM's guard)."""
        out: list[str] = []
        skip = self.special_ids if skip_special_tokens else ()
        for tid in token_ids:
            if tid in skip:
                continue
            token = self.id_to_token(tid)
            out.append(token if token is not None else "")
        return out

    def tokens_to_string_with_added(
        self, tokens: list[str], skip_special_tokens: bool, spaces_between_special_tokens: bool
    ) -> str:
        """The slow-tokenizer join: added tokens stay verbatim, runs between them are decoded."""
        parts: list[str] = []
        run: list[str] = []
        specials = self.special_tokens if skip_special_tokens else frozenset()
        for token in tokens:
            if token in specials:
                continue
            if token in self.added_vocab:
                if run:
                    parts.append(self.tokens_to_string(run))
                    run = []
                parts.append(token)
            else:
                run.append(token)
        if run:
            parts.append(self.tokens_to_string(run))
        return (" " if spaces_between_special_tokens else "").join(parts)

    def piece_bytes(self, piece: str) -> bytes:
        """The bytes a byte-level decoder turns `piece` into: each character's byte, or the
        piece's own UTF-8 when a character is outside the byte alphabet (added tokens)."""
        cached = self._piece_bytes.get(piece)
        if cached is not None:
            return cached
        try:
            out = bytes(_BYTE_OF_CHAR[c] for c in piece)
        except KeyError:
            out = piece.encode("utf-8")
        if len(self._piece_bytes) < 2 * self.length + 1024:
            self._piece_bytes[piece] = out
        return out

    def clean_text(self, token_id: int) -> str | None:
        """Under a byte-level decoder, the text of an in-vocabulary id decoded alone when its
        bytes are whole UTF-8 characters (non-empty, not U+FFFD-terminated); else None."""
        if self._clean_known[token_id]:
            return self._clean_texts[token_id]
        piece = self.id_to_token(token_id)
        try:
            text = self.piece_bytes(piece).decode("utf-8") if piece else None
        except UnicodeDecodeError:
            text = None
        if text is not None and (not text or text.endswith(REPLACEMENT_CHAR)):
            text = None
        self._clean_texts[token_id] = text
        self._clean_known[token_id] = 1
        return text

    # ---- plain decode
    def decode(self, token_ids: Sequence[int]) -> str:
        """`tokenizer.decode(ids)` (special tokens kept; unknown ids decode to nothing)."""
        if self._raw_decode is not None:
            return str(self._raw_decode(list(token_ids), skip_special_tokens=False))
        return str(self.tokenizer.decode(list(token_ids)))

    def decode_single(self, token_id: int) -> str:
        """`decode([id])` (uncached; see `token_string`)."""
        return self.decode([token_id]) or ""

    def token_string(self, token_id: int) -> tuple[str, list[int]] | None:
        """One id decoded on its own (SentencePiece leading spaces restored) and its UTF-8
        bytes; None for an id without a vocabulary entry.  Cached per id."""
        cached = self._single_cache.get(token_id)
        if cached is not None:
            return cached
        piece = self.id_to_token(token_id)
        if piece is None:
            return None
        text = self.decode_single(token_id)
        if self.space_marker is not None:
            text = _restore_leading_spaces(piece, text, self.space_marker)
        entry = (text, list(text.encode("utf-8", errors="replace")))
        if 0 <= token_id < self.length:
            self._single_cache[token_id] = entry
        return entry

    def token_strings(self, token_ids: Sequence[int]) -> list[str | None]:
        """Each id decoded on its own, SentencePiece leading spaces restored; None if unknown."""
        out: list[str | None] = []
        for tid in token_ids:
            entry = self.token_string(tid)
            out.append(None if entry is None else entry[0])
        return out


_BYTE_OF_CHAR = byte_of_char()


def _is_tokenizers_backend(tokenizer: Any) -> bool:
    if isinstance(tokenizer, FastTokenizer):
        return True
    try:
        from transformers import TokenizersBackend
    except Exception:  # pragma: no cover - older transformers
        return bool(getattr(tokenizer, "is_fast", False))
    return isinstance(tokenizer, TokenizersBackend)


def _is_plain_tokenizers_backend(tokenizer: Any) -> bool:
    if isinstance(tokenizer, FastTokenizer):
        return True
    try:
        from transformers import TokenizersBackend
    except Exception:  # pragma: no cover - older transformers
        return False
    cls = type(tokenizer)
    return (
        isinstance(tokenizer, TokenizersBackend)
        and cls.__call__ is TokenizersBackend.__call__
        and cls._encode_plus is TokenizersBackend._encode_plus
    )


def _leading_space_marker(backend: Any) -> str | None:
    """The Metaspace replacement character, if the pre-tokenizer is (or contains) Metaspace."""
    pre_tokenizer = getattr(backend, "pre_tokenizer", None) if backend is not None else None
    if pre_tokenizer is None:
        return None
    try:
        pre = json.loads(pre_tokenizer.__getstate__())
    except Exception:
        return None
    if not isinstance(pre, dict):
        return None
    if pre.get("type") == "Metaspace":
        return str(pre.get("replacement", "\u2581"))
    if pre.get("type") == "Sequence":
        for sub in pre.get("pretokenizers") or ():
            if isinstance(sub, dict) and sub.get("type") == "Metaspace":
                return str(sub.get("replacement", "\u2581"))
    return None


def _restore_leading_spaces(piece: str, text: str, marker: str) -> str:
    markers = len(piece) - len(piece.lstrip(marker))
    if markers == 0:
        return text
    present = len(text) - len(text.lstrip(" "))
    missing = markers - present
    return " " * missing + text if missing > 0 else text


_VIEW_ATTR = "_tokenfront_view"
_view_lock = threading.Lock()


def tokenizer_view(tokenizer: Any) -> TokenizerView:
    """The cached `TokenizerView` of a tokenizer."""
    view = getattr(tokenizer, _VIEW_ATTR, None)
    if isinstance(view, TokenizerView):
        return view
    with _view_lock:
        view = getattr(tokenizer, _VIEW_ATTR, None)
        if not isinstance(view, TokenizerView):
            make_view = getattr(tokenizer, "make_tokenizer_view", None)
            view = make_view() if make_view is not None else TokenizerView(tokenizer)
            try:
                setattr(tokenizer, _VIEW_ATTR, view)
            except Exception:  # pragma: no cover - frozen objects
                pass
        return view


@dataclass
class DetokWindow:
    """The trailing token strings still read by incremental decoding, and its two offsets."""

    tokens: list[str] = field(default_factory=list)
    prefix_offset: int = 0
    read_offset: int = 0

    def copy(self) -> DetokWindow:
        return DetokWindow(list(self.tokens), self.prefix_offset, self.read_offset)


def seed_window(
    view: TokenizerView, prompt_token_ids: Sequence[int] | None, skip_special_tokens: bool
) -> DetokWindow:
    """The window primed with the prompt tail (empty without a prompt)."""
    if not prompt_token_ids:
        return DetokWindow()
    tokens = view.ids_to_tokens(list(prompt_token_ids[-SEED_IDS:]), skip_special_tokens)
    read = len(tokens)
    return DetokWindow(tokens, max(read - SEED_WINDOW, 0), read)


def detokenize_delta(
    view: TokenizerView,
    window: DetokWindow,
    token_ids: Sequence[int],
    skip_special_tokens: bool,
    spaces_between_special_tokens: bool,
) -> tuple[str, DetokWindow]:
    """Decode `token_ids` after `window`; returns the new text and the advanced window.

    Each id is one step of vLLM's `detokenize_incrementally`: decode the window from
    `prefix` to `read` and from `prefix` to the end, emit the difference unless it is
    empty or ends in U+FFFD, then drop everything before the new `prefix`.
    """
    custom = getattr(view, "detokenize_delta", None)
    if custom is not None:  # e.g. mistral-common tokenizers (tokenization/mistral.py)
        return custom(window, token_ids, skip_special_tokens, spaces_between_special_tokens)  # type: ignore[no-any-return]
    if view.is_fast or not view.added_vocab:
        join = view.tokens_to_string
    else:

        def join(pieces: list[str]) -> str:
            return view.tokens_to_string_with_added(
                pieces, skip_special_tokens, spaces_between_special_tokens
            )

    if not 0 <= window.prefix_offset <= window.read_offset <= len(window.tokens):
        return _irregular_window_delta(view, window, token_ids, skip_special_tokens, join)
    # Nothing before min(prefix, read, len) is ever read again: start from there.
    start = min(window.prefix_offset, window.read_offset, len(window.tokens))
    tokens = window.tokens[start:]
    prefix = window.prefix_offset - start
    read = window.read_offset - start

    skip = view.special_ids if skip_special_tokens else frozenset()
    length = view.length
    id_to_token = view.id_to_token
    if view.byte_level and join is view.tokens_to_string:
        return _byte_level_delta(view, tokens, prefix, read, token_ids, skip)
    parts: list[str] = []
    for tid in token_ids:
        if 0 <= tid < length:
            if tid not in skip:
                tokens.append(id_to_token(tid) or "")
        else:
            tokens.append("")
        prefix_text = join(tokens[prefix:read])
        full_text = join(tokens[prefix:])
        if len(full_text) > len(prefix_text) and not full_text.endswith(REPLACEMENT_CHAR):
            parts.append(full_text[len(prefix_text) :])
            prefix, read = read, len(tokens)
        if prefix:
            # Keep only what the next step can still read, rebased to the new prefix.
            del tokens[:prefix]
            read -= prefix
            prefix = 0
    return "".join(parts), DetokWindow(tokens, prefix, read)


def _irregular_window_delta(
    view: TokenizerView,
    window: DetokWindow,
    token_ids: Sequence[int],
    skip_special_tokens: bool,
    join: Any,
) -> tuple[str, DetokWindow]:
    """`detokenize_delta` for a window whose offsets are out of order or out of range (only a
    client-made vLLM state carries one): vLLM's steps verbatim, negative offsets and Python's
    slicing of them included, so the text and the window (a next call with a negative offset
    is refused, as vLLM's state validation refuses it) come out as vLLM's."""
    tokens, prefix, read = list(window.tokens), window.prefix_offset, window.read_offset
    skip = view.special_ids if skip_special_tokens else frozenset()
    parts: list[str] = []
    for tid in token_ids:
        if 0 <= tid < view.length:
            new = [] if tid in skip else [view.id_to_token(tid) or ""]
        else:
            new = [""]
        count = len(tokens) + len(new)
        start = min(prefix, read, len(tokens))
        out = (tokens[start:] if start else tokens) + new
        prefix_text = join(out[prefix - start : read - start])
        full_text = join(out[prefix - start :])
        if len(full_text) > len(prefix_text) and not full_text.endswith(REPLACEMENT_CHAR):
            parts.append(full_text[len(prefix_text) :])
            prefix, read = read, count
        tokens = (tokens + new)[prefix:]
        read -= prefix
        prefix = 0
    return "".join(parts), DetokWindow(tokens, prefix, read)


def _byte_level_delta(
    view: TokenizerView,
    tokens: list[str],
    prefix: int,
    read: int,
    token_ids: Sequence[int],
    skip: frozenset[int],
) -> tuple[str, DetokWindow]:
    """`detokenize_delta`'s loop for byte-level decoders, on bytes: the same steps, texts and
    window as decoding the pieces with the tokenizer's decoder.

    While nothing is pending and the read part of the window is valid UTF-8, a token whose
    bytes are whole characters emits its own text and becomes the whole window, so a run of
    such tokens (the usual case) needs one table lookup each and no decoding; without skipped
    ids the lookups are one list comprehension and a run is found with `list.index`.
    """
    piece_bytes = view.piece_bytes
    clean_text = view.clean_text
    id_to_token = view.id_to_token
    length = view.length
    raw = [piece_bytes(t) for t in tokens]
    head_clean = _valid_utf8(b"".join(raw[prefix:read]))
    parts: list[str] = []
    last = -1  # the id ending a run of clean tokens: the window is then just its piece
    ids = token_ids if isinstance(token_ids, list) else list(token_ids)
    # Without skipped ids, each id's clean text as far as known (None: not clean, not yet
    # worked out, or out of range), so a run of clean tokens is found and joined at C speed.
    table = view._clean_texts
    run = None if skip else [table[t] if 0 <= t < length else None for t in ids]
    n = len(ids)
    i = 0
    while i < n:
        tid = ids[i]
        i += 1
        known = 0 <= tid < length
        if last >= 0 or (head_clean and read == len(tokens)):
            if run is not None:
                if run[i - 1] is not None:
                    # The run of clean tokens from here: their texts, and the last becomes
                    # the window.
                    try:
                        end = run.index(None, i)
                    except ValueError:
                        end = n
                    parts.append("".join(run[i - 1 : end]))  # type: ignore[arg-type]
                    last = ids[end - 1]
                    i = end
                    continue
                text = clean_text(tid) if known else None
                if text is not None:  # first seen: now known to be clean
                    run[i - 1] = text
                    i -= 1
                    continue
            else:
                if known and tid in skip:
                    continue  # nothing pending: a skipped token cannot emit or move the window
                text = clean_text(tid) if known else None
                if text is not None:
                    parts.append(text)
                    last = tid
                    continue
            if last >= 0:
                tokens[:] = [id_to_token(last) or ""]
                raw[:] = [piece_bytes(tokens[0])]
                prefix, read, head_clean, last = 0, 1, True, -1
        if known:
            piece = None if tid in skip else id_to_token(tid) or ""
        else:
            piece = ""
        if piece is None:
            if read == len(tokens):
                continue
        else:
            tokens.append(piece)
            raw.append(piece_bytes(piece))
        head = b"".join(raw[prefix:read])
        prefix_text = head.decode("utf-8", "replace")
        full_text = (head + b"".join(raw[read:])).decode("utf-8", "replace")
        if len(full_text) > len(prefix_text) and not full_text.endswith(REPLACEMENT_CHAR):
            parts.append(full_text[len(prefix_text) :])
            prefix, read = read, len(tokens)
            head_clean = _valid_utf8(b"".join(raw[prefix:read]))
        if prefix:
            del tokens[:prefix]
            del raw[:prefix]
            read -= prefix
            prefix = 0
    if last >= 0:
        tokens[:] = [id_to_token(last) or ""]
        prefix, read = 0, 1
    return "".join(parts), DetokWindow(tokens, prefix, read)


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

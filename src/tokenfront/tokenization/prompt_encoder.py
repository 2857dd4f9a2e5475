"""Fast prompt encoding for byte-level BPE tokenizers.

`tokenizers` runs a Split pre-tokenizer's regex through Oniguruma, which dominates the cost of
encoding a prompt (about 1 ms per 4 KB). On ASCII text the same patterns, with their Unicode
classes spelled out for ASCII, run about ten times faster in `re` (five times in `regex`, the
fallback for patterns that cannot be spelled out), and the BPE merges of a word never change, so:

- the text is cut at added tokens (leftmost-longest, as `tokenizers` does);
- each run that is plain printable ASCII (where the regex engines agree and NFC is the
  identity) is split with those patterns, and each word's ids come from a bounded cache filled
  by the tokenizer's own BPE model;
- every other run is encoded by the tokenizer itself, which gives the same ids because runs
  between added tokens are encoded independently.

Only tokenizers whose whole pipeline is understood get an encoder (see `for_backend`), and a
probe encoding must agree with the tokenizer before the encoder is used.
"""

from __future__ import annotations

import json
import re
from typing import Any

import regex

from tokenfront.tokenization.byte_level import byte_alphabet

_PLAIN_RUN = regex.compile(r"[\t\n\r\x20-\x7e]*")
_WORD_CACHE_LIMIT = 1 << 16
_CACHED_WORD_CHARS = 64

_PROBE = (
    "Hello, World! It's   a test\n\n\tof  'quotes' \"double\" 12345 67.8e9 a_b-c "
    "ALL-CAPS camelCase snake_case x+=1; f(x)->y {json: [1, 2]} <tag attr='v'/> "
    "I'LL we'Re you've  \r\n  trailing spaces   \n$%^&*()~`|\\ end"
)


def _state(component: Any) -> dict[str, Any] | None:
    if component is None:
        return None
    return json.loads(component.__getstate__())  # type: ignore[no-any-return]


def _normalizer_is_identity_on_ascii(state: dict[str, Any] | None) -> bool:
    if state is None:
        return True
    kind = state.get("type")
    if kind == "NFC":
        return True
    if kind == "Sequence":
        return all(_normalizer_is_identity_on_ascii(s) for s in state.get("normalizers", []))
    return False


def _split_patterns(state: dict[str, Any] | None) -> list[Any] | None:
    """The Split regexes of a `Sequence[Split(regex, Isolated)..., ByteLevel]` pre-tokenizer."""
    if state is None or state.get("type") != "Sequence":
        return None
    steps = state.get("pretokenizers", [])
    if not steps:
        return None
    last = steps[-1]
    if last.get("type") != "ByteLevel" or last.get("add_prefix_space") or last.get("use_regex"):
        return None
    patterns = []
    for step in steps[:-1]:
        pattern = step.get("pattern", {})
        if (
            step.get("type") != "Split"
            or step.get("behavior") != "Isolated"
            or step.get("invert")
            or "Regex" not in pattern
        ):
            return None
        compiled = _ascii_pattern(pattern["Regex"])
        if compiled is None:
            try:
                compiled = regex.compile(pattern["Regex"])
            except regex.error:
                return None
        patterns.append(compiled)
    return patterns or None


# Unicode general categories restricted to the characters a plain run may hold.
_ASCII_CATEGORIES = {
    "L": "A-Za-z",
    "N": "0-9",
    "M": "",
    "P": "!-#%-*,-/:;?@\\[-\\]_{}",
    "S": "$+<->^`|~",
}
_PATTERN_TOKEN = re.compile(r"\\p\{(\w+)\}|\\(.)|(\[\^?)|(\])", re.DOTALL)
# Escapes that mean the same in Oniguruma and in `re` on ASCII text.
_PORTABLE_ESCAPES = frozenset("sSdDwWrntfv")


def _ascii_pattern(source: str) -> re.Pattern[str] | None:
    """`source` with `\\p{L}`-style classes spelled out for ASCII, compiled by `re`
    (about twice as fast as `regex` here); None when the pattern uses anything else."""
    if "[:" in source:
        return None  # POSIX bracket classes
    out: list[str] = []
    pos = 0
    in_class = False
    for match in _PATTERN_TOKEN.finditer(source):
        name, escaped, opening, closing = match.groups()
        if escaped is not None:
            if escaped.isalnum() and escaped not in _PORTABLE_ESCAPES:
                return None
            continue
        if opening and not in_class:
            in_class = True
        elif closing and in_class:
            in_class = False
        if name is None:
            continue
        body = _ASCII_CATEGORIES.get(name)
        if body is None:
            return None
        out.append(source[pos : match.start()])
        out.append(body if in_class else (f"[{body}]" if body else "[^\\x00-\\x7f]"))
        pos = match.end()
    out.append(source[pos:])
    try:
        return re.compile("".join(out), re.ASCII)
    except re.error:
        return None


def _literal_alternation(contents: list[str]) -> regex.Pattern[str] | None:
    if not contents:
        return None
    ordered = sorted(set(contents), key=len, reverse=True)  # longest first = leftmost-longest
    return regex.compile("|".join(regex.escape(c) for c in ordered))


class PromptEncoder:
    """`backend.encode(text, add_special_tokens)`'s ids, computed faster (see module doc)."""

    def __init__(
        self,
        backend: Any,
        splitters: list[Any],
        raw_tokens: regex.Pattern[str] | None,
        normalized_tokens: regex.Pattern[str] | None,
        added_ids: dict[str, int],
    ) -> None:
        self._backend = backend
        self._model = backend.model
        self._splitters = splitters
        self._raw_tokens = raw_tokens
        self._normalized_tokens = normalized_tokens
        self._added_ids = added_ids
        self._byte_map = dict(enumerate(byte_alphabet()[:128]))
        self._words: dict[str, list[int]] = {}
        self._prefix: list[int] = []
        self._suffix: list[int] = []

    @classmethod
    def for_backend(cls, backend: Any) -> PromptEncoder | None:
        """An encoder for a `tokenizers.Tokenizer`, or None when its pipeline is not one this
        module reproduces exactly."""
        try:
            if type(backend.model).__name__ != "BPE" or backend.model.dropout:
                return None
            if not _normalizer_is_identity_on_ascii(_state(backend.normalizer)):
                return None
            splitters = _split_patterns(_state(backend.pre_tokenizer))
            if splitters is None:
                return None
            raw: list[str] = []
            normalized: list[str] = []
            added_ids: dict[str, int] = {}
            for token_id, token in backend.get_added_tokens_decoder().items():
                if token.lstrip or token.rstrip or token.single_word or not token.content:
                    return None
                if added_ids.setdefault(token.content, token_id) != token_id:
                    return None
                (normalized if token.normalized else raw).append(token.content)
            encoder = cls(
                backend,
                splitters,
                _literal_alternation(raw),
                _literal_alternation(normalized),
                added_ids,
            )
            if not encoder._learn_special_tokens() or not encoder._agrees_on_probe():
                return None
            return encoder
        except Exception:  # an unfamiliar tokenizers build: keep the tokenizer's own path
            return None

    def _learn_special_tokens(self) -> bool:
        """The ids `add_special_tokens=True` puts around a sequence (post-processor template)."""
        bare = self._backend.encode("a", add_special_tokens=False).ids
        full = self._backend.encode("a", add_special_tokens=True).ids
        for start in range(len(full) - len(bare) + 1):
            if full[start : start + len(bare)] == bare:
                self._prefix = full[:start]
                self._suffix = full[start + len(bare) :]
                return True
        return False

    def _agrees_on_probe(self) -> bool:
        tokens = list(self._added_ids)[:8]
        probes = [_PROBE, "".join(f"{t} x{_PROBE[:40]}" for t in tokens) + " tail"]
        for text in probes:
            for special in (False, True):
                if self.encode(text, special) != self._backend.encode(text, add_special_tokens=special).ids:
                    return False
        return True

    def encode(self, text: str, add_special_tokens: bool) -> list[int]:
        if not text or self._backend.encode_special_tokens:
            return list(self._backend.encode(text, add_special_tokens=add_special_tokens).ids)
        ids: list[int] = list(self._prefix) if add_special_tokens else []
        for run, is_added in self._runs(text, self._raw_tokens):
            if is_added:
                ids.append(self._added_ids[run])
            elif _PLAIN_RUN.fullmatch(run):
                for part, part_added in self._runs(run, self._normalized_tokens):
                    if part_added:
                        ids.append(self._added_ids[part])
                    else:
                        self._encode_plain(part, ids)
            else:
                ids.extend(self._backend.encode(run, add_special_tokens=False).ids)
        if add_special_tokens:
            ids.extend(self._suffix)
        return ids

    @staticmethod
    def _runs(text: str, tokens: regex.Pattern[str] | None) -> list[tuple[str, bool]]:
        """`text` cut into (run, is_added_token) pieces, empty runs left out."""
        if tokens is None:
            return [(text, False)]
        out: list[tuple[str, bool]] = []
        pos = 0
        for match in tokens.finditer(text):
            start, end = match.span()
            if start > pos:
                out.append((text[pos:start], False))
            out.append((match.group(), True))
            pos = end
        if pos < len(text):
            out.append((text[pos:], False))
        return out

    def _encode_plain(self, run: str, ids: list[int]) -> None:
        words = [run]
        for pattern in self._splitters:
            split: list[str] = []
            for word in words:
                split.extend(_isolated(pattern, word))
            words = split
        cache = self._words
        for word in words:
            word_ids = cache.get(word)
            if word_ids is None:
                word_ids = self._bpe(word)
            ids.extend(word_ids)

    def _bpe(self, word: str) -> list[int]:
        word_ids = [t.id for t in self._model.tokenize(word.translate(self._byte_map))]
        if len(word) <= _CACHED_WORD_CHARS:
            if len(self._words) >= _WORD_CACHE_LIMIT:
                self._words.clear()
            self._words[word] = word_ids
        return word_ids


def _isolated(pattern: Any, text: str) -> list[str]:
    """Split's `Isolated` behaviour: every match is a piece, and so is the text between them."""
    if not pattern.groups:
        parts = pattern.findall(text)
        if sum(map(len, parts)) == len(text):
            return parts  # the matches cover the text (the usual case)
    out: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        start, end = match.span()
        if start == end:
            continue
        if start > pos:
            out.append(text[pos:start])
        out.append(text[start:end])
        pos = end
    if pos < len(text):
        out.append(text[pos:])
    return out

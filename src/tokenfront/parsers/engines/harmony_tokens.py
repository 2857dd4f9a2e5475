"""Token-level reader of gpt-oss "Harmony" assistant output.

vLLM 0.33.0 parses gpt-oss output (model_type `gpt_oss`) token by token with a streaming
Harmony message reader started in the header of an assistant message (the prompt ends with
`<|start|>assistant`). This module reads the same messages from token ids, with the state in a
JSON-serialisable dict:

- mode "header": header tokens are collected until `<|message|>`; the decoded header gives
  the channel (`<|channel|>NAME`), the role (given for the first message, otherwise the first
  word), a recipient (`to=NAME`, or a lone word) and a content type (the last word when more
  than one is left, e.g. `<|constrain|>json`). A header that does not read (undecodable bytes,
  an empty channel, an unknown role, words left over) is an error and the reader waits for
  `<|start|>`.
- mode "content": every token is text (special tokens by their names) until `<|end|>`,
  `<|call|>` or `<|return|>` completes the message. Bytes that do not yet form UTF-8 wait for
  the next token; an invalid byte becomes U+FFFD.
- mode "start": only `<|start|>` is accepted (anything else is an error; the caller recovers).

End of output completes an open message body; it is an error inside a header.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tokenfront.parsers.base import JSONState
from tokenfront.tokenization.byte_level import byte_alphabet

START, MESSAGE, CHANNEL, CONSTRAIN = "<|start|>", "<|message|>", "<|channel|>", "<|constrain|>"
STOPS = ("<|end|>", "<|call|>", "<|return|>")
ROLES = ("user", "assistant", "system", "developer", "tool")
REPLACEMENT = "\ufffd"
# Unicode White_Space (what the header reader trims and ends a channel name on).
_WHITE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_WHITE = " \t\n\x0c\r"


class HarmonyError(ValueError):
    """A token the reader does not accept in its current state."""


@dataclass
class Message:
    role: str
    channel: str | None
    recipient: str | None
    content_type: str | None
    text: str


class TokenBytes:
    """Each token id's bytes (special tokens by their names) for one tokenizer."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.added = {int(i): str(t) for i, t in tokenizer.added_tokens_decoder.items()}
        self.byte_of = {ch: b for b, ch in enumerate(byte_alphabet())}

    def __call__(self, token_id: int) -> bytes:
        name = self.added.get(token_id)
        if name is not None:
            return name.encode("utf-8")
        piece = self.tokenizer.convert_ids_to_tokens(token_id)
        if piece is None:
            raise HarmonyError(f"unknown token {token_id}")
        return bytes(self.byte_of[ch] for ch in piece)

    def ids(self) -> dict[str, int]:
        return {name: i for i, name in self.added.items()}


@lru_cache(maxsize=8)
def token_bytes(tokenizer: Any) -> TokenBytes:
    return TokenBytes(tokenizer)


def _strip(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] in _WHITE:
        start += 1
    while end > start and text[end - 1] in _WHITE:
        end -= 1
    return text[start:end]


def parse_header(text: str, role: str | None) -> Message:
    """A message header's fields; raises HarmonyError where the header does not read."""
    channel = None
    at = text.find(CHANNEL)
    if at != -1:
        after = text[at + len(CHANNEL) :]
        end = next((i for i, ch in enumerate(after) if ch in _WHITE or ch == "<"), len(after))
        if end == 0:
            raise HarmonyError("channel marker present but no channel value found in header")
        channel = after[:end]
        text = text[:at] + after[end:]
        # Later channel markers are dropped with their names.
        while (at := text.find(CHANNEL)) != -1:
            after = text[at + len(CHANNEL) :]
            end = next((i for i, ch in enumerate(after) if ch in _WHITE or ch == "<"), len(after))
            text = text[:at] + after[end:]
    text = _strip(text)
    if CONSTRAIN in text:
        text = _strip(text.replace(CONSTRAIN, " " + CONSTRAIN))
    parts = [p for p in _split_ascii(text)]
    if role is None:
        if not parts:
            raise HarmonyError("message header did not contain a role")
        if parts[0] in ROLES:
            role = parts[0]
        elif len(parts) > 1 or parts[0].startswith("to="):
            parts.pop(0)
            role = "tool"
        else:
            raise HarmonyError(f"Unknown role: {parts[0]}")
    if parts and parts[0] == role:
        parts.pop(0)
    recipient = content_type = None
    if parts:
        count = len(parts)
        last = parts.pop()
        if last.startswith("to="):
            recipient = last[3:]
        elif count == 1:
            recipient = last
        else:
            content_type = last
            if parts:
                raw = parts.pop()
                recipient = raw[3:] if raw.startswith("to=") else raw
        if parts:
            raise HarmonyError(f"unexpected tokens remaining in message header: {' '.join(parts)}")
    return Message(role, channel, recipient, content_type, "")


def _split_ascii(text: str) -> list[str]:
    parts: list[str] = []
    word: list[str] = []
    for ch in text:
        if ch in _ASCII_WHITE:
            if word:
                parts.append("".join(word))
                word = []
        else:
            word.append(ch)
    if word:
        parts.append("".join(word))
    return parts


def new_state(keep_text: bool = True) -> JSONState:
    """A reader inside the header of the assistant message the prompt opened."""
    return {
        "mode": "header",
        "role": "assistant",
        "head": [],
        "msg": None,
        "bytes": "",
        "delta": None,
        "text": "" if keep_text else None,
        "cur": [],
    }


class HarmonyReader:
    """Feeds token ids through a state made by `new_state`."""

    def __init__(self, tokenizer: Any) -> None:
        self.bytes_of = token_bytes(tokenizer)
        ids = self.bytes_of.ids()
        self.start_id = ids[START]
        self.message_id = ids[MESSAGE]
        self.stop_ids = frozenset(ids[name] for name in STOPS)

    def process(self, st: JSONState, token_id: int) -> Message | None:
        """Advance one token; the message it completes, if any. Raises HarmonyError."""
        mode = st["mode"]
        if mode == "start":
            if token_id != self.start_id:
                raise HarmonyError(f"Unexpected token {token_id} while expecting start token")
            st.update(mode="header", head=[])
        elif mode == "header":
            if token_id == self.message_id:
                st["mode"] = "start"
                header = parse_header(self._decode_strict(st["head"]), st["role"])
                st.update(
                    mode="body",
                    role=None,
                    msg=[header.role, header.channel, header.recipient, header.content_type],
                    bytes="",
                    cur=[],
                )
                if st["text"] is not None:
                    st["text"] = ""
            else:
                st["head"].append(token_id)
        elif token_id in self.stop_ids:
            return self._complete(st)
        else:
            self._content(st, self.bytes_of(token_id))
        return None

    def process_eos(self, st: JSONState) -> Message | None:
        if st["mode"] == "header":
            raise HarmonyError("Unexpected EOS while waiting for message header to complete")
        if st["mode"] == "body":
            return self._complete(st)
        return None

    def _decode_strict(self, ids: Sequence[int]) -> str:
        try:
            return b"".join(self.bytes_of(i) for i in ids).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HarmonyError("could not decode header") from exc

    def _content(self, st: JSONState, data: bytes) -> None:
        pending = bytes.fromhex(st["bytes"]) + data
        try:
            piece = pending.decode("utf-8")
        except UnicodeDecodeError as exc:
            valid = exc.start
            piece = pending[:valid].decode("utf-8")
            rest = pending[valid:]
            # A definite error (not just a sequence cut short at the end) costs one U+FFFD.
            if exc.reason != "unexpected end of data":
                bad = exc.end - exc.start
                piece += REPLACEMENT
                rest = rest[bad:]
            st["bytes"] = rest.hex()
            st["delta"] = piece or None
        else:
            st["bytes"] = ""
            st["delta"] = piece
        if piece and st["text"] is not None:
            st["text"] += piece

    def _complete(self, st: JSONState) -> Message:
        role, channel, recipient, content_type = st["msg"]
        tail = bytes.fromhex(st["bytes"]).decode("utf-8", errors="replace")
        text = (st["text"] or "") + tail
        st.update(mode="start", msg=None, bytes="", delta=None, head=[], cur=[])
        if st["text"] is not None:
            st["text"] = ""
        return Message(role, channel, recipient, content_type, text)

    # -- what vLLM's reader exposes after each token ------------------------------------
    @staticmethod
    def channel(st: JSONState) -> str | None:
        return st["msg"][1] if st["mode"] == "body" else None

    @staticmethod
    def recipient(st: JSONState) -> str | None:
        return st["msg"][2] if st["mode"] == "body" else None

    @staticmethod
    def content_type(st: JSONState) -> str | None:
        return st["msg"][3] if st["mode"] == "body" else None

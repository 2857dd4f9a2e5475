"""The streaming derender state: bounded, opaque, HMAC-signed and bound to the model config.

vLLM sends its `DerenderStreamState` as plain JSON and, with a parser, grows it with every
output token (replayed from scratch on each call).  tokenfront carries only the bounded
detokenization window plus the parser's own state dict, and signs it so a client cannot
forge or splice states: a tampered, truncated or foreign state is a 400.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tokenfront import json_codec
from tokenfront.api.errors import APIError
from tokenfront.tokenization.detokenizer import DetokWindow
from tokenfront.tokenization.registry import ServedModel

if TYPE_CHECKING:
    from tokenfront.protocol.generate import VllmStreamState

logger = logging.getLogger(__name__)

INVALID_STATE = "invalid stream_state"
_VERSION = 1
# A signed state larger than this is rejected before it is decoded.
MAX_STATE_CHARS = 4 * 1024 * 1024


@dataclass
class StreamState:
    """What one choice's stream carries between calls."""

    window: DetokWindow = field(default_factory=DetokWindow)
    role_sent: bool = False
    logprob_context: list[int] = field(default_factory=list)
    logprob_text_offset: int = 0
    output_tokens: int = 0
    parser_state: dict[str, Any] | None = None
    tools_streamed: bool = False
    tool_call_ids: list[str] = field(default_factory=list)
    # Set for a plain vLLM `DerenderStreamState` (never serialised: answers are ours).
    from_vllm: bool = False
    # Chunks of a vLLM-style state still to be replayed through the parser.
    replay_ids: list[int] = field(default_factory=list)
    replay_chunk_lens: list[int] = field(default_factory=list)

    def to_payload(self) -> dict[str, Any]:
        return {
            "v": _VERSION,
            "w": self.window.tokens,
            "p": self.window.prefix_offset,
            "r": self.window.read_offset,
            "rs": self.role_sent,
            "lc": self.logprob_context,
            "lo": self.logprob_text_offset,
            "n": self.output_tokens,
            "ps": self.parser_state,
            "ts": self.tools_streamed,
            "ti": self.tool_call_ids,
        }

    @classmethod
    def from_payload(cls, data: Any) -> StreamState:
        if not isinstance(data, dict) or data.get("v") != _VERSION:
            raise ValueError("unknown state version")
        tokens = data["w"]
        prefix, read = data["p"], data["r"]
        if not (isinstance(tokens, list) and all(isinstance(t, str) for t in tokens)):
            raise ValueError("bad window")
        if not (_nonneg_int(prefix) and _nonneg_int(read) and _nonneg_int(data["n"])):
            raise ValueError("bad offsets")
        parser_state = data["ps"]
        if parser_state is not None and not isinstance(parser_state, dict):
            raise ValueError("bad parser state")
        return cls(
            window=DetokWindow(list(tokens), prefix, read),
            role_sent=bool(data["rs"]),
            logprob_context=[int(i) for i in data["lc"]],
            logprob_text_offset=int(data["lo"]),
            output_tokens=int(data["n"]),
            parser_state=parser_state,
            tools_streamed=bool(data["ts"]),
            tool_call_ids=[str(i) for i in data["ti"]],
        )

    @classmethod
    def of_vllm(cls, state: VllmStreamState) -> StreamState:
        """A plain vLLM state (its shape is validated by the request model)."""
        return cls(
            window=DetokWindow(list(state.prev_tokens), state.prefix_offset, state.read_offset),
            from_vllm=True,
            role_sent=state.role_sent,
            logprob_context=list(state.logprob_context_token_ids),
            logprob_text_offset=state.logprob_text_offset,
            output_tokens=len(state.output_token_ids),
            tools_streamed=state.tools_streamed,
            tool_call_ids=list(state.last_tool_call_ids),
            replay_ids=list(state.output_token_ids),
            replay_chunk_lens=list(state.output_chunk_lens),
        )


def _nonneg_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class StateCodec:
    """Signs states with the first key; accepts a state signed with any configured key."""

    def __init__(self, keys: list[str] | None) -> None:
        material = [k for k in (keys or []) if k]
        if not material:
            logger.warning(
                "no stream_state key configured: using a random per-process key, so streaming "
                "derender states do not survive a restart or move between workers"
            )
            material = [secrets.token_hex(32)]
        self._keys = [hashlib.sha256(k.encode("utf-8")).digest() for k in material]

    @staticmethod
    def binding(model: ServedModel, kind: str) -> bytes:
        opts = model.options
        parts = [
            kind,
            model.name,
            opts.tool_call_parser or "",
            opts.reasoning_parser or "",
            "auto" if opts.enable_auto_tool_choice else "",
        ]
        return "\x1f".join(parts).encode("utf-8")

    def _mac(self, key: bytes, binding: bytes, payload: bytes) -> bytes:
        return hmac.new(key, binding + b"\x1e" + payload, hashlib.sha256).digest()

    def encode(self, state: StreamState, binding: bytes) -> str:
        payload = json_codec.dumps(state.to_payload())
        return f"{_b64(payload)}.{_b64(self._mac(self._keys[0], binding, payload))}"

    def decode(self, token: str, binding: bytes) -> StreamState:
        """The state behind a signed string, or a 400 "invalid stream_state"."""
        try:
            if len(token) > MAX_STATE_CHARS:
                raise ValueError("too large")
            body, _, sig = token.partition(".")
            payload = _unb64(body)
            mac = _unb64(sig)
            if not any(
                hmac.compare_digest(mac, self._mac(key, binding, payload)) for key in self._keys
            ):
                raise ValueError("bad signature")
            state = StreamState.from_payload(json_codec.loads(payload))
        except Exception:
            raise _not_issued() from None
        # (imported here: the signer is created at start-up, before the request models are)
        from tokenfront.protocol.generate import MAX_STATE_WINDOW

        if len(state.window.tokens) > MAX_STATE_WINDOW:
            raise _not_issued()
        return state


def _not_issued() -> APIError:
    """A string this server did not issue. vLLM's stream_state is an object, so any string
    fails its request validation: the same 400 type ("Bad Request")."""
    return APIError(INVALID_STATE, err_type="Bad Request", param="stream_state")

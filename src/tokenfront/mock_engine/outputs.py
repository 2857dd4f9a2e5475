"""Turning a scripted reply into engine outputs: stop rules, length limit, fake logprobs.

The rules follow vLLM's engine: generation ends at `max_tokens` ("length"), at a
`stop_token_ids` id or a model EOS id ("stop", `stop_reason` the id; None for the
tokenizer's primary EOS), or at a stop string ("stop", `stop_reason` the string); no stop
is honoured before `min_tokens`, and `ignore_eos` keeps going (the reply is repeated).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tokenfront.tokenization.registry import ServedModel


@dataclass
class Planned:
    token_ids: list[int]
    finish_reason: str
    stop_reason: int | str | None = None


@dataclass(frozen=True)
class StopRules:
    max_tokens: int
    min_tokens: int = 0
    stop_token_ids: frozenset[int] = frozenset()
    stop: tuple[str, ...] = ()
    ignore_eos: bool = False

    @classmethod
    def from_sampling(cls, sp: dict[str, Any], model: ServedModel, prompt_len: int) -> StopRules:
        max_tokens = sp.get("max_tokens")
        if max_tokens is None:
            max_tokens = max(model.max_model_len - prompt_len, 0)
        stop = sp.get("stop") or ()
        if isinstance(stop, str):
            stop = (stop,)
        return cls(
            max_tokens=int(max_tokens),
            min_tokens=int(sp.get("min_tokens") or 0),
            stop_token_ids=frozenset(int(t) for t in sp.get("stop_token_ids") or ()),
            stop=tuple(s for s in stop if s),
            ignore_eos=bool(sp.get("ignore_eos")),
        )


def encode_reply(model: ServedModel, text: str) -> list[int]:
    """The reply's ids in the model's own vocabulary (markup like `<tool_call>` included)."""
    ids: list[int] = model.tokenizer.encode(text, add_special_tokens=False)
    return ids


def _source(model: ServedModel, reply_ids: list[int], rules: StopRules) -> Iterator[int]:
    if rules.ignore_eos:
        # Nothing ends the output but max_tokens: repeat the reply.
        return itertools.cycle(reply_ids or [model.eos_token_id or 0])
    tail = [model.eos_token_id] if model.eos_token_id is not None else []
    return iter(reply_ids + tail)


def _stop_id(model: ServedModel, token: int, rules: StopRules) -> tuple[bool, int | None]:
    if token in rules.stop_token_ids:
        return True, token
    if rules.ignore_eos:
        return False, None
    if token == model.eos_token_id:
        return True, None
    if token in model.model_eos_token_ids:
        return True, token
    return False, None


def plan_output(model: ServedModel, reply_ids: list[int], rules: StopRules) -> Planned:
    """The token ids the engine returns for one choice, with its finish and stop reasons."""
    out: list[int] = []
    text = ""
    for token in _source(model, reply_ids, rules):
        if len(out) >= rules.max_tokens:
            return Planned(out, "length")
        out.append(token)
        if len(out) < rules.min_tokens:
            continue
        stopped, stop_reason = _stop_id(model, token, rules)
        if stopped:
            return Planned(out, "stop", stop_reason)
        if rules.stop:
            new_text = model.tokenizer.decode(out, skip_special_tokens=True)
            fresh, text = new_text[max(len(text) - max(map(len, rules.stop)), 0) :], new_text
            hit = next((s for s in rules.stop if s in fresh), None)
            if hit is not None:
                return Planned(out, "stop", hit)
    # Only reached without an EOS id: the reply simply ends.
    return Planned(out, "length" if len(out) >= rules.max_tokens else "stop")


def fake_logprobs(token_ids: list[int], top_k: int, vocab_size: int) -> dict[str, Any]:
    """Generate-wire logprobs: the sampled token (rank 1) first, then made-up runners-up."""
    content = []
    for position, token in enumerate(token_ids):
        sampled = -0.05 - 0.01 * (position % 7)
        top = [{"token_id": token, "logprob": sampled, "rank": 1}]
        for rank in range(2, top_k + 1):
            top.append(
                {
                    "token_id": (token + rank - 1) % vocab_size,
                    "logprob": sampled - 1.5 * (rank - 1),
                    "rank": rank,
                }
            )
        content.append({"token_id": token, "logprob": sampled, "rank": 1, "top_logprobs": top})
    return {"content": content}

"""vLLM's whole-chunk stream, checked against a token-by-token shadow of itself.

Some per-delta parsers are right one token per delta but lose or garble text when a chunk
holds several tokens. `ShadowState` runs both: the parser on the whole chunks (vLLM's
answers, sent byte for byte) and the parser fed token by token (the shadow). While what
the client got from the whole-chunk run stays a prefix of the shadow's joined output or
ahead of it (either run may send some text a chunk later), the whole-chunk answers go out.
Once they leave the shadow's track (and the shadow agrees with the text), the client is
caught up to the shadow, whose output goes out from then on; the end of the stream sends
whatever the whole-chunk run still owes.

Joined outputs are kept as `{"content": str, "calls": [[has_id, name, args], ...]}`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, DeltaToolCall, JSONState, random_tool_call_id
from tokenfront.parsers.engines.chunk_pieces import Piece, merge_deltas

Step = Callable[[JSONState, str, Sequence[int]], DeltaMessage | None]


def new_joined() -> dict[str, Any]:
    return {"content": "", "calls": []}


def add_delta(joined: dict[str, Any], delta: DeltaMessage | None) -> dict[str, Any]:
    """`joined` with `delta` appended (in place; returned)."""
    if delta is None:
        return joined
    joined["content"] += delta.content or ""
    calls: list[list[Any]] = joined["calls"]
    for tc in delta.tool_calls:
        while len(calls) <= tc.index:
            calls.append([False, "", ""])
        call = calls[tc.index]
        call[0] = call[0] or tc.id is not None
        call[1] += tc.name or ""
        call[2] += tc.arguments or ""
    return joined


def _ordered(a: str, b: str) -> bool:
    return a.startswith(b) or b.startswith(a)


def compatible(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two joined outputs are on one track: each text a prefix of the other's (either
    run may lag), names equal where both were sent."""
    if not _ordered(a["content"], b["content"]):
        return False
    for (_, name, args), (_, other_name, other_args) in zip(a["calls"], b["calls"], strict=False):
        if (name and other_name and name != other_name) or not _ordered(args, other_args):
            return False
    return True


def catch_up(sent: dict[str, Any], full: dict[str, Any]) -> DeltaMessage | None:
    """The delta that brings a client holding `sent` up to `full` where `full` is ahead
    (text `full` lags behind is not taken back); `sent` is updated to what it then holds."""
    content = ""
    if full["content"].startswith(sent["content"]):
        content = full["content"][len(sent["content"]) :]
        sent["content"] = full["content"]
    calls: list[DeltaToolCall] = []
    for index, (_, name, args) in enumerate(full["calls"]):
        while len(sent["calls"]) <= index:
            sent["calls"].append([False, "", ""])
        have: list[Any] = sent["calls"][index]
        rest = args[len(have[2]) :] if args.startswith(have[2]) else ""
        have[2] += rest
        if not have[1] and name:
            have[0], have[1] = True, name
            calls.append(
                DeltaToolCall(
                    index=index,
                    id=random_tool_call_id(),
                    type="function",
                    name=name,
                    arguments=rest,
                )
            )
        elif rest:
            calls.append(DeltaToolCall(index=index, arguments=rest))
    if not content and not calls:
        return None
    return DeltaMessage(content=content or None, tool_calls=calls)


def new_state() -> JSONState:
    # whole / tokens: the two runs' parser states; sent: what the client got; shadow: the
    # token run's joined output; follow: still sending the whole-chunk answers.
    return {
        "whole": {},
        "tokens": {},
        "sent": new_joined(),
        "shadow": new_joined(),
        "follow": True,
        "split": False,
    }


Healthy = Callable[[JSONState, dict[str, Any]], bool]


def shadow_step(
    step: Step,
    state: JSONState,
    text: str,
    ids: Sequence[int],
    pieces: Sequence[Piece],
    healthy: Healthy,
) -> DeltaMessage | None:
    """One chunk: the whole-chunk answer while it stays on the shadow's track, else the
    shadow's (after a catch-up delta). `healthy(tokens_state, joined)` tells whether the
    shadow's joined output agrees with the text so far: a shadow that garbles it too is
    never followed (vLLM's answers go out as they are)."""
    if "whole" not in state:
        state.update(new_state())
    state["split"] = state["split"] or len(pieces) > 1
    deltas = [step(state["tokens"], t, piece_ids) for t, piece_ids in pieces]
    # a one-token stream gets the end-of-stream arguments only on a final delta with calls
    state["tail_calls"] = bool(deltas) and deltas[-1] is not None and bool(deltas[-1].tool_calls)
    by_token = merge_deltas(deltas)
    add_delta(state["shadow"], by_token)
    if state["follow"]:
        whole = step(state["whole"], text, ids)
        after = add_delta(copy.deepcopy(state["sent"]), whole)
        if compatible(after, state["shadow"]) or not healthy(state["tokens"], state["shadow"]):
            state["sent"] = after
            return whole
        state["follow"] = False
    return catch_up(state["sent"], state["shadow"])


def content_step(
    state: JSONState, text: str, ids: Sequence[int], advance: Callable[[JSONState], None]
) -> DeltaMessage | None:
    """A chunk the parser answers as plain content however it is cut, while the client holds
    just what the shadow holds: both runs' states are `advance`d as a step would (no token
    by token stepping, which is quadratic in a long chunk), both outputs get the text.
    None when the state does not allow it (the caller steps the chunk)."""
    if "whole" not in state:
        state.update(new_state())
    if not state["follow"] or state["sent"] != state["shadow"]:
        return None
    advance(state["whole"])
    advance(state["tokens"])
    state["split"] = state["split"] or len(ids) > 1
    state["tail_calls"] = False
    state["sent"]["content"] += text
    state["shadow"]["content"] += text
    return DeltaMessage(content=text)


def active_state(state: JSONState) -> JSONState:
    """The parser state whose answers go out (for end-of-stream bookkeeping)."""
    return state["whole"] if state.get("follow", True) else state["tokens"]


def client_remaining(state: JSONState, rest: str) -> str:
    """The end-of-stream arguments the pipeline appends to the last call of the final delta:
    the active run's `rest`, measured against what the client holds (recorded there). A
    client following the shadow gets them only when its last token's delta carried a call."""
    sent = state.get("sent")
    if not rest or not sent or not sent["calls"]:
        return rest
    have: list[Any] = sent["calls"][-1]
    if not state["follow"]:
        if not state.get("tail_calls", True):  # the shadow's last token sent no call
            return ""
        target = state["shadow"]["calls"][-1][2] + rest
        rest = target[len(have[2]) :] if target.startswith(have[2]) else ""
    have[2] += rest
    return rest


def shadow_finish(
    state: JSONState, remaining: Callable[[JSONState], str], healthy: Healthy
) -> DeltaMessage | None:
    """What the client still lacks at the end of a stream that had split chunks:
    the shadow's output, its last call completed by `remaining(tokens_state)` (the end of
    stream flush a one-token stream gets when its last token's delta carries a call)."""
    if not state.get("split"):
        return None
    target = copy.deepcopy(state["shadow"])
    if target["calls"] and state.get("tail_calls", True):
        target["calls"][-1][2] += remaining(state["tokens"])
    if not compatible(state["sent"], target) or not healthy(state["tokens"], target):
        return None
    return catch_up(state["sent"], target)

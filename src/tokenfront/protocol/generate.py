"""The token-in/token-out wire shapes derender accepts, validated the way vLLM 0.33.0 does.

`GenerateTokensResponse` / `GenerateTokensStreamResponse` are what a generate server
answers (`output_mode="tokens"`); the derender request bodies wrap one of them plus the
caller's render-step facts.  A body is parsed as "non-streaming" or "streaming" on the
`stream` literal, so the same bodies fail (400) as on vLLM.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, NotRequired, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    create_model,
    field_validator,
    model_validator,
)
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from tokenfront.protocol.base import OpenAIModel
from tokenfront.protocol.requests import ChatCompletionRequest, CompletionRequest, new_request_id

# vLLM bounds a carried detokenization window to this many token strings.
MAX_STATE_WINDOW = 1024
# ... and the byte-fallback logprob context to this many ids.
LOGPROB_CONTEXT_WINDOW = 4


class PromptTokenUsageInfo(OpenAIModel):
    cached_tokens: int | None = None
    created_cache_tokens: int | None = None
    multimodal_tokens: dict[str, int] | None = None


class CompletionTokenUsageInfo(OpenAIModel):
    reasoning_tokens: int = 0


class UsageInfo(OpenAIModel):
    prompt_tokens: int = 0
    total_tokens: int = 0
    completion_tokens: int | None = 0
    prompt_tokens_details: PromptTokenUsageInfo | None = None
    completion_tokens_details: CompletionTokenUsageInfo | None = None


class SpeculativeDecodingMetrics(OpenAIModel):
    mean_acceptance_length: float
    draft_acceptance_rate: float
    acceptance_histogram: list[int]
    num_spec_steps: int
    num_accepted_draft_tokens: int
    num_draft_tokens: int
    num_spec_tokens: int
    per_step_accepted: list[int] | None = None
    per_step_drafted: list[int] | None = None


class PerRequestMetrics(OpenAIModel):
    time_to_first_token_ms: float | None = None
    generation_time_ms: float | None = None
    queue_time_ms: float | None = None
    mean_itl_ms: float | None = None
    tokens_per_second: float | None = None
    speculative_decoding: SpeculativeDecodingMetrics | None = None


class PlaceholderRangeInfo(BaseModel):
    offset: int = Field(ge=0)
    length: int = Field(gt=0)


@dataclasses.dataclass
class WeightVersionSpan:
    version: str
    start: int
    end: int


@dataclasses.dataclass
class Logprob:
    """One prompt-logprob entry, passed through unchanged."""

    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


class LogprobCandidate(TypedDict):
    """One candidate token of a position (`GenerateLogProb` as a plain dict)."""

    token_id: int
    logprob: float
    rank: NotRequired[int | None]


class LogprobPosition(LogprobCandidate):
    """One output position and its top candidates (`GenerateLogProbsContent` as a dict)."""

    top_logprobs: NotRequired[list[LogprobCandidate]]


class GenerateLogProb(BaseModel):
    token_id: int
    logprob: float
    rank: int | None = None


class GenerateLogProbsContent(GenerateLogProb):
    top_logprobs: list[GenerateLogProb] = []


class GenerateLogProbs(BaseModel):
    # Thousands of entries per body: validated as plain dicts (~3x faster than one model
    # each). Invalid bodies are re-validated with the model classes for vLLM's error text
    # (`DerenderBodyAdapter`).
    content: list[LogprobPosition] | None = None

    @field_validator("content", mode="wrap")
    @classmethod
    def _exact_entries_kept(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # Entries that already have validation's result types are kept as parsed (~3x faster
        # than validating them); anything else is validated (and coerced, or rejected).
        if type(value) is list and _exact_positions(value):
            return value
        return handler(value)


def _exact_candidate(entry: Any) -> bool:
    """A dict with an int `token_id`, a float `logprob` and, if present, an int or None `rank`."""
    if (
        type(entry) is not dict
        or type(entry.get("token_id")) is not int
        or type(entry.get("logprob")) is not float
    ):
        return False
    rank = entry.get("rank")
    return rank is None or type(rank) is int


def _exact_positions(positions: list[Any]) -> bool:
    """Whether every position is an exact candidate whose `top_logprobs`, if present, is a
    list of exact candidates."""
    for entry in positions:
        if not _exact_candidate(entry):
            return False
        if "top_logprobs" not in entry:
            continue
        tops = entry["top_logprobs"]
        if type(tops) is not list or not all(_exact_candidate(cand) for cand in tops):
            return False
    return True


def _no_negative_ids(value: list[int] | None) -> list[int] | None:
    if value and min(value) < 0:
        raise ValueError("token_ids must not contain negative values")
    return value


_EXACT_INTS: TypeAdapter[list[int]] = TypeAdapter(list[int], config=ConfigDict(strict=True))


def _exact_non_negative_ids(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A list of non-negative ints: checked as exact ints in one strict pass plus a `min`
    (~3x faster than the per-item constraint on a long prompt); anything else (coercions,
    negative ids, wrong types) is validated as declared, with the same errors."""
    if type(value) is list:
        try:
            ids = _EXACT_INTS.validate_python(value)
        except ValidationError:
            return handler(value)
        if not ids or min(ids) >= 0:
            return ids
    return handler(value)


# `list[NonNegativeInt]` for prompt ids (hundreds to thousands per body).
PromptIds = Annotated[list[NonNegativeInt], WrapValidator(_exact_non_negative_ids)]


class GenerateTokensChoice(BaseModel):
    index: int
    finish_reason: str | None = "stop"
    stop_reason: int | str | None = None
    token_ids: list[int] | None = None
    routed_experts: str | None = None
    sampling_mask: list[list[int]] | None = None
    weight_versions: list[WeightVersionSpan] | None = None
    logprobs: GenerateLogProbs | None = None

    @field_validator("token_ids")
    @classmethod
    def _check_ids(cls, value: list[int] | None) -> list[int] | None:
        return _no_negative_ids(value)


class GenerateTokensStreamChoice(BaseModel):
    index: int
    finish_reason: str | None = None
    stop_reason: int | str | None = None
    token_ids: list[int] | None = None
    routed_experts: str | None = None
    sampling_mask: list[list[int]] | None = None
    weight_versions: list[WeightVersionSpan] | None = None
    logprobs: GenerateLogProbs | None = None


class GenerateTokensResponse(BaseModel):
    request_id: str = Field(default_factory=new_request_id)
    model: str | None = None
    created: int | None = None
    usage: UsageInfo | None = None
    prompt_logprobs: list[dict[int, Logprob] | None] | None = None
    prompt_token_id_logprobs: str | None = None
    prompt_token_ids: PromptIds | None = None
    mm_placeholders: dict[str, list[PlaceholderRangeInfo]] | None = None
    metrics: PerRequestMetrics | None = None
    kv_transfer_params: dict[str, Any] | None = None
    ec_transfer_params: dict[str, Any] | None = None
    output_mode: Literal["tokens"] = "tokens"
    choices: list[GenerateTokensChoice]


class GenerateTokensStreamResponse(BaseModel):
    request_id: str = Field(default_factory=new_request_id)
    usage: UsageInfo | None = None
    prompt_token_ids: PromptIds | None = None
    mm_placeholders: dict[str, list[PlaceholderRangeInfo]] | None = None
    metrics: PerRequestMetrics | None = None
    output_mode: Literal["tokens"] = "tokens"
    choices: list[GenerateTokensStreamChoice]


class VllmStreamState(BaseModel):
    """vLLM's plain-JSON `DerenderStreamState`, accepted for compatibility.

    tokenfront answers an opaque signed string instead; a dict in this shape is
    validated with vLLM's rules so malformed ones fail the same way.
    """

    prev_tokens: list[str] = Field(default_factory=list)
    prefix_offset: int = Field(default=0, ge=0)
    read_offset: int = Field(default=0, ge=0)
    role_sent: bool = False
    logprob_context_token_ids: list[int] = Field(
        default_factory=list, max_length=LOGPROB_CONTEXT_WINDOW
    )
    logprob_text_offset: int = Field(default=0, ge=0)
    output_token_ids: list[int] = Field(default_factory=list)
    output_chunk_lens: list[Annotated[int, Field(gt=0)]] = Field(default_factory=list)
    tools_streamed: bool = False
    last_tool_call_ids: list[str] = Field(default_factory=list)

    @field_validator("prev_tokens")
    @classmethod
    def _bound_prev_tokens(cls, value: list[str]) -> list[str]:
        if len(value) > MAX_STATE_WINDOW:
            raise ValueError(
                f"prev_tokens length ({len(value)}) exceeds maximum ({MAX_STATE_WINDOW})"
            )
        return value

    @model_validator(mode="after")
    def _chunk_lens_sum(self) -> VllmStreamState:
        total = sum(self.output_chunk_lens)
        if total != len(self.output_token_ids):
            raise ValueError(
                "output_chunk_lens must sum to len(output_token_ids) "
                f"(got sum={total}, len(output_token_ids)={len(self.output_token_ids)})"
            )
        return self


def _keep_signed_state(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    # tokenfront's own state is an opaque signed string; anything else validates as vLLM's
    # dict state alone, so its errors read as vLLM's (no extra "valid string" error)
    return value if isinstance(value, str) else handler(value)


# `stream_state`: tokenfront's signed string, or vLLM's dict state
if TYPE_CHECKING:
    StreamStateField = str | VllmStreamState | None
else:
    StreamStateField = Annotated[VllmStreamState | None, WrapValidator(_keep_signed_state)]


class DerenderChatRequest(BaseModel):
    stream: Literal[False] = False
    model: str | None = None
    generate_response: GenerateTokensResponse
    prompt_tokens: int | None = None
    prompt_token_ids: PromptIds | None = None
    chat_request: ChatCompletionRequest | None = None


class DerenderCompletionRequest(BaseModel):
    stream: Literal[False] = False
    model: str | None = None
    generate_responses: list[GenerateTokensResponse]
    prompt_tokens: list[int] | None = None
    prompt_token_ids: list[PromptIds | None] | None = None
    completion_request: CompletionRequest | None = None

    @model_validator(mode="after")
    def _parallel_lengths(self) -> DerenderCompletionRequest:
        n = len(self.generate_responses)
        if self.prompt_tokens is not None and len(self.prompt_tokens) != n:
            raise ValueError(
                f"prompt_tokens length ({len(self.prompt_tokens)}) must equal "
                f"generate_responses length ({n})"
            )
        if self.prompt_token_ids is not None and len(self.prompt_token_ids) != n:
            raise ValueError(
                f"prompt_token_ids length ({len(self.prompt_token_ids)}) must "
                f"equal generate_responses length ({n})"
            )
        return self


class DerenderChatStreamRequest(BaseModel):
    stream: Literal[True]
    model: str | None = None
    generate_chunk: GenerateTokensStreamResponse
    stream_state: StreamStateField = None
    prompt_tokens: int | None = None
    prompt_token_ids: PromptIds | None = None
    chat_request: ChatCompletionRequest | None = None


class DerenderCompletionStreamRequest(BaseModel):
    stream: Literal[True]
    model: str | None = None
    generate_chunk: GenerateTokensStreamResponse
    stream_state: StreamStateField = None
    prompt_tokens: int | None = None
    prompt_token_ids: PromptIds | None = None
    completion_request: CompletionRequest | None = None


DerenderChatBody = DerenderChatRequest | DerenderChatStreamRequest
DerenderCompletionBody = DerenderCompletionRequest | DerenderCompletionStreamRequest

B = TypeVar("B")


def _twin(cls: type[BaseModel], **fields: Any) -> Any:
    """`cls` under the same name with some fields retyped (so error locations read the same)."""
    return create_model(cls.__name__, __base__=cls, __module__=cls.__module__, **fields)


@functools.cache
def _model_logprob_bodies() -> tuple[TypeAdapter[Any], TypeAdapter[Any]]:
    """The derender bodies with every logprob entry a model, as vLLM declares them."""
    logprobs = _twin(GenerateLogProbs, content=(list[GenerateLogProbsContent] | None, None))
    choice = _twin(GenerateTokensChoice, logprobs=(logprobs | None, None))
    stream_choice = _twin(GenerateTokensStreamChoice, logprobs=(logprobs | None, None))
    response = _twin(GenerateTokensResponse, choices=(list[choice], ...))  # type: ignore[valid-type]
    chunk = _twin(GenerateTokensStreamResponse, choices=(list[stream_choice], ...))  # type: ignore[valid-type]
    chat = _twin(DerenderChatRequest, generate_response=(response, ...))
    chat_stream = _twin(DerenderChatStreamRequest, generate_chunk=(chunk, ...))
    completion = _twin(DerenderCompletionRequest, generate_responses=(list[response], ...))  # type: ignore[valid-type]
    completion_stream = _twin(DerenderCompletionStreamRequest, generate_chunk=(chunk, ...))
    return TypeAdapter(chat | chat_stream), TypeAdapter(completion | completion_stream)


class DerenderBodyAdapter(Generic[B]):
    """Validates a derender body; a failure is reported as vLLM's model classes report it.

    `plain` / `streamed` are the union's two members. A dict whose `stream` is absent or
    exactly False can only be the plain one (the streamed one requires `stream: true`), and
    one with `stream` exactly True only the streamed one, so such a body is validated
    against that member alone: the union would try both (strict, then lax) before choosing
    the same result. Whatever that member rejects goes through the union, so errors read as
    before.
    """

    def __init__(self, body_type: Any, strict_index: int, plain: Any, streamed: Any) -> None:
        self._adapter: TypeAdapter[B] = TypeAdapter(body_type)
        self._strict_index = strict_index
        self._plain: TypeAdapter[B] = TypeAdapter(plain)
        self._streamed: TypeAdapter[B] = TypeAdapter(streamed)

    def validate_python(self, data: Any) -> B:
        if type(data) is dict:
            stream = data.get("stream", False)
            member = self._plain if stream is False else self._streamed if stream is True else None
            if member is not None:
                try:
                    return member.validate_python(data, from_attributes=True)
                except ValidationError:
                    pass  # the union's own errors, below
        try:
            return self._adapter.validate_python(data, from_attributes=True)
        except ValidationError as exc:
            _model_logprob_bodies()[self._strict_index].validate_python(data, from_attributes=True)
            raise exc from None  # only the dict schema rejected it: its own errors


CHAT_BODY: DerenderBodyAdapter[DerenderChatBody] = DerenderBodyAdapter(
    DerenderChatBody, 0, DerenderChatRequest, DerenderChatStreamRequest
)
COMPLETION_BODY: DerenderBodyAdapter[DerenderCompletionBody] = DerenderBodyAdapter(
    DerenderCompletionBody, 1, DerenderCompletionRequest, DerenderCompletionStreamRequest
)


def dump_prompt_logprobs(value: list[dict[int, Logprob] | None] | None) -> Any:
    """Prompt logprobs as vLLM serialises them (string keys, every field)."""
    if value is None:
        return None
    out: list[Any] = []
    for position in value:
        if position is None:
            out.append(None)
            continue
        out.append(
            {
                str(tid): {
                    "logprob": lp.logprob,
                    "rank": lp.rank,
                    "decoded_token": lp.decoded_token,
                }
                for tid, lp in position.items()
            }
        )
    return out


def dump_model(value: BaseModel | None) -> Any:
    return None if value is None else value.model_dump(mode="json")

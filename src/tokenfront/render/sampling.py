"""vLLM's `SamplingParams` for a request, as the JSON its render endpoint emits.

vLLM serialises SamplingParams (a msgspec struct with `omit_defaults`) and leaves out
fields that still hold the struct's own default object. In practice: float penalties /
temperature / top_p / min_p are always emitted (they are fresh objects) except top_p and
min_p reset by greedy sampling; ints and bools are left out when equal to the default;
lists (`stop`, `stop_token_ids`, `bad_words`) are always emitted.
"""

from __future__ import annotations

import json
import math
from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.identity_cache import IdentityCache
from tokenfront.protocol.requests import (
    ChatCompletionRequest,
    CompletionRequest,
    RequestValidationFailure,
    StructuredOutputsParams,
)
from tokenfront.tokenization.registry import ServedModel

_SAMPLING_EPS = 1e-5
_MIN_TEMPERATURE = 1e-2
_INT64_LO = -(2**63)
_UINT64_HI = 2**64

# Request-field fallbacks when neither the request nor generation_config sets them.
_NEUTRAL = {
    "repetition_penalty": 1.0,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
    "temperature": 1.0,
    "top_p": 1.0,
    "top_k": 0,
    "min_p": 0.0,
}

# transformers.GenerationConfig defaults: generation_config.json values equal to these
# are not "non-default" and vLLM ignores them.
_HF_GENERATION_DEFAULTS: dict[str, Any] = {
    "repetition_penalty": 1.0,
    "temperature": 1.0,
    "top_k": 50,
    "top_p": 1.0,
    "min_p": None,
    "max_new_tokens": None,
}
_GENERATION_KEYS = (
    "repetition_penalty",
    "presence_penalty",
    "frequency_penalty",
    "temperature",
    "top_k",
    "top_p",
    "min_p",
    "max_new_tokens",
    "skip_special_tokens",
)

_defaults_cache: IdentityCache[dict[str, Any]] = IdentityCache()


def sampling_defaults(model: ServedModel) -> dict[str, Any]:
    """vLLM's `get_diff_sampling_param()` for the model's generation config."""
    cached = _defaults_cache.get(model)
    if cached is not None:
        return cached
    config: dict[str, Any] = {}
    if model.options.generation_config != "vllm":
        config = {
            k: v
            for k, v in (model.generation_config or {}).items()
            if k not in _HF_GENERATION_DEFAULTS or _HF_GENERATION_DEFAULTS[k] != v
        }
    config.update(model.options.override_generation_config or {})
    result = {k: config[k] for k in _GENERATION_KEYS if config.get(k) is not None}
    if "max_new_tokens" in result:
        result["max_tokens"] = result.pop("max_new_tokens")
    return _defaults_cache.put(model, result)


def override_max_tokens(model: ServedModel) -> int | None:
    """The server-wide output cap: a generation config folder's, else
    `--override-generation-config`'s `max_new_tokens` (vLLM's rule)."""
    if model.options.generation_config not in ("auto", "vllm"):
        value = sampling_defaults(model).get("max_tokens")
    else:
        value = (model.options.override_generation_config or {}).get("max_new_tokens")
    return value if isinstance(value, int) else None


def get_max_tokens(
    max_model_len: int,
    requested: int | None,
    input_length: int,
    defaults: dict[str, Any],
    override: int | None,
    truncate_prompt_tokens: int | None,
) -> int:
    """vLLM's output budget: the smallest of the context room, the request and overrides."""
    if truncate_prompt_tokens is not None:
        limit = max_model_len if truncate_prompt_tokens == -1 else truncate_prompt_tokens
        input_length = min(input_length, limit)
    if max_model_len < input_length:
        raise APIError(
            f"Input length ({input_length}) exceeds model's maximum "
            f"context length ({max_model_len})."
        )
    fallback = requested if requested is not None else defaults.get("max_tokens")
    candidates = [max_model_len - input_length, fallback, override]
    return min(v for v in candidates if v is not None)


def _fail(
    message: str, parameter: str | None = None, value: Any = None
) -> RequestValidationFailure:
    return RequestValidationFailure(message, parameter=parameter, value=value)


def _logit_bias(raw: dict[str, float] | None) -> dict[str, float] | None:
    if raw is None:
        return None
    out: dict[int, float] = {}
    invalid: list[Any] = []
    for token, bias in raw.items():
        try:
            token_id = int(token)
        except (ValueError, TypeError):
            invalid.append(token)
            continue
        out[token_id] = min(100.0, max(-100.0, bias))
    if invalid:
        raise _fail(
            "logit_bias contains key(s) that cannot be converted to integer token IDs: "
            f"{invalid!r}",
            "logit_bias",
            invalid,
        )
    return {str(k): v for k, v in out.items()}


def structured_outputs_for(
    request: ChatCompletionRequest | CompletionRequest,
) -> StructuredOutputsParams | None:
    """`structured_outputs` with `response_format` folded in (vLLM's rule)."""
    so = request.structured_outputs
    rf = request.response_format
    if rf is None or rf.type == "text":
        return so
    if rf.type == "json_object":
        overrides: dict[str, Any] = {"json_object": True}
    elif rf.type == "json_schema":
        schema = rf.json_schema  # type: ignore[union-attr]
        overrides = {"json": schema.json_schema if schema is not None else None}
    else:
        overrides = {"structural_tag": json.dumps(rf.model_dump(by_alias=True))}
    base = so.as_dict() if so is not None else {}
    base = {k: v for k, v in base.items() if not k.startswith("_")}
    base.update(overrides)
    return StructuredOutputsParams.model_validate(base)


def _verify_extra_args(extra: Any) -> None:
    pending = [extra]
    seen: set[int] = set()
    while pending:
        value = pending.pop()
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not (_INT64_LO <= value < _UINT64_HI)
        ):
            raise _fail("extra_args integers must be between -2**63 and 2**64 - 1.", "extra_args")
        if isinstance(value, (dict, list, tuple)) and id(value) not in seen:
            seen.add(id(value))
            if isinstance(value, dict):
                pending.extend(value.keys())
                pending.extend(value.values())
            else:
                pending.extend(value)


def build_sampling_params(
    request: ChatCompletionRequest | CompletionRequest,
    max_tokens: int,
    defaults: dict[str, Any],
    *,
    max_n: int = 16384,
    always_extra_args: bool = False,
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
    """(sampling_params JSON, kv_transfer_params, ec_transfer_params); `always_extra_args`:
    an empty `extra_args` is emitted as `{}` (vLLM's Responses params pass `{}`)."""
    is_chat = isinstance(request, ChatCompletionRequest)
    values = {
        name: (
            getattr(request, name) if getattr(request, name) is not None else defaults.get(name, d)
        )
        for name, d in _NEUTRAL.items()
    }
    skip_special = request.skip_special_tokens
    if skip_special is None:
        skip_special = defaults.get("skip_special_tokens", True)

    stop_token_ids = request.stop_token_ids
    default_stop_ids = defaults.get("stop_token_ids")
    if default_stop_ids:
        stop_token_ids = (
            list(default_stop_ids)
            if not stop_token_ids
            else list(dict.fromkeys([*stop_token_ids, *default_stop_ids]))
        )

    prompt_logprobs = request.prompt_logprobs
    if is_chat:
        assert isinstance(request, ChatCompletionRequest)
        if prompt_logprobs is None and request.echo:
            prompt_logprobs = request.top_logprobs
        logprobs = (
            request.top_logprobs if request.logprobs and not request.logprob_token_ids else None
        )
        n = request.n if request.n is not None else 1
        out_max_tokens = max_tokens
    else:
        assert isinstance(request, CompletionRequest)
        if prompt_logprobs is None and request.echo:
            prompt_logprobs = request.logprobs
        logprobs = None if request.logprob_token_ids else request.logprobs
        n = request.n
        out_max_tokens = 1 if (request.echo and request.max_tokens == 0) else max_tokens

    extra: dict[str, Any] = dict(request.vllm_xargs) if request.vllm_xargs else {}
    if request.kv_transfer_params:
        extra["kv_transfer_params"] = request.kv_transfer_params
    if request.ec_transfer_params:
        extra["ec_transfer_params"] = request.ec_transfer_params

    structured = structured_outputs_for(request)
    logit_bias = _logit_bias(request.logit_bias)

    temperature = values["temperature"]
    top_p = values["top_p"]
    top_k = values["top_k"]
    min_p = values["min_p"]
    presence = values["presence_penalty"]
    frequency = values["frequency_penalty"]
    repetition = values["repetition_penalty"]

    # --- SamplingParams.__post_init__ -----------------------------------------
    if 0 < temperature < _MIN_TEMPERATURE:
        temperature = max(temperature, _MIN_TEMPERATURE)
    seed = request.seed
    if seed == -1:
        seed = None
    stop = request.stop
    stop_list: list[str] = [] if stop is None else ([stop] if isinstance(stop, str) else list(stop))
    stop_ids = [] if stop_token_ids is None else list(dict.fromkeys(stop_token_ids))
    bad_words = list(dict.fromkeys(request.bad_words or []))
    if logprobs is True:
        logprobs = 1
    buffer_len = 0
    if stop_list and not request.include_stop_str_in_output:
        buffer_len = max(len(s) for s in stop_list) - 1

    # --- _verify_args -----------------------------------------------------------
    if n < 1:
        raise _fail(f"n must be at least 1, got {n}.")
    if n > max_n:
        raise _fail(
            f"n must be at most {max_n}, got {n}. To increase this limit, set the "
            "VLLM_MAX_N_SEQUENCES environment variable."
        )
    if extra:
        _verify_extra_args(extra)
    if not -2.0 <= presence <= 2.0:
        raise _fail(f"presence_penalty must be in [-2, 2], got {presence}.")
    if not -2.0 <= frequency <= 2.0:
        raise _fail(f"frequency_penalty must be in [-2, 2], got {frequency}.")
    if not math.isfinite(repetition):
        raise _fail(f"repetition_penalty must be a finite number, got {repetition}.")
    if repetition <= 0.0:
        raise _fail(f"repetition_penalty must be greater than zero, got {repetition}.")
    if not math.isfinite(temperature):
        raise _fail(
            f"temperature must be a finite number, got {temperature}.", "temperature", temperature
        )
    if temperature < 0.0:
        raise _fail(
            f"temperature must be non-negative, got {temperature}.", "temperature", temperature
        )
    if temperature > 2.0:
        raise _fail(
            f"temperature must be in [0, 2], got {temperature}.", "temperature", temperature
        )
    if not 0.0 < top_p <= 1.0:
        raise _fail(f"top_p must be in (0, 1], got {top_p}.", "top_p", top_p)
    if top_k < -1:
        raise _fail(f"top_k must be 0 (disable), or at least 1, got {top_k}.")
    if not 0.0 <= min_p <= 1.0:
        raise _fail(f"min_p must be in [0, 1], got {min_p}.")
    if out_max_tokens is not None and out_max_tokens < 1:
        raise _fail(
            f"max_tokens must be at least 1, got {out_max_tokens}.", "max_tokens", out_max_tokens
        )
    if request.min_tokens < 0:
        raise _fail(f"min_tokens must be greater than or equal to 0, got {request.min_tokens}.")
    if out_max_tokens is not None and request.min_tokens > out_max_tokens:
        raise _fail(
            f"min_tokens must be less than or equal to max_tokens={out_max_tokens}, "
            f"got {request.min_tokens}."
        )
    if logprobs is not None and logprobs != -1 and logprobs < 0:
        raise _fail(f"logprobs must be non-negative or -1, got {logprobs}.", "logprobs", logprobs)
    if prompt_logprobs is not None and prompt_logprobs != -1 and prompt_logprobs < 0:
        raise _fail(
            f"prompt_logprobs must be non-negative or -1, got {prompt_logprobs}.",
            "prompt_logprobs",
            prompt_logprobs,
        )
    if any(not s for s in stop_list):
        raise _fail("stop cannot contain an empty string.")
    if any(not w for w in bad_words):
        raise _fail(f"bad_words cannot contain an empty string. Got bad_words={bad_words}")

    greedy = temperature < _SAMPLING_EPS
    if greedy:
        if n > 1:
            raise _fail(f"n must be 1 when using greedy sampling, got {n}.")

    # --- serialisation (fields left at the struct default are omitted) ---------
    sp: dict[str, Any] = {}
    if n != 1:
        sp["n"] = n
    sp["presence_penalty"] = presence
    sp["frequency_penalty"] = frequency
    sp["repetition_penalty"] = repetition
    sp["temperature"] = temperature
    if request.watermarking is not None:
        sp["watermarking"] = request.watermarking
    if not greedy:
        sp["top_p"] = top_p
        if top_k != 0:
            sp["top_k"] = top_k
        sp["min_p"] = min_p
    if seed is not None:
        sp["seed"] = seed
    sp["stop"] = stop_list
    sp["stop_token_ids"] = stop_ids
    if request.ignore_eos:
        sp["ignore_eos"] = True
    if out_max_tokens != 16:
        sp["max_tokens"] = out_max_tokens
    if request.min_tokens != 0:
        sp["min_tokens"] = request.min_tokens
    if logprobs is not None:
        sp["logprobs"] = logprobs
    if prompt_logprobs is not None:
        sp["prompt_logprobs"] = prompt_logprobs
    if request.logprob_token_ids:
        sp["logprob_token_ids"] = list(request.logprob_token_ids)
    if not skip_special:
        sp["skip_special_tokens"] = False
    if not request.spaces_between_special_tokens:
        sp["spaces_between_special_tokens"] = False
    if request.include_stop_str_in_output:
        sp["include_stop_str_in_output"] = True
    sp["output_kind"] = 1 if request.stream else 2
    if request.stream_interval is not None:
        sp["stream_interval"] = request.stream_interval
    sp["skip_clone"] = True
    if buffer_len != 0:
        sp["output_text_buffer_length"] = buffer_len
    if structured is not None:
        sp["structured_outputs"] = structured.as_dict()
    if logit_bias is not None:
        sp["logit_bias"] = logit_bias
    if request.allowed_token_ids is not None:
        sp["allowed_token_ids"] = list(request.allowed_token_ids)
    untouched = not extra  # vLLM's hoisting leaves an empty `extra_args` alone
    kv = extra.pop("kv_transfer_params", None)
    ec = extra.pop("ec_transfer_params", None)
    if extra or (always_extra_args and untouched):
        sp["extra_args"] = extra
    sp["bad_words"] = bad_words
    sp["skip_reading_prefix_cache"] = prompt_logprobs is not None
    if request.thinking_token_budget is not None:
        sp["thinking_token_budget"] = request.thinking_token_budget
    if request.repetition_detection is not None:
        sp["repetition_detection"] = request.repetition_detection.model_dump()
    if request.routed_experts_prompt_start != 0:
        sp["routed_experts_prompt_start"] = request.routed_experts_prompt_start
    return sp, kv, ec

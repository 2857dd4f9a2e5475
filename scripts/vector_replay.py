"""Replay vLLM's parser-test vectors through real servers (the served derender endpoints).

    vector_replay.py [--vllm | --server-cmd TEMPLATE] [--servers config|vector|hybrid]
                     [--config NAME ...] [--parser NAME ...] [--chunkings 1 mix14 mix15 all]
                     [--prompt render|none] [--one-shot-streamed] [--port-lo 21300 --port-hi 21399]
                     [--report out.json] [--against other-report.json] [--show N] [--jobs N]

It starts servers (tokenfront by default, `--vllm` for vLLM 0.33.0's render server in
/work/vllm-venv, or any `--server-cmd` template with the placeholders of
../shared/parity/replay.py) on the configs of ../shared/parity/configs.json:
`--servers config` runs each config as it is with the vectors (tests/parsers/vllm_vectors) of the
parsers it serves; `--servers vector` runs each parser name on the model (and other args) of the
first config serving it (a vector's `test_model`: that tests/models dir instead), with exactly
the parsers its vectors name (a tool vector's `reasoning_parser` too, a reasoning vector alone);
`--servers hybrid` is `vector` except that a reasoning vector keeps its config's tool parser.
Each vector is replayed as the shared corpus's derender cases:

* the model output is tokenized by the server's own `/tokenize` (no special-token additions);
  the prompt is the server's own render of `{"messages": [user "Hi"], tools, tool_choice,
  chat_template_kwargs}` (a vector's `prompt_tail` is tokenized instead, as the in-process runner);
* tools: the vector's own; `null` declares one tool per called name (as
  `vllm_vectors_run.request_context`); `[]` sends none. Reasoning vectors send no tools;
* one-shot: one `/v1/chat/completions/derender` with `generate_response` (finish `stop`);
* streamed: one POST per chunk threading `stream_state`, chunked one token per chunk (`1`),
  random 1-4 (`mix14`), random 1/5 (`mix15`) or whole output at once (`all`)
  (`vllm_vectors_run.chunk_ends`, seeded by the vector's source), last chunk finish `stop`.

`--one-shot-streamed` also streams each one-shot vector's output (mode `streamed_one_shot`, the
same chunkings), scored against the one-shot assertion: what the hidden corpus does with tests
that only call the one-shot parser.

Each run is scored with `vllm_vectors_loader.check_result` plus the served checks of `no_error`,
`unique_ids`, `stream_matches_nonstream` and `split_invariant` (vs the one-token stream).
Vectors asserting only token-id facts (`is_reasoning_end_only`) or a raised exception are skipped.

`--against REPORT` compares with another run's `--report` (e.g. vLLM's): counts of pass/fail
pairs and the runs that fail here but pass there.

Match classes (column `match`): `exact` = the server has exactly the parsers the vector names;
`extra` = the config adds a parser the vector does not name (e.g. a kimi_k2 tool vector under
`--reasoning-parser kimi_k2` too; it runs through both, as a served request must); `missing` =
the vector's test drove a reasoning parser the config lacks (it runs without it). Totals are
printed for all runs and per class. The last line is `vectors: X/Y (Z%)`.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(SHARED / "parity"))
sys.path.insert(0, str(REPO / "tests" / "parsers"))

from paritylib import (  # noqa: E402
    Server,
    format_command,
    load_configs,
    pick_port,
    run_case,
    stream_text,
)
from vllm_vectors_loader import check_result, load_vectors  # noqa: E402
from vllm_vectors_run import _tokenizer, chunk_ends, delta_ends, modes, request_context  # noqa: E402

TOKENFRONT_CMD = (
    f"{REPO}/.venv/bin/tokenfront serve --model {{model}} --served-model-name {{name}} "
    "--host 127.0.0.1 --port {port} {args}"
)
VLLM_CMD = (
    "VLLM_TARGET_DEVICE=cpu /work/vllm-venv/bin/vllm launch render --model {model} "
    "--served-model-name {name} --host 127.0.0.1 --port {port} {args}"
)
DERENDER = "/v1/chat/completions/derender"
CHUNKINGS = ("1", "mix14", "mix15", "all")
SKIP_ASSERTED = {"raises"}
# `--one-shot-streamed`: a one-shot vector's output also streamed and scored against the same
# assertion (mode label below), except assertions a stream cannot show.
STREAMED_ONE_SHOT = "streamed_one_shot"
NOT_STREAMABLE = {"is_reasoning_end", "is_reasoning_end_only"}

Calls = list[tuple[str | None, str | None]]


@dataclass
class Outcome:
    """What one served run produced (joined over the stream for streamed runs)."""

    content: str | None = None
    reasoning: str | None = None
    calls: Calls = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class Run:
    config: str
    parser: str
    kind: str
    source: str
    match: str
    mode: str
    chunking: str
    problems: list[str]
    outcome: Outcome


# ---------------------------------------------------------------------------------------------
# Which vectors a config serves
# ---------------------------------------------------------------------------------------------
def _arg(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args else None


def config_parsers(cfg: dict[str, Any]) -> tuple[str | None, str | None]:
    """(tool parser, reasoning parser) a config serves."""
    args = list(cfg.get("args", []))
    return _arg(args, "--tool-call-parser"), _arg(args, "--reasoning-parser")


def match_class(vec: dict[str, Any], tool: str | None, reasoning: str | None) -> str | None:
    """How `vec` fits a config serving `tool` / `reasoning` (None: it does not run there)."""
    if vec["kind"] == "reasoning":
        if vec["parser"] != reasoning:
            return None
        return "extra" if tool else "exact"
    if vec["parser"] != tool:
        return None
    wanted = vec.get("reasoning_parser")
    if wanted == reasoning:
        return "exact"
    return "missing" if wanted else "extra"


def runnable(vec: dict[str, Any]) -> bool:
    if vec.get("is_reasoning_end_only") or "single_call" in vec:
        return False
    return not SKIP_ASSERTED & set(vec["asserted"])


# ---------------------------------------------------------------------------------------------
# Building the requests
# ---------------------------------------------------------------------------------------------
def request_tools(vec: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Tools of the chat request (None: the field is left out)."""
    if vec["kind"] == "reasoning":
        return vec.get("tools") or None
    if vec.get("tools") is None:
        declared = request_context(dict(vec, prompt_tail=None)).tools or []
        # a description too, so templates that print it (DeepSeek's) render the prompt
        return [_described(tool) for tool in declared] or None
    return vec["tools"] or None


def _described(tool: dict[str, Any]) -> dict[str, Any]:
    function = {"description": "", **tool["function"]}
    return {**tool, "function": function}


def chat_request(vec: dict[str, Any], model: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": "Hi"}]}
    tools = request_tools(vec)
    if tools:
        body["tools"] = tools
    body.update(vec.get("request") or {})
    return body


def tokenize(client: httpx.Client, url: str, model: str, text: str) -> list[int]:
    body = {"model": model, "prompt": text, "add_special_tokens": False}
    r = client.post(url + "/tokenize", json=body)
    r.raise_for_status()
    return list(r.json()["tokens"])


def prompt_ids(
    client: httpx.Client, url: str, vec: dict[str, Any], chat: dict[str, Any], how: str
) -> list[int]:
    """The request's prompt: the server's render (`how == "render"`) or none (`"none"`)."""
    if vec.get("prompt_tail"):
        return tokenize(client, url, chat["model"], vec["prompt_tail"])
    if how == "none":
        return []
    r = client.post(url + "/v1/chat/completions/render", json=chat)
    if r.status_code != 200:
        return []
    return list(r.json().get("token_ids") or [])


def one_shot_case(chat: dict[str, Any], prompt: list[int], ids: list[int]) -> dict[str, Any]:
    choice = {"index": 0, "token_ids": ids, "finish_reason": "stop", "stop_reason": None}
    request = {
        "model": chat["model"],
        "chat_request": chat,
        "prompt_token_ids": prompt,
        "prompt_tokens": len(prompt),
        "generate_response": {
            "request_id": "gen-vector",
            "choices": [choice],
            "prompt_token_ids": prompt,
        },
    }
    return {"endpoint": DERENDER, "method": "POST", "request": request}


def stream_case(
    chat: dict[str, Any], prompt: list[int], ids: list[int], ends: list[int]
) -> dict[str, Any]:
    choices: list[dict[str, Any]] = []
    start = 0
    for end in ends or [0]:
        choices.append({"index": 0, "token_ids": ids[start:end]})
        start = end
    choices[-1]["finish_reason"] = "stop"
    chunks = [{"request_id": "gen-stream", "choices": [choice]} for choice in choices]
    base = {
        "model": chat["model"],
        "chat_request": chat,
        "prompt_token_ids": prompt,
        "prompt_tokens": len(prompt),
    }
    return {
        "endpoint": DERENDER,
        "method": "POST",
        "request": {"kind": "stream", "base": base, "chunks": chunks},
    }


# ---------------------------------------------------------------------------------------------
# Reading the answers
# ---------------------------------------------------------------------------------------------
def _error_text(status: Any, body: Any) -> str:
    msg = body.get("error", {}).get("message") if isinstance(body, dict) else body
    return f"status {status}: {str(msg)[:160]}"


def one_shot_outcome(result: dict[str, Any]) -> Outcome:
    if result["status"] != 200:
        return Outcome(error=_error_text(result["status"], result["response"]))
    message = result["response"]["choices"][0]["message"]
    calls = message.get("tool_calls") or []
    return Outcome(
        content=message.get("content"),
        reasoning=message.get("reasoning"),
        calls=[(c["function"]["name"], c["function"]["arguments"]) for c in calls],
        ids=[c.get("id") for c in calls],
    )


def stream_outcome(result: dict[str, Any]) -> Outcome:
    statuses, responses = result["status"], result["response"]
    if not isinstance(statuses, list):
        return Outcome(error=_error_text(statuses, responses))
    bad = [(s, r) for s, r in zip(statuses, responses, strict=False) if s != 200]
    if bad:
        return Outcome(error=f"call {statuses.index(bad[0][0])} " + _error_text(*bad[0]))
    joined = stream_text(responses).get("0", {"content": "", "reasoning": "", "tool_calls": {}})
    calls = joined["tool_calls"]
    return Outcome(
        content=joined["content"] or None,
        reasoning=joined["reasoning"] or None,
        calls=[(calls[k]["name"] or None, calls[k]["arguments"]) for k in sorted(calls, key=int)],
        ids=_stream_ids(responses),
    )


def _stream_ids(responses: list[Any]) -> list[str]:
    ids: dict[int, str] = {}
    for r in responses:
        for ch in (r.get("chunk") or {}).get("choices") or []:
            for tc in (ch.get("delta") or {}).get("tool_calls") or []:
                if tc.get("id"):
                    ids.setdefault(tc.get("index", 0), tc["id"])
    return [ids[k] for k in sorted(ids)]


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------
def _parsed_calls(calls: Calls) -> list[tuple[str | None, Any]]:
    out = []
    for name, args in calls:
        try:
            out.append((name, json.loads(args or "")))
        except ValueError:
            out.append((name, args))
    return out


def score(vec: dict[str, Any], mode: str, got: Outcome, ref: dict[str, Outcome]) -> list[str]:
    """Problems of one run; `ref` holds the vector's one-shot and one-token-stream outcomes."""
    if got.error:
        return [got.error]
    checked = dict(vec, mode="streaming" if mode == STREAMED_ONE_SHOT else mode)
    problems = check_result(
        checked,
        content=got.content,
        reasoning=got.reasoning,
        tool_calls=got.calls,
        tools_called=bool(got.calls),
    )
    asserted = set(vec["asserted"])
    if "unique_ids" in asserted and len(set(got.ids)) != len(got.ids):
        problems.append(f"tool-call ids not unique: {got.ids}")
    if "stream_matches_nonstream" in asserted and mode == "streaming" and "one_shot" in ref:
        if _parsed_calls(got.calls) != _parsed_calls(ref["one_shot"].calls):
            problems.append(f"streamed calls {got.calls} != one-shot {ref['one_shot'].calls}")
    if "split_invariant" in asserted and mode == "streaming" and "1" in ref:
        one = ref["1"]
        if (got.content or None, got.calls) != (one.content or None, one.calls):
            problems.append("differs from the one-token stream")
    return problems


# ---------------------------------------------------------------------------------------------
# Running one vector / one config
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """One running server and how vectors are replayed against it."""

    client: httpx.Client
    url: str
    config: str
    model: str
    chunkings: tuple[str, ...]
    prompt: str
    model_dir: str
    one_shot_streamed: bool = False


@functools.cache
def local_tokenizer(model_dir: str) -> Any:
    """The served model's tokenizer, to find the token ends of a vector's own text deltas."""
    return _tokenizer(model_dir)


def run_vector(target: Target, vec: dict[str, Any], match: str) -> list[Run]:
    client, url = target.client, target.url
    chat = chat_request(vec, target.model)
    try:
        ids = tokenize(client, url, target.model, vec["model_output"])
        prompt = prompt_ids(client, url, vec, chat, target.prompt)
    except (httpx.HTTPError, KeyError, ValueError) as e:
        err = f"tokenize/render failed: {e!r}"[:200]
        return [_run(target, vec, match, m, "-", Outcome(error=err), {}) for m in modes(vec)]
    outcomes: dict[str, Outcome] = {}
    wanted = modes(vec)
    if "non_streaming" in wanted or "stream_matches_nonstream" in vec["asserted"]:
        case = one_shot_case(chat, prompt, ids)
        outcomes["one_shot"] = one_shot_outcome(run_case(client, url, case))
    if (
        target.one_shot_streamed
        and wanted == ["non_streaming"]
        and not NOT_STREAMABLE & set(vec["asserted"])
    ):
        wanted.append(STREAMED_ONE_SHOT)
    if "streaming" in wanted or STREAMED_ONE_SHOT in wanted:
        own_ends = None
        if vec.get("test_deltas_only"):  # its assertion holds for its test's own deltas only
            own_ends = delta_ends(vec, local_tokenizer(target.model_dir), ids)
        for chunking in dict.fromkeys(("1", *target.chunkings)):
            ends = own_ends or chunk_ends(len(ids), chunking, seed=vec["source"])
            case = stream_case(chat, prompt, ids, ends)
            outcomes[chunking] = stream_outcome(run_case(client, url, case))
    runs = []
    for mode in wanted:
        keys = ["one_shot"] if mode == "non_streaming" else list(target.chunkings)
        for key in keys:
            label = "-" if key == "one_shot" else key
            runs.append(_run(target, vec, match, mode, label, outcomes[key], outcomes))
    return runs


def _run(
    target: Target,
    vec: dict[str, Any],
    match: str,
    mode: str,
    chunking: str,
    got: Outcome,
    outcomes: dict[str, Outcome],
) -> Run:
    problems = score(vec, mode, got, outcomes)
    return Run(
        target.config,
        vec["parser"],
        vec["kind"],
        vec["source"],
        match,
        mode,
        chunking,
        problems,
        got,
    )


Todo = list[tuple[dict[str, Any], str]]


@dataclass
class Plan:
    """One server to start (a config, or a config's model with a vector's own parsers) and the
    vectors to replay on it with their match class."""

    name: str
    cfg: dict[str, Any]
    todo: Todo = field(default_factory=list)


def _vectors_of(names: Iterable[str | None], parsers: set[str] | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in dict.fromkeys(n for n in names if n):
        if parsers and name not in parsers:
            continue
        try:
            out += [vec for vec in load_vectors(name, group=None) if runnable(vec)]
        except FileNotFoundError:
            continue
    return out


def config_plans(configs: dict[str, dict[str, Any]], parsers: set[str] | None) -> list[Plan]:
    """`--servers config`: each config as it is, with the vectors of its parsers."""
    plans = []
    for name, cfg in configs.items():
        tool, reasoning = config_parsers(cfg)
        plan = Plan(name, cfg)
        for vec in _vectors_of((tool, reasoning), parsers):
            match = match_class(vec, tool, reasoning)
            if match:
                plan.todo.append((vec, match))
        plans.append(plan)
    return plans


def vector_plans(
    configs: dict[str, dict[str, Any]], parsers: set[str] | None, hybrid: bool = False
) -> list[Plan]:
    """`--servers vector`: each parser name on the model (and other args) of the first config
    that serves it, with exactly the parsers its vectors name (a tool vector's
    `reasoning_parser` too; a reasoning vector alone). `hybrid`: a reasoning vector keeps that
    config's tool parser (no tools are declared, so only request-independent effects show)."""
    home: dict[str, str] = {}
    for name, cfg in configs.items():
        for parser in config_parsers(cfg):
            if parser:
                home.setdefault(parser, name)
    plans: dict[tuple[str, str | None, str | None, str | None], Plan] = {}
    for vec in _vectors_of(home, parsers):
        base = home[vec["parser"]]
        tool = vec["parser"] if vec["kind"] == "tool" else None
        reasoning = vec["parser"] if tool is None else vec.get("reasoning_parser")
        if hybrid and tool is None:
            tool = config_parsers(configs[base])[0]
        own_model = vec.get("test_model")
        key = (base, tool, reasoning, own_model)
        if key not in plans:
            name = f"{base}:{tool or '-'}+{reasoning or '-'}"
            cfg = _with_parsers(configs[base], tool, reasoning)
            if own_model:  # the tests/models dir holding the vocabulary the vLLM test used
                name += f"@{own_model}"
                cfg = {**cfg, "model": str(REPO / "tests" / "models" / own_model)}
            plans[key] = Plan(name, cfg)
        plans[key].todo.append((vec, "exact"))
    return list(plans.values())


def _with_parsers(cfg: dict[str, Any], tool: str | None, reasoning: str | None) -> dict[str, Any]:
    args, rest = list(cfg.get("args", [])), []
    while args:
        arg = args.pop(0)
        if arg in ("--tool-call-parser", "--reasoning-parser"):
            args.pop(0)
        elif arg != "--enable-auto-tool-choice":
            rest.append(arg)
    if tool:
        rest += ["--tool-call-parser", tool, "--enable-auto-tool-choice"]
    if reasoning:
        rest += ["--reasoning-parser", reasoning]
    return {**cfg, "args": rest}


def run_plan(plan: Plan, a: argparse.Namespace, log: Callable[[str], None]) -> list[Run]:
    name, cfg = plan.name, plan.cfg
    if not plan.todo:
        return []
    model = cfg.get("served_model_name", Path(cfg["model"]).name)
    port = pick_port(a.port_lo, a.port_hi)
    cmd = format_command(
        a.server_cmd,
        model=str(Path(a.models_root) / cfg["model"]),
        port=port,
        name=model,
        args=list(cfg.get("args", [])),
        config=name,
    )
    srv = Server(cmd, port, Path(a.logs) / f"server-{name}.log")
    try:
        if not srv.wait_healthy(a.start_timeout):
            log(f"[{name}] server did not start ({a.logs})")
            return []
        log(f"[{name}] {len(plan.todo)} vectors on {srv.url}")
        limits = httpx.Limits(max_connections=a.jobs)
        with (
            httpx.Client(timeout=a.timeout, limits=limits) as client,
            ThreadPoolExecutor(a.jobs) as pool,
        ):
            model_dir = str(Path(a.models_root) / cfg["model"])
            if any(vec.get("test_deltas_only") for vec, _ in plan.todo):
                local_tokenizer(model_dir)  # loaded once, before the worker threads need it
            target = Target(
                client,
                srv.url,
                name,
                model,
                tuple(a.chunkings),
                a.prompt,
                model_dir,
                a.one_shot_streamed,
            )
            batches = pool.map(lambda item: run_vector(target, *item), plan.todo)
            return [run for batch in batches for run in batch]
    finally:
        srv.stop()


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------
def print_table(title: str, runs: list[Run], key: Callable[[Run], str]) -> None:
    table: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for r in runs:
        row = table[key(r)]
        row[0] += not r.problems
        row[1] += 1
    print(f"\n{title:<44} {'passed':>7} {'total':>6} {'pct':>7}")
    for k in sorted(table):
        p, n = table[k]
        print(f"{k:<44} {p:>7} {n:>6} {100.0 * p / max(n, 1):>6.1f}%")


def print_failures(runs: list[Run], show: int) -> None:
    shown: dict[str, int] = collections.Counter()
    print("\nfailures:")
    for r in runs:
        if not r.problems or shown[r.config] >= show:
            continue
        shown[r.config] += 1
        print(
            f"  [{r.config}/{r.match}] {r.source} {r.mode}/{r.chunking}: {'; '.join(r.problems)[:300]}"
        )


def _pct(runs: list[Run]) -> str:
    ok = sum(not r.problems for r in runs)
    return f"{ok}/{len(runs)} ({100.0 * ok / max(len(runs), 1):.1f}%)"


def report(runs: list[Run], show: int) -> None:
    print_table("config / mode / chunking", runs, lambda r: f"{r.config} {r.mode} {r.chunking}")
    print_table("parser (kind)", runs, lambda r: f"{r.parser} ({r.kind})")
    print_table("mode / chunking", runs, lambda r: f"{r.mode} {r.chunking}")
    print_table("match class", runs, lambda r: r.match)
    print_failures(runs, show)
    for label in ("exact", "extra", "missing"):
        print(f"{label + ' only':<14} {_pct([r for r in runs if r.match == label])}")
    print(f"{'exact+extra':<14} {_pct([r for r in runs if r.match != 'missing'])}")
    print(f"vectors: {_pct(runs)}")


def _row(r: Run) -> dict[str, Any]:
    return {
        "config": r.config,
        "parser": r.parser,
        "kind": r.kind,
        "source": r.source,
        "match": r.match,
        "mode": r.mode,
        "chunking": r.chunking,
        "pass": not r.problems,
        "problems": r.problems,
        "outcome": r.outcome.__dict__,
    }


def write_report(path: str, runs: list[Run]) -> None:
    rows = [_row(r) for r in runs]
    Path(path).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


def _key(row: dict[str, Any]) -> tuple[str, ...]:
    return (row["config"], row["kind"], row["source"], row["mode"], row["chunking"])


def _seen(outcome: dict[str, Any]) -> tuple[Any, ...]:
    calls = [tuple(c) for c in outcome.get("calls") or []]
    return (outcome.get("content"), outcome.get("reasoning"), calls, bool(outcome.get("error")))


def _verdict(here_ok: bool, there_ok: bool, same: bool) -> str:
    label = f"here {'pass' if here_ok else 'fail'} / there {'pass' if there_ok else 'fail'}"
    if here_ok and there_ok:
        return label
    return label + (" / same output" if same else " / different output")


def compare(runs: list[Run], path: str) -> None:
    """Runs of this replay against another replay's report (e.g. vLLM's): how each failure
    here fares there, and the runs that pass there but fail here, listed."""
    other = {_key(row): row for row in json.loads(Path(path).read_text(encoding="utf-8"))}
    counts: collections.Counter[str] = collections.Counter()
    only_here = []
    for r in runs:
        there = other.get(_key(_row(r)))
        if there is None:
            counts["not run there"] += 1
            continue
        here_ok, there_ok = not r.problems, bool(there["pass"])
        counts[
            _verdict(here_ok, there_ok, _seen(_row(r)["outcome"]) == _seen(there["outcome"]))
        ] += 1
        if there_ok and not here_ok:
            only_here.append(r)
    print(f"\ncompared with {path}:")
    for label, n in sorted(counts.items()):
        print(f"  {label:<48} {n:>6}")
    print("\nfailing here, passing there:")
    for r in only_here:
        print(
            f"  [{r.config}/{r.match}] {r.source} {r.mode}/{r.chunking}: {'; '.join(r.problems)[:300]}"
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--server-cmd", default=TOKENFRONT_CMD, help="server command template")
    ap.add_argument("--vllm", action="store_true", help="vLLM 0.33.0's render server")
    ap.add_argument("--configs-file", default=str(SHARED / "parity" / "configs.json"))
    ap.add_argument("--models-root", default=str(SHARED))
    ap.add_argument("--config", nargs="*", default=None, help="only these configs")
    ap.add_argument("--parser", nargs="*", default=None, help="only these parser names")
    ap.add_argument("--chunkings", nargs="*", default=list(CHUNKINGS))
    ap.add_argument(
        "--servers",
        choices=("config", "vector", "hybrid"),
        default="config",
        help="config: each config as it is; vector: a config's model with a vector's parsers; "
        "hybrid: vector, but reasoning vectors keep the config's tool parser",
    )
    ap.add_argument("--kind", choices=("tool", "reasoning"), default=None, help="only these")
    ap.add_argument(
        "--one-shot-streamed",
        action="store_true",
        help=f"also stream each one-shot vector's output, scored against the same assertion "
        f"(mode {STREAMED_ONE_SHOT!r})",
    )
    ap.add_argument(
        "--prompt",
        choices=("render", "none"),
        default="render",
        help="prompt_token_ids: the server's render of the chat request, or none",
    )
    ap.add_argument("--port-lo", type=int, default=21300)
    ap.add_argument("--port-hi", type=int, default=21399)
    ap.add_argument("--logs", default="/tmp/vector-replay-logs")
    ap.add_argument("--report", default=None, help="per-run JSON results")
    ap.add_argument("--against", default=None, help="a --report of another server to compare")
    ap.add_argument("--show", type=int, default=1000, help="failures printed per config")
    ap.add_argument("--jobs", type=int, default=4, help="vectors replayed at once")
    ap.add_argument("--start-timeout", type=float, default=300.0)
    ap.add_argument("--timeout", type=float, default=120.0)
    a = ap.parse_args(argv)
    if a.vllm:
        a.server_cmd = VLLM_CMD
    return a


def _repo_model(cfg: dict[str, Any]) -> dict[str, Any]:
    """A `repo:tests/models/X` model (tests/golden/configs-*.json) as an absolute path."""
    model = str(cfg["model"])
    if not model.startswith("repo:"):
        return cfg
    return {**cfg, "model": str(REPO / model.removeprefix("repo:"))}


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    configs = load_configs(a.configs_file)
    configs = {n: _repo_model(c) for n, c in configs.items() if not a.config or n in a.config}
    parsers = set(a.parser or ()) or None
    if a.servers == "config":
        plans = config_plans(configs, parsers)
    else:
        plans = vector_plans(configs, parsers, hybrid=a.servers == "hybrid")
    t0 = time.time()
    runs: list[Run] = []
    for plan in plans:
        plan.todo = [(vec, m) for vec, m in plan.todo if not a.kind or vec["kind"] == a.kind]
        runs += run_plan(plan, a, lambda s: print(s, flush=True))
    print(f"elapsed {time.time() - t0:.0f}s")
    if a.report:
        write_report(a.report, runs)
    if a.against:
        compare(runs, a.against)
    report(runs, a.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""vLLM 0.33.0 flags that configure its engine, not what a render server answers.

`tokenfront serve` accepts them so a `vllm serve` / `vllm launch render` command line works
unchanged, and ignores them with a warning. One entry per line: the flag's spellings (long
name, short alias, the `--no-` / `--disable-` form), ` =` when it takes a value, ` +` when it
takes one or more. Taken from
`vllm launch render --help=all`: whole groups that only reach the engine (parallelism, KV
cache, scheduling, compilation, kernels, loading, offloading, LoRA execution, engine metrics)
and the engine-side entries of the model, engine-config and API-server groups. Flags that do
change a render server's answers (tokenizer, template, parsers, media, LoRA names, server
sockets and TLS) are not here: tokenfront implements them or refuses them.
"""

from __future__ import annotations

_TABLE = """
# process and engine-core options
--aggregate-engine-logging
--api-server-count -asc =
--disable-log-stats
--enable-log-requests --disable-log-requests
--fail-on-environ-validation --no-fail-on-environ-validation
--gdn-prefill-backend =
--headless
--kda-decode-backend =
--kda-prefill-backend =
# model execution
--allow-deprecated-quantization --no-allow-deprecated-quantization
--code-revision =
--config-format =
--disable-cascade-attn --enable-cascade-attn
--dtype =
--enable-cumem-allocator --disable-cumem-allocator
--enable-nccl-comm-suspend --disable-nccl-comm-suspend
--enable-return-routed-experts --disable-return-routed-experts
--enable-sleep-mode --disable-sleep-mode
--enable-trace-replay --disable-trace-replay
--enforce-eager --no-enforce-eager
--logprobs-mode =
--logits-processors +
--model-class-overrides =
--model-impl =
--quantization -q =
--quantization-config =
--renderer-num-workers =
--seed =
--sleep-mode-backend =
--sleep-mode-offload-cudagraph --no-sleep-mode-offload-cudagraph
--sleep-preserve-parameter-names +
--use-fp64-gumbel --no-use-fp64-gumbel
# weight loading
--download-dir =
--ignore-patterns +
--load-format =
--model-loader-extra-config =
--pt-load-map-location =
--safetensors-load-strategy =
--safetensors-prefetch-block-size =
--safetensors-prefetch-num-threads =
--use-tqdm-on-load --no-use-tqdm-on-load
# attention kernels
--attention-backend =
# Mamba state
--enable-mamba-cache-stochastic-rounding --disable-mamba-cache-stochastic-rounding
--mamba-backend =
--mamba-cache-philox-rounds =
--mamba-ssu-algorithm =
# parallelism and distribution
--all2all-backend =
--cp-kv-cache-interleave-size =
--cpu-distributed-timeout-seconds =
--data-parallel-address -dpa =
--data-parallel-backend -dpb =
--data-parallel-external-lb --no-data-parallel-external-lb -dpe
--data-parallel-hybrid-lb --no-data-parallel-hybrid-lb -dph
--data-parallel-multi-port-external-lb -dpm
--data-parallel-rank -dpn =
--data-parallel-rpc-port -dpp =
--data-parallel-size -dp =
--data-parallel-size-local -dpl =
--data-parallel-start-rank -dpr =
--dbo-decode-token-threshold =
--dbo-prefill-token-threshold =
--dcp-comm-backend =
--dcp-kv-cache-interleave-size =
--dcp-q-replicate --no-dcp-q-replicate
--decode-context-parallel-size -dcp =
--device-ids =
--disable-custom-all-reduce --enable-custom-all-reduce
--disable-nccl-for-dp-synchronization --enable-nccl-for-dp-synchronization
--distributed-executor-backend =
--distributed-timeout-seconds =
--dp-sync-interval =
--elastic-ep-max-dp-size =
--enable-batch-sharded-sampling --disable-batch-sharded-sampling
--enable-dbo --disable-dbo
--enable-elastic-ep --disable-elastic-ep
--enable-ep-weight-filter --disable-ep-weight-filter
--enable-eplb --disable-eplb
--enable-expert-parallel -ep --disable-expert-parallel
--enable-fault-tolerance --disable-fault-tolerance
--enable-hc-sp --disable-hc-sp
--enable-shm-tensor-arena --disable-shm-tensor-arena
--eplb-config =
--expert-placement-strategy =
--fault-tolerance-config =
--master-addr =
--master-port =
--max-parallel-loading-workers =
--nnodes -n =
--node-rank -r =
--numa-bind --no-numa-bind
--numa-bind-cpus +
--numa-bind-nodes +
--pipeline-parallel-size -pp =
--prefill-context-parallel-size -pcp =
--ray-workers-use-nsight --no-ray-workers-use-nsight
--tensor-parallel-size -tp =
--ubatch-size =
--worker-cls =
--worker-extension-cls =
# KV cache
--block-size =
--enable-mamba-shared-prefix-checkpoint --disable-mamba-shared-prefix-checkpoint
--enable-prefix-caching --disable-prefix-caching
--gpu-memory-utilization --device-memory-utilization =
--kv-cache-dtype =
--kv-cache-dtype-skip-layers +
--kv-cache-memory-bytes =
--kv-offloading-backend =
--kv-offloading-size =
--kv-sharing-fast-prefill --no-kv-sharing-fast-prefill
--mamba-block-size =
--mamba-cache-dtype =
--mamba-cache-mode =
--mamba-ssm-cache-dtype =
--num-gpu-blocks-override =
--prefix-cache-retention-interval =
--prefix-caching-hash-algo =
--prefix-match-unit =
--replayssm-buffer-len =
--swa-bounded-replay --no-swa-bounded-replay
--use-replayssm --no-use-replayssm
# weight offloading
--cpu-offload-gb =
--cpu-offload-params +
--offload-backend =
--offload-group-size =
--offload-num-in-group =
--offload-params +
--offload-prefetch-step =
# LoRA execution; `--lora-modules` too: vLLM 0.33.0's render server builds its model list
# without it (a request naming an adapter gets the unknown-model 404 there as here)
--lora-modules +
--default-mm-loras =
--enable-lora --disable-lora
--enable-mixed-moe-lora-format --disable-mixed-moe-lora-format
--enable-moe-shared-loras --disable-moe-shared-loras
--enable-tower-connector-lora --disable-tower-connector-lora
--fully-sharded-loras --no-fully-sharded-loras
--lora-dtype =
--lora-target-modules +
--max-cpu-loras =
--max-lora-cls-labels =
--max-lora-rank =
--max-loras =
--specialize-active-lora --no-specialize-active-lora
# engine metrics and tracing
--collect-detailed-traces =
--cudagraph-metrics --no-cudagraph-metrics
--custom-histogram-buckets =
--enable-layerwise-nvtx-tracing --disable-layerwise-nvtx-tracing
--enable-logging-iteration-details --disable-logging-iteration-details
--enable-mfu-metrics --disable-mfu-metrics
--jit-monitor-mode =
--jit-monitor-verbose --no-jit-monitor-verbose
--kv-cache-metrics --no-kv-cache-metrics
--kv-cache-metrics-sample =
--otlp-traces-endpoint =
--per-request-spec-decode-metrics =
--show-hidden-metrics-for-version =
# scheduling
--async-scheduling --no-async-scheduling
--disable-chunked-mm-input --enable-chunked-mm-input
--disable-hybrid-kv-cache-manager --enable-hybrid-kv-cache-manager
--enable-chunked-prefill --disable-chunked-prefill
--long-prefill-token-threshold =
--long-prefill-token-threshold-adaptive --no-long-prefill-token-threshold-adaptive
--max-num-active-seqs =
--max-num-batched-tokens =
--max-num-queued-reqs =
--max-num-queued-tokens =
--max-num-scheduled-tokens =
--max-num-seqs =
--prefill-schedule-interval =
--scheduler-cls =
--scheduler-reserve-full-isl --no-scheduler-reserve-full-isl
--scheduling-policy =
--stream-interval =
--watermark =
# compilation
--cudagraph-capture-sizes +
--max-cudagraph-capture-size =
# kernel selection
--enable-flashinfer-autotune --disable-flashinfer-autotune
--ir-op-priority =
--linear-backend =
--moe-backend =
--monokernel --no-monokernel
--sparse-indexer-topk-backend =
# engine sub-configurations
--additional-config =
--attention-config -ac =
--aux-output-config =
--compilation-config -cc =
--diffusion-config -dc =
--ec-manager-config =
--ec-transfer-config =
--engram-config =
--kernel-config =
--kv-transfer-config =
--optimization-level =
--performance-mode =
--profiler-config =
--reasoning-config =
--spec-method =
--spec-model =
--spec-tokens =
--speculative-config -sc =
--watchdog-config =
--watermark-config =
--weight-transfer-config =
# API-server options a render server has no use for (its derender ignores them in vLLM 0.33.0 too)
--cohere-is-reasoning-model --no-cohere-is-reasoning-model
--data-parallel-supervisor-port =
--dp-supervisor-probe-failure-threshold =
--dp-supervisor-probe-interval-s =
--dp-supervisor-probe-timeout-s =
--enable-flash-late-interaction --disable-flash-late-interaction
--enable-force-include-usage --disable-force-include-usage
--enable-log-deltas --disable-log-deltas
--enable-log-outputs --disable-log-outputs
--enable-per-request-metrics --disable-per-request-metrics
--enable-prompt-tokens-details --disable-prompt-tokens-details
--enable-scale-out --disable-scale-out
--enable-server-load-tracking --disable-server-load-tracking
--log-error-stack --no-log-error-stack
--max-log-len =
--response-role =
--return-tokens-as-token-ids --no-return-tokens-as-token-ids
--tokens-only --no-tokens-only
# the multimodal encoder and its processor's device, cache and IPC (vLLM 0.33.0's renderer reads
# none of them), KV events and sampling masks
--kv-events-config =
--mm-device-do-normalize --no-mm-device-do-normalize
--mm-encoder-attn-backend =
--mm-encoder-attn-dtype =
--mm-encoder-fp8-scale-path =
--mm-encoder-fp8-scale-save-margin =
--mm-encoder-fp8-scale-save-path =
--mm-encoder-only --no-mm-encoder-only
--mm-encoder-tp-mode =
--mm-processor-cache-type =
--mm-processor-device =
--mm-shm-cache-max-object-size-mb =
--return-sampling-mask --no-return-sampling-mask
--skip-mm-profiling --no-skip-mm-profiling
# older spellings, and the multimodal processor cache (tokenfront keeps none: it answers as vLLM with 0)
--swap-space =
--no-enable-prefix-caching
--disable-frontend-multiprocessing
--mm-processor-cache-gb =
"""


def _parse(table: str) -> dict[str, tuple[tuple[str, ...], str | None]]:
    flags: dict[str, tuple[tuple[str, ...], str | None]] = {}
    for line in table.splitlines():
        if not line or line.startswith("#"):
            continue
        names = line.split()
        values = names.pop() if names[-1] in ("=", "+") else None
        flags[names[0]] = (tuple(names), values)
    return flags


# canonical flag -> (its spellings, None for a switch, "=" for one value, "+" for several)
ENGINE_FLAGS: dict[str, tuple[tuple[str, ...], str | None]] = _parse(_TABLE)

"""Pass counts of vLLM parser-test vectors (tests/parsers/vllm_vectors) through tokenfront.

    vector_report.py [--chunks K|mix15|mix14|all] [--one-shot-streamed] [PARSER ...]

Names print the failures of those parsers. `--chunks` streams in chunks of several tokens
(`vllm_vectors_run.chunk_ends`; only streaming runs are counted then). `--one-shot-streamed`
streams the one-shot vectors that pass one-shot instead (with `--chunks`' chunking): a served
stream of the same output should satisfy the same assertion.
"""

import collections
import sys

sys.path.insert(
    0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "tests" / "parsers")
)
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, problems

args = sys.argv[1:]
chunking = "1"
if args[:1] == ["--chunks"]:
    chunking, args = args[1], args[2:]
one_shot_streamed = "--one-shot-streamed" in args
args = [a for a in args if a != "--one-shot-streamed"]
SKIP = {"raises", "is_reasoning_end", "is_reasoning_end_only"}
tot = collections.Counter()
bad = collections.defaultdict(list)
for vec in load_vectors(group=None):
    # reasoning vectors count under "<parser>/reasoning"
    key = vec["parser"] + ("/reasoning" if vec["kind"] == "reasoning" else "")
    if one_shot_streamed:
        if vec["mode"] != "non_streaming" or SKIP & set(vec["asserted"]):
            continue
        if problems(vec, "non_streaming"):
            continue
    for mode in ["streaming"] if one_shot_streamed else modes(vec):
        if chunking != "1" and mode != "streaming":
            continue
        tot[key] += 1
        try:
            p = problems(vec, mode, chunking)
        except Exception as e:
            p = ["EXC " + repr(e)[:200]]
        if p:
            bad[key].append((vec["source"], mode, p))
for k in sorted(tot):
    print(f"{k:18} {tot[k] - len(bad[k])}/{tot[k]}")
print("TOTAL", sum(tot.values()) - sum(len(v) for v in bad.values()), "/", sum(tot.values()))
if args:
    for k in args:
        for key in (k, k + "/reasoning"):
            for s, m, p in bad[key]:
                print(key, s, m, p[:3])

"""Pass counts of vLLM parser-test vectors (tests/parsers/vllm_vectors) through tokenfront; names print failures."""

import collections
import sys

sys.path.insert(
    0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "tests" / "parsers")
)
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, problems

tot = collections.Counter()
bad = collections.defaultdict(list)
for vec in load_vectors(kind="tool"):
    for mode in modes(vec):
        tot[vec["parser"]] += 1
        try:
            p = problems(vec, mode)
        except Exception as e:
            p = ["EXC " + repr(e)[:200]]
        if p:
            bad[vec["parser"]].append((vec["source"], mode, p))
for k in sorted(tot):
    print(f"{k:18} {tot[k] - len(bad[k])}/{tot[k]}")
print("TOTAL", sum(tot.values()) - sum(len(v) for v in bad.values()), "/", sum(tot.values()))
if len(sys.argv) > 1:
    for k in sys.argv[1:]:
        for s, m, p in bad[k]:
            print(k, s, m, p[:3])

import time, sys, json, cProfile, pstats
from hippograph.cues import cues_of, keywords, _stemmer
from hippograph.models import Layer, MemoryNode
import snowballstemmer
print("stemmer:", type(_stemmer()))
words = [f"topic{i} Ann{i % 7}" for i in range(500)]
nodes = [MemoryNode(layer=Layer.EPISODIC, label=f"event {i}", content=f"benchmark memory number {i} about {words[i%500]}", session_id=f"s{i//20}") for i in range(5000)]
# realistic text: LoCoMo turns
data = json.load(open("/work/shared/data/locomo/locomo-dev.json"))
texts = []
def walk(x):
    if isinstance(x, dict):
        if "text" in x and isinstance(x["text"], str): texts.append(x["text"])
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(data)
texts = texts[:5000]
real = [MemoryNode(layer=Layer.EPISODIC, label="", content=t, session_id="s1", properties={"speaker": "Mel"}) for t in texts]
for name, ns in (("bench", nodes), ("locomo", real)):
    t = time.perf_counter(); out = [cues_of(n) for n in ns]; dt = time.perf_counter() - t
    print(name, len(ns), f"{dt*1e6/len(ns):.1f} us/node", sum(map(len, out))/len(ns), "cues/node")
import hashlib
h = hashlib.sha1(json.dumps([[c.row() for c in cues_of(n)] for n in real]).encode()).hexdigest()
print("digest", h)

import time, sys
from benchmarks import writes_ab
from benchmarks.locomo.dataset import DEFAULT_PATH
from hippograph.cues import cues_of
from hippograph.layers.ingest import turn_nodes, ConversationTurn
from hippograph.scope import Scope
s = Scope.root("org", "x").child("user", "u")
nodes = [n for conv in writes_ab.locomo_turns(DEFAULT_PATH, 2000) for n in turn_nodes(s, [ConversationTurn(**t) for t in conv])[0]]
for r in range(4):
    t = time.perf_counter(); [cues_of(n) for n in nodes]; print(f"{sys.argv[1]} pass {r}: {1e6*(time.perf_counter()-t)/len(nodes):.0f} us/turn")
from hippograph.cues import keywords, names
for r in range(3):
    t = time.perf_counter(); [keywords(n.content) for n in nodes]; k = time.perf_counter() - t
    t = time.perf_counter(); [names(n.content) for n in nodes]; m = time.perf_counter() - t
    print(f"keywords {1e6*k/len(nodes):.0f} us, names {1e6*m/len(nodes):.0f} us")

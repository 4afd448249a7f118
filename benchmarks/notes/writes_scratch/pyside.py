import time, numpy as np, uuid
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store.mapping import node_to_props, layer_label
from hippograph.cues import cues_of
from neo4j._codec.packstream.v1 import Packer
from neo4j._codec.packstream import RUST_AVAILABLE
print("rust", RUST_AVAILABLE)
rng = np.random.default_rng(1)
n = 1000
vecs = rng.normal(size=(n, 384)).astype(np.float32)
scope = Scope.root("org","o").child("user","u")
def T(name, f, reps=3):
    best = 1e9
    for _ in range(reps):
        t = time.perf_counter(); r = f(); best = min(best, time.perf_counter() - t)
    print(f"{name:40s} {best*1e6/n:8.1f} us/node")
    return r
lists = T("vec.tolist", lambda: [v.tolist() for v in vecs])
nodes = T("MemoryNode(...embedding)", lambda: [MemoryNode(layer=Layer.EPISODIC, label=f"e{i}", content=f"benchmark memory number {i} about topic{i} Ann{i%7}", session_id=f"s{i//20}", embedding=lists[i]) for i in range(n)])
copies = T("model_copy(scope_key)", lambda: [x.model_copy(update={"scope_key": scope.key}) for x in nodes])
rows = T("node_to_props", lambda: [{"id": x.id, "layer_label": layer_label(x.layer), "props": node_to_props(x, scope)} for x in copies])
T("cues_of", lambda: [cues_of(x) for x in nodes])
params = {"scope_key": scope.key, "rows": rows, "tx_token": "x"}
T("driver's eager repr of params", lambda: " ".join(map(repr, ("q", params, {}))))
from neo4j._codec.packstream.v1 import Packer
from neo4j._codec.packstream.v1 import _rust_pack
T("rust pack", lambda: _rust_pack(params, None))
class Quiet(list):
    def __repr__(self): return f"<{len(self)} rows>"
qp = {"scope_key": scope.key, "rows": Quiet(rows), "tx_token": "x"}
T("repr with Quiet rows", lambda: " ".join(map(repr, ("q", qp, {}))))
a = _rust_pack(params, None); b = _rust_pack(qp, None)
print("same bytes from list subclass:", a == b, len(a)//n, "bytes/node")
import json
T("orjson-free json.dumps", lambda: json.dumps(rows))

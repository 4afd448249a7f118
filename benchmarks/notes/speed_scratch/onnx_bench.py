import os, time, statistics, sys
os.environ["HF_HUB_OFFLINE"] = "1"; os.environ["TRANSFORMERS_OFFLINE"] = "1"
import numpy as np, torch
torch.set_num_threads(1)
from sentence_transformers import SentenceTransformer
from hippograph.embeddings.sentence_transformer import bundled_model_path
import onnxruntime as ort

def pct(xs, q): return statistics.quantiles(xs, n=100)[q-1]
path = bundled_model_path()
st = SentenceTransformer(str(path), device="cpu", local_files_only=True)
print(st)
bert = st[0].auto_model.eval()
tok = st.tokenizer
out = "/tmp/speed/minilm.onnx"
if not os.path.exists(out):
    enc = tok(["hello world"], return_tensors="pt")
    class Wrap(torch.nn.Module):
        def __init__(s, m): super().__init__(); s.m = m
        def forward(s, input_ids, attention_mask, token_type_ids):
            return s.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
    t = time.time()
    torch.onnx.export(Wrap(bert), (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), out,
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
                      dynamic_axes={k: {0: "b", 1: "s"} for k in ["input_ids", "attention_mask", "token_type_ids", "last_hidden_state"]},
                      opset_version=17, dynamo=False)
    print("export s", time.time() - t)
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess = ort.InferenceSession(out, so, providers=["CPUExecutionProvider"])
maxlen = st.max_seq_length
def onnx_encode(texts):
    enc = tok(texts, padding=True, truncation=True, max_length=maxlen, return_tensors="np")
    feeds = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
    h = sess.run(None, feeds)[0]
    m = feeds["attention_mask"][..., None].astype(np.float32)
    v = (h * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
    return v / np.linalg.norm(v, axis=1, keepdims=True)
def torch_encode(texts):
    return st.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
texts = [f"when did Caroline go to the support group number {i}? she said it was about {i*7} days ago" for i in range(200)]
a = torch_encode(texts); b = onnx_encode(texts)
print("min cosine torch vs onnx", float((a * b).sum(1).min()), "max abs diff", float(np.abs(a-b).max()))
for _ in range(10): torch_encode([texts[0]]); onnx_encode([texts[0]])
lt, lo = [], []
for t in texts:
    s = time.perf_counter(); torch_encode([t + " x"]); lt.append((time.perf_counter()-s)*1000)
    s = time.perf_counter(); onnx_encode([t + " x"]); lo.append((time.perf_counter()-s)*1000)
print(f"single query torch p50/p95 {pct(lt,50):.1f}/{pct(lt,95):.1f} ms; onnx {pct(lo,50):.1f}/{pct(lo,95):.1f} ms; ratio p50 {pct(lt,50)/pct(lo,50):.2f} p95 {pct(lt,95)/pct(lo,95):.2f}")
batch = [f"memory text number {i} about something" for i in range(1000)]
res = {}
for name, fn in (("torch", torch_encode), ("onnx", lambda x: np.concatenate([onnx_encode(x[i:i+64]) for i in range(0, len(x), 64)])), ("torch2", torch_encode), ("onnx2", lambda x: np.concatenate([onnx_encode(x[i:i+64]) for i in range(0, len(x), 64)]))):
    s = time.perf_counter(); fn(batch); res[name] = len(batch) / (time.perf_counter() - s)
print("batch texts/s", {k: round(v) for k, v in res.items()})

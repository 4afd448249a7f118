import asyncio, time, statistics, sys
import numpy as np
from hippograph.embeddings.sentence_transformer import SentenceTransformerEmbeddings
from hippograph.embeddings.onnx_minilm import OnnxMiniLMEmbeddings
def pct(xs, q): return statistics.quantiles(xs, n=100)[q-1]
async def main():
    t, o = SentenceTransformerEmbeddings(cache_size=0), OnnxMiniLMEmbeddings(cache_dir="/tmp/speed/onnxcache", cache_size=0)
    texts = ["", "a", "When did Caroline go to the LGBTQ support group?", "word " * 600, "Ünïcödé façade naïve — 東京 emoji 🎉"] + [f"memory {i} about topic {i*13} and the dog Rex" for i in range(60)]
    t0 = time.perf_counter(); await o.embed("warm"); print("onnx first load (incl. export if needed) s", round(time.perf_counter() - t0, 1))
    await t.embed("warm")
    a = np.array(await t.embed_batch(texts)); b = np.array(await o.embed_batch(texts))
    print("min cosine", float((a * b).sum(1).min()), "max abs", float(np.abs(a - b).max()))
    single = [np.array(await o.embed(x)) for x in texts[:5]]
    print("single vs batch min cosine", min(float(s @ b[i]) for i, s in enumerate(single)))
    lt, lo = [], []
    for i in range(150):
        q = f"when did Caroline go to the support group number {i}?"
        s = time.perf_counter(); await t.embed(q + " t"); lt.append((time.perf_counter() - s) * 1000)
        s = time.perf_counter(); await o.embed(q + " o"); lo.append((time.perf_counter() - s) * 1000)
    print(f"query: torch p50/p95 {pct(lt,50):.1f}/{pct(lt,95):.1f} ms, onnx {pct(lo,50):.1f}/{pct(lo,95):.1f} ms, ratio p50 {pct(lt,50)/pct(lo,50):.2f}, p95 {pct(lt,95)/pct(lo,95):.2f}")
    batch = [f"memory text number {i} about something" for i in range(1000)]
    r = {}
    for name, e in (("torch", t), ("onnx", o), ("torch2", t), ("onnx2", o)):
        s = time.perf_counter(); await e.embed_batch(batch); r[name] = round(len(batch) / (time.perf_counter() - s))
    print("batch texts/s", r)
asyncio.run(main())

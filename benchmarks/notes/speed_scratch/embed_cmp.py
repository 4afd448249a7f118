import asyncio, math
from rich.console import Console
from rich.table import Table
from benchmarks.recall_bench import embed_latency
from hippograph.embeddings import OnnxMiniLMEmbeddings, SentenceTransformerEmbeddings

async def main():
    t = Table(title="query embedding, torch vs ONNX Runtime, interleaved")
    for c in ("memories", "what", "value", "unit"): t.add_column(c)
    await embed_latency(t, n=100)
    Console(width=200).print(t)
    texts = ["", "a", "When did Caroline go to the LGBTQ support group?", "Ünïcödé façade naïve — 東京 🎉", "word " * 600] + [f"memory {i} about the harbor and Ann" for i in range(60)]
    a = await SentenceTransformerEmbeddings(cache_size=0).embed_batch(texts)
    b = await OnnxMiniLMEmbeddings(cache_size=0).embed_batch(texts)
    print("min cosine torch vs onnx over", len(texts), "texts:", min(sum(x*y for x, y in zip(u, v)) for u, v in zip(a, b)))
asyncio.run(main())

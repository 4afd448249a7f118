// writes_limit: the raw insert's own vector index, configured as memory_embedding_chain
// (384 dimensions, cosine, the scope chain interval as filter properties) on a label of its own.
CYPHER 25
CREATE VECTOR INDEX raw_vector_bench IF NOT EXISTS
FOR (v:RawVectorBench) ON (v.embedding)
WITH [v.scope_lo, v.scope_hi]
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}

// writes_limit: the raw insert's own vector index, configured as memory_embedding_scoped
// (384 dimensions, cosine, the scope key as a filter property) on a label of its own.
CYPHER 25
CREATE VECTOR INDEX raw_vector_bench IF NOT EXISTS
FOR (v:RawVectorBench) ON (v.embedding)
WITH [v.scope_key]
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}

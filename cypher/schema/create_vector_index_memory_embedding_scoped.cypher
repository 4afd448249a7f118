// transaction: autocommit
// Schema step 4: the vector index with the scope key as a filter property, so recall searches
// each visible scope inside the index (SEARCH … WHERE m.scope_key = …, Cypher 25, Neo4j 2026.x)
// instead of filtering the global top-k afterwards. Replaces memory_embedding (dropped in step 4).
CYPHER 25
CREATE VECTOR INDEX memory_embedding_scoped IF NOT EXISTS
FOR (m:Memory) ON (m.embedding)
WITH [m.scope_key]
// (the dimensions and similarity are the embedder's, written in when the schema is applied)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}

// transaction: autocommit
// Schema step 8: the vector index with each memory's chain interval (scope_lo, scope_hi; see
// hippograph.scope.Scope.chain_lo) as filter properties, so one search inside the index covers
// a query's whole ancestor chain (SEARCH … WHERE m.scope_lo <= $at AND m.scope_hi > $at, Cypher
// 25, Neo4j 2026.x) instead of one search per visible scope key. Replaces memory_embedding
// (dropped in step 4) and memory_embedding_scoped (scope_key only, dropped in step 8).
CYPHER 25
CREATE VECTOR INDEX memory_embedding_chain IF NOT EXISTS
FOR (m:Memory) ON (m.embedding)
WITH [m.scope_lo, m.scope_hi]
// (the dimensions and similarity are the embedder's, written in when the schema is applied)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}

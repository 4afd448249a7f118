// transaction: autocommit
// The vector index on Neo4j 5.26 LTS (schema step 8 there, in memory_embedding_chain's place):
// without filter properties (5.26 has neither Cypher 25 nor filtered vector indexes). Vector search over-fetches its global top-k and filters
// by scope afterwards (the _lts statements). On 2026.x step 4 drops this index and builds
// memory_embedding_chain (step 8) instead, so a database moved from 5.26 to 2026.x gets the filtered one.
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON (m.embedding)
// (the dimensions and similarity are the embedder's, written in when the schema is applied)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}

// transaction: autocommit
// Schema step 4 on Neo4j 5.26 LTS: the vector index without filter properties (5.26 has neither
// Cypher 25 nor filtered vector indexes). Vector search over-fetches its global top-k and filters
// by scope afterwards (the _lts statements). On 2026.x step 4 drops this index and builds
// memory_embedding_scoped instead, so a database moved from 5.26 to 2026.x gets the scoped one.
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON (m.embedding)
// (the dimensions and similarity are the embedder's, written in when the schema is applied)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}

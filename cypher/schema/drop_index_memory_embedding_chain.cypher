// transaction: autocommit
// Re-embedding: the old vectors' index gives way (recall reads the new index meanwhile) and is
// built again at the new embedder's size over the copied vectors.
// Neo4j 2026.x only (5.26 has memory_embedding instead).
CYPHER 25
DROP INDEX memory_embedding_chain IF EXISTS

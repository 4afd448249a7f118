// Re-embedding: the old vectors' index gives way (recall reads the new index meanwhile) and is
// built again at the new embedder's size over the copied vectors.
DROP INDEX memory_embedding_scoped IF EXISTS

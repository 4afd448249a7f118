// transaction: autocommit
// Schema step 4: the vector index without filter properties; memory_embedding_chain (step 8,
// with the scope chain, for in-index filtering) replaces it, so databases made before step 4 lose it.
DROP INDEX memory_embedding IF EXISTS

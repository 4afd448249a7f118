// transaction: autocommit
// Schema step 8: the vector index filtered by scope key alone (one search per visible scope)
// gives way to memory_embedding_chain (one search per scope chain).
DROP INDEX memory_embedding_scoped IF EXISTS

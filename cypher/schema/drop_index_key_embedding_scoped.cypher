// transaction: autocommit
// Schema step 8: the keys' vector index filtered by scope key alone gives way to
// key_embedding_chain (one search per scope chain).
DROP INDEX key_embedding_scoped IF EXISTS

// writes_limit: wait until the raw insert's vector index is online.
CALL db.awaitIndex('raw_vector_bench', 300)

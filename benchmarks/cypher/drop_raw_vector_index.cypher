// writes_limit: drop the raw insert's vector index.
DROP INDEX raw_vector_bench IF EXISTS

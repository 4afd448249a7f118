// One in-index filtered vector search of one scope key (Cypher 25 SEARCH with the filter inside
// the index): the floor a recall from a leaf is compared with beside the raw index query.
// Parameters: $vector (the query's embedding), $key (the leaf's scope key), $k.
CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (VECTOR INDEX memory_embedding_scoped FOR $vector WHERE m.scope_key = $key LIMIT $k)
  SCORE AS score
RETURN m.id AS id, score

// BM25 over search_text inside the visible scopes and layers ($lucene carries both the
// escaped terms and the zero-boost scope/layer filter; see retrieval/lucene.py).
CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node, score
WHERE node.scope_key IN $visible AND NOT coalesce(node.retracted, false)
RETURN node.id AS id, score
LIMIT $k

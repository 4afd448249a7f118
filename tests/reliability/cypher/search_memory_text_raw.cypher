// Test-only: the fulltext index's own BM25 scores for $query (plain words), over every scope.
// Parameters: $query, $scope_key_prefix (only memories whose scope_key starts with it).
CALL db.index.fulltext.queryNodes('memory_text', $query) YIELD node, score
WHERE node.scope_key STARTS WITH $scope_key_prefix
RETURN node.id AS id, score
ORDER BY score DESC, id

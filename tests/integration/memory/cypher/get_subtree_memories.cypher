// Test inspection: every memory of a subtree with all its properties but the embedding.
MATCH (m:Memory)
WHERE m.scope_key = $scope_key OR m.scope_key STARTS WITH $scope_key + '/'
RETURN m {.*, embedding: null, labels: labels(m)} AS m
ORDER BY m.id

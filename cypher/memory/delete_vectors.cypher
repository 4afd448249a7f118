// transaction: write
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key = $scope_key
REMOVE m.embedding
RETURN count(m) AS removed

// transaction: write
MATCH (a:Memory)-[r]->(:Memory) USING INDEX SEEK a:Memory(scope_key)
WHERE a.scope_key IN $visible AND r.id = $id AND r.scope_key = $scope_key
DELETE r
RETURN count(r) AS deleted

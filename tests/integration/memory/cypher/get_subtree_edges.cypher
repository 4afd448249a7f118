// Test inspection: every relationship between memories of a subtree.
MATCH (a:Memory)-[r]->(b:Memory)
WHERE a.scope_key = $scope_key OR a.scope_key STARTS WITH $scope_key + '/'
RETURN type(r) AS type, a.id AS source, b.id AS target, r.weight AS weight, r.id AS id,
       r.scope_key AS scope_key
ORDER BY type, source, target

MATCH (p:PendingLink)
WHERE p.scope_key = $scope_key OR p.scope_key STARTS WITH $scope_key + '/'
RETURN p {.*} AS pending
ORDER BY p.scope_key, p.source, p.target

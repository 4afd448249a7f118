// Test inspection: the pending links activation left in one scope.
MATCH (p:PendingLink {scope_key: $scope_key})
RETURN p {.*} AS p
ORDER BY p.source, p.target

MATCH (l:ConsolidationLease {scope_key: $scope_key})
RETURN l {.*} AS lease

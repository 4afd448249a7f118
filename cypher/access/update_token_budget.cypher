// transaction: write
// Add spent tokens to a scope's daily ledger. $id: "<scope_key>|<day>", $scope_key, $day,
// $tokens, $now. The ledger hangs off its scope when the scope exists (erased with it).
MERGE (b:TokenBudget {id: $id})
  ON CREATE SET b.scope_key = $scope_key, b.day = $day, b.used = 0, b.created_at = $now
SET b.used = b.used + $tokens, b.updated_at = $now
WITH b
OPTIONAL MATCH (s:Scope {key: $scope_key})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (b)-[:IN_SCOPE]->(s))
RETURN b.used AS used

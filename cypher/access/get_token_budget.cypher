// transaction: read
// Tokens a scope has spent today. $id: "<scope_key>|<day>".
OPTIONAL MATCH (b:TokenBudget {id: $id})
RETURN coalesce(b.used, 0) AS used

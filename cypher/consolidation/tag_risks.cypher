// transaction: autocommit
// Phase 2 — tag_risk: memories of the subtree whose text names a risk word ($pattern, built
// from the configured words) get "risk": true and "risk_tagged_at" in their properties map
// ($fields is that JSON fragment). Tagged memories are not tagged again. The substring test
// on $terms is a cheap filter before the regex.
CYPHER replan=skip
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(m.retracted, false)
  AND NOT coalesce(m.properties, '') CONTAINS '"risk": true'
WITH m, toLower(coalesce(m.label, '') + '\n' + coalesce(m.content, '')) AS text
WHERE any(term IN $terms WHERE text CONTAINS term) AND text =~ $pattern
CALL (m) {
  WITH m, trim(coalesce(m.properties, '')) AS p
  SET m.properties = CASE
        WHEN size(p) <= 2 THEN '{' + $fields + '}'  // no properties yet
        ELSE left(p, size(p) - 1) + ', ' + $fields + '}' END
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS tagged

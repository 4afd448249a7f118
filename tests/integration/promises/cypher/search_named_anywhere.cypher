// Test inspection (whole database): every node or relationship property that names the
// scope $key (the key itself, a key below it, or the key quoted inside a JSON text) or
// contains one of $ids. Embeddings are skipped (floats never name anything).
CALL () {
  MATCH (n)
  UNWIND keys(n) AS k
  RETURN 'node' AS kind, labels(n) AS what, n.id AS owner, k, n[k] AS v
  UNION ALL
  MATCH (a)-[r]->(b)
  UNWIND keys(r) AS k
  RETURN 'relationship' AS kind, [type(r)] AS what, coalesce(a.id, a.key) AS owner, k, r[k] AS v
}
WITH kind, what, owner, k, v WHERE k <> 'embedding'
WITH kind, what, owner, k,
     CASE WHEN valueType(v) STARTS WITH 'LIST' THEN [x IN v | toString(x)] ELSE [toString(v)] END AS texts
UNWIND texts AS s
WITH kind, what, owner, k, s
WHERE s = $key OR s STARTS WITH $key + '/'
   OR s CONTAINS '"' + $key + '"' OR s CONTAINS '"' + $key + '/'
   OR any(i IN $ids WHERE s CONTAINS i)
RETURN kind, what, owner, k, left(s, 200) AS value
LIMIT 50

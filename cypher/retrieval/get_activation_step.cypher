// transaction: read
// One hop of spreading activation: for each frontier node, its strongest $fan_out visible,
// live neighbours (by edge weight, then id and relationship type), with the relationship that
// leads there.
UNWIND $frontier AS f
MATCH (m:Memory {id: f})-[r]-(n:Memory) USING INDEX SEEK m:Memory(id)
WHERE n.scope_key IN $visible AND r.scope_key IN $visible
  AND NOT coalesce(n.retracted, false)
  AND ($layers IS NULL OR n.layer IN $layers)
WITH f, n, r
ORDER BY r.weight DESC, n.id, type(r)
WITH f, collect({id: n.id, rel: type(r), weight: r.weight})[..$fan_out] AS top
UNWIND top AS t
RETURN f AS source, t.id AS id, t.rel AS relationship, t.weight AS weight

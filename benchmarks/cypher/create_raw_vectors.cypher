// writes_limit: the raw vector insert, the floor of a memory write's cost: one node per row
// with only its scope key, its chain interval and its embedding (float32, as upsert_nodes
// writes it).
// $rows: {scope_key, scope_lo, scope_hi, embedding}.
UNWIND $rows AS row
CREATE (v:RawVectorBench {scope_key: row.scope_key, scope_lo: row.scope_lo, scope_hi: row.scope_hi})
WITH v, row
CALL db.create.setNodeVectorProperty(v, 'embedding', row.embedding)

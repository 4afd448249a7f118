// transaction: autocommit
CREATE INDEX memory_scope_layer IF NOT EXISTS FOR (m:Memory) ON (m.scope_key, m.layer)

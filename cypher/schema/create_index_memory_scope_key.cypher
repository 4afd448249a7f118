// transaction: autocommit
CREATE INDEX memory_scope_key IF NOT EXISTS FOR (m:Memory) ON (m.scope_key)

// transaction: autocommit
CREATE INDEX memory_scope_label IF NOT EXISTS FOR (m:Memory) ON (m.scope_key, m.label)

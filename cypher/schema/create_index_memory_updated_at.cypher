// transaction: autocommit
CREATE INDEX memory_updated_at IF NOT EXISTS FOR (m:Memory) ON (m.updated_at)

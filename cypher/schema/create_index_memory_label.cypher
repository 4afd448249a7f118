// transaction: autocommit
CREATE INDEX memory_label IF NOT EXISTS FOR (m:Memory) ON (m.label)

// transaction: autocommit
CREATE INDEX memory_session_id IF NOT EXISTS FOR (m:Memory) ON (m.session_id)

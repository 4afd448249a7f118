// transaction: autocommit
CREATE INDEX audit_entry_target IF NOT EXISTS FOR (a:AuditEntry) ON (a.target)

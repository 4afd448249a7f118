// transaction: autocommit
CREATE INDEX audit_entry_scope IF NOT EXISTS FOR (a:AuditEntry) ON (a.scope_key)

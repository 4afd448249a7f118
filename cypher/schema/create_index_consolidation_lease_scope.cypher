// transaction: autocommit
CREATE INDEX consolidation_lease_scope IF NOT EXISTS FOR (l:ConsolidationLease) ON (l.scope_key)

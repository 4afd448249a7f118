// transaction: autocommit
CREATE INDEX pending_link_scope IF NOT EXISTS FOR (p:PendingLink) ON (p.scope_key)

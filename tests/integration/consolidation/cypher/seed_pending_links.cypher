// Test seeding: pending links as spreading activation leaves them. $rows: {scope_key, source, target, score}.
UNWIND $rows AS row
MATCH (s:Scope {key: row.scope_key})
CREATE (p:PendingLink {scope_key: row.scope_key, source: row.source, target: row.target,
                       score: row.score, created_at: $now})
CREATE (p)-[:IN_SCOPE]->(s)

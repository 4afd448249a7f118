// transaction: autocommit
// After an offline import (hippograph import --bulk): give every memory edge the empty
// source_episodic_ids list the online write stores, which a CSV file cannot express (an empty
// field reads as no property). Run once, in batches of its own transactions.
MATCH ()-[r]->()
WHERE r.scope_key IS NOT NULL AND r.source_episodic_ids IS NULL
CALL (r) {
  SET r.source_episodic_ids = []
} IN TRANSACTIONS OF 10000 ROWS

// transaction: autocommit
CALL db.awaitIndexes($seconds)

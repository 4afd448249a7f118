// transaction: autocommit
// Schema step 6: one (:Key) per id (derived from its turn, kind and text), so writing a turn's
// keys again MERGEs onto the same nodes; its backing index serves that MERGE.
CREATE CONSTRAINT key_id IF NOT EXISTS FOR (k:Key) REQUIRE k.id IS UNIQUE

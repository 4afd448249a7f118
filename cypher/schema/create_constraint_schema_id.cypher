// transaction: autocommit
CREATE CONSTRAINT hippograph_schema_id IF NOT EXISTS FOR (v:HippographSchema) REQUIRE v.id IS UNIQUE

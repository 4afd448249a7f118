// transaction: autocommit
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE

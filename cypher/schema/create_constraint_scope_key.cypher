// transaction: autocommit
CREATE CONSTRAINT scope_key IF NOT EXISTS FOR (s:Scope) REQUIRE s.key IS UNIQUE

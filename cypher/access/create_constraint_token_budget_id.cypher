// transaction: autocommit
CREATE CONSTRAINT token_budget_id IF NOT EXISTS FOR (b:TokenBudget) REQUIRE b.id IS UNIQUE

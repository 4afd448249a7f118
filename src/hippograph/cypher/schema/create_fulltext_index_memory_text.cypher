CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.search_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}

# The GraphQL API for Docker users (docker-compose.yml builds it beside Neo4j).
# Not built on the project's own machines (no Docker engine there): see README, "Neo4j".
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
COPY cypher ./cypher
RUN pip install --no-cache-dir ".[api,embeddings,anthropic,cli]"
ENV HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
EXPOSE 8000
# Keys are required (no --dev): `docker compose run --rm api hippograph keys create --scope org:acme --role writer`
CMD ["hippograph", "serve", "--host", "0.0.0.0", "--port", "8000"]

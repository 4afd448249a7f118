# The GraphQL API and its dashboard for Docker users (docker-compose.yml builds it beside Neo4j).
# Not built on the project's own machines (no Docker engine there): see README, "Neo4j".

# 1. The dashboard (dashboard/: TypeScript + vite, Node.js 20.19+): vite writes it into the
#    package folder the API serves at `/` (../src/hippograph/app/api/dashboard_dist).
FROM node:22-slim AS dashboard
WORKDIR /build/dashboard
COPY dashboard/package.json dashboard/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY dashboard/ ./
RUN npm run build

# 2. The API: the package with the built dashboard inside (the wheel ships it as an artifact).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
COPY cypher ./cypher
COPY --from=dashboard /build/src/hippograph/app/api/dashboard_dist ./src/hippograph/app/api/dashboard_dist
# DL3013 (pin versions) does not fit: this installs the project itself, from this folder.
# hadolint ignore=DL3013
RUN pip install --no-cache-dir ".[api,embeddings,anthropic,cli]"
ENV HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
EXPOSE 8000
# Keys are required (no --dev): `docker compose run --rm api hippograph keys create --scope org:acme --role writer`
CMD ["hippograph", "serve", "--host", "0.0.0.0", "--port", "8000"]

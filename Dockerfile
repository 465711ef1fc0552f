# fragsync in a container: `docker compose up` (see docker-compose.yml and README).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY config ./config
COPY jobs ./jobs
COPY sql ./sql
COPY src ./src
COPY tsconfig.json ./
# A larger young generation: a sync allocates fast, and the default one made the fetching
# thread spend 10% of its time in scavenges (docs/benchmarks.md).
ENTRYPOINT ["node", "--max-semi-space-size=64", "bin/fragsync.js"]

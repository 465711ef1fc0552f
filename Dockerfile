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
# V8's default young generation: the larger one (--max-semi-space-size=64) saved some
# scavenges for about 150 MB of RSS, too much against the sync's memory target
# (docs/benchmarks.md, "Scale").
ENTRYPOINT ["node", "bin/fragsync.js"]

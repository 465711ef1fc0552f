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
# The CLI as plain JavaScript (dist/): without tsx's module-hook threads, about 60 MB less RSS
# (scripts/build.mjs; bin/fragsync.js falls back to tsx if dist/ is missing or stale).
COPY scripts/build.mjs ./scripts/
RUN node scripts/build.mjs
# V8's default young generation: the larger one (--max-semi-space-size=64) saved some
# scavenges for about 150 MB of RSS, too much against the sync's memory target
# (docs/benchmarks.md, "Scale"). A ceiling on the heap, as bin/fragsync.js's first line sets:
# V8 then collects before the heap fills with garbage (docs/benchmarks.md, session 9).
# glibc malloc arenas: see bin/fragsync.js.
ENV MALLOC_ARENA_MAX=2
ENTRYPOINT ["node", "--max-old-space-size=512", "bin/fragsync.js"]

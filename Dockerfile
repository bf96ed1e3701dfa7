# syntax=docker/dockerfile:1
# Production image: built in one stage, run from a slim one as the unprivileged `node` user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary fits
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY src ./src
# tsc, then the bundle (dist/main.js, dist/cli.js); then /app/runtime: the bundle and only the
# packages it loads from node_modules (dist/runtime-packages.json, with their dependencies)
RUN npm run build && node scripts/runtime-files.mjs --assemble /app/runtime

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# test/runtime-image.e2e-spec.ts runs the server and the CLI from the same files
COPY --from=build /app/runtime ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# SECRET_KEY and DATABASE_URL come from the environment (the server refuses to start without a key).
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The heap settings of package.json config.nodeFlags (npm run start:prod): RSS stays near 130 MB
# under load instead of growing to V8's defaults.
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=128", "dist/main.js"]

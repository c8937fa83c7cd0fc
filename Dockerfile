# syntax=docker/dockerfile:1
# The API server image: built in one stage with the whole workspace, shipped in another with only the
# server's production bundle (pnpm deploy: dist/, config/ and production node_modules), run as the
# unprivileged `node` user. Build from the repository root: docker build -t dhs-server .

FROM node:20.20.2-bookworm-slim AS build
ENV CI=true TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
RUN npm install -g pnpm@10.34.9
WORKDIR /repo
# Dependencies first, from the lockfile alone, so the layer is reused until the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --offline --frozen-lockfile --filter "@dhs/server..."
RUN pnpm --filter "@dhs/server..." run build
RUN pnpm --filter @dhs/server deploy --prod --legacy /out

FROM node:20.20.2-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=root:root /out ./
USER node
EXPOSE 8080
# Liveness only (see src/cli/healthcheck.ts); readiness is GET /readyz, for the load balancer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["node", "dist/cli/healthcheck.js"]
# Node handles SIGTERM itself (drain, then exit 0); no shell in between to swallow it.
CMD ["node", "dist/main.js"]

# syntax=docker/dockerfile:1
# Two images from one build: the API server (the default target) and the reference digital human
# worker (`--target worker`). Both are built in one stage with the workspace and shipped with only
# their production bundle (pnpm deploy: dist/ and production node_modules), run as the unprivileged
# `node` user. From the repository root:
#   docker build -t dhs-server .
#   docker build --target worker -t dhs-digital-human .

FROM node:24.22.3-bookworm-slim AS build
ENV CI=true TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
RUN npm install -g pnpm@10.34.9
WORKDIR /repo
# Dependencies first, from the lockfile alone, so the layer is reused until the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --offline --frozen-lockfile --filter "@dhs/server..." --filter "@dhs/digital-human..."
RUN pnpm --filter "@dhs/server..." --filter "@dhs/digital-human..." run build
RUN pnpm --filter @dhs/server deploy --prod --legacy /out
RUN pnpm --filter @dhs/digital-human deploy --prod --legacy /worker

FROM node:24.22.3-bookworm-slim AS worker
ENV NODE_ENV=production AGENT_HTTP_PORT=8081
# The reference speech recognition (PocketSphinx for Debian's Python, and its US English model) for the
# participant's captions, without which the worker captions only its own lines; and Flite's voices,
# without which every voice is spoken by eSpeak NG.
RUN apt-get update && apt-get install -y --no-install-recommends python3-pocketsphinx pocketsphinx-en-us flite && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=root:root /worker ./
USER node
# 8081: the framework's health endpoint; 9465: the worker's GET /metrics, for Prometheus inside the deployment.
EXPOSE 8081 9465
# The agents framework's health endpoint: 200 while the worker is registered with LiveKit.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:8081/').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/worker.js"]

FROM node:24.22.3-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8080 METRICS_PORT=9464 HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=root:root /out ./
# Recordings' local store (RECORDING_DIR), the node user's: mount a volume here, or set RECORDING_S3_BUCKET.
RUN mkdir -p /var/lib/dhs/recordings && chown node:node /var/lib/dhs/recordings
ENV RECORDING_DIR=/var/lib/dhs/recordings
USER node
# 8080: the API, for the load balancer; 9464: GET /metrics, for Prometheus inside the deployment only.
EXPOSE 8080 9464
# Liveness only (see src/cli/healthcheck.ts); readiness is GET /readyz, for the load balancer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["node", "dist/cli/healthcheck.js"]
# Node handles SIGTERM itself (drain, then exit 0); no shell in between to swallow it.
CMD ["node", "dist/main.js"]

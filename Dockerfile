# syntax=docker/dockerfile:1
# The one Dockerfile of Underdog: every image is built from it, from the repository root.
#
#   docker build --build-arg COMPONENT=auth -t underdog/auth .      a service or the gateway
#   docker build --target web -t underdog/web .                     the web app (static files)
#
# COMPONENT is one of gateway, auth, tournament, game-engine, ads, notification (the process
# bundles of tools/build.mjs). The stages up to `build` are the same for every image, so one build
# warms the cache for all of them; skaffold.yaml passes the same arguments.
ARG NODE_IMAGE=node:20-bookworm-slim
ARG WEB_SERVER_IMAGE=nginxinc/nginx-unprivileged:1.28-alpine-slim

FROM ${NODE_IMAGE} AS dependencies
# Compilers for argon2's native addon, used only when its prebuilt binary does not load here.
# Build stages only, so the versions are whatever the base image's Debian release ships.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
RUN npm install --global --no-audit --no-fund pnpm@10.34.8
ENV CI=true
WORKDIR /repo
# Dependencies first: this layer is rebuilt only when the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline

# Every process bundle (services, gateway, standalone) at once: one layer shared by six images.
FROM dependencies AS build
RUN node tools/build.mjs

# One component's files: its bundle, plus the native modules the bundle leaves external
# (argon2 for auth), installed at the versions its package.json pins.
FROM build AS component
ARG COMPONENT
RUN test -n "${COMPONENT}" || { echo 'set --build-arg COMPONENT=<gateway|auth|...>' >&2; exit 1; }
RUN node tools/docker/component-files.mjs "${COMPONENT}" /out

# The web app: static files built by Vite.
FROM dependencies AS web-build
RUN pnpm --filter @underdog/web build

# `--target web`: the static files behind nginx, unprivileged (any UID, read-only root, /tmp only).
FROM ${WEB_SERVER_IMAGE} AS web
COPY tools/docker/nginx.conf /etc/nginx/nginx.conf
COPY --from=web-build /repo/web/dist /usr/share/nginx/html
USER 10001:10001
EXPOSE 8086
# The image's entrypoint scripts rewrite files under /etc/nginx, which is read-only here.
ENTRYPOINT []
CMD ["nginx", "-g", "daemon off;"]

# The default target: a service or the gateway (--build-arg COMPONENT=...).
FROM ${NODE_IMAGE} AS service
# The process runs a single bundle: package managers are not needed at runtime, so they go.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && groupadd --system --gid 10001 underdog \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin underdog
ENV NODE_ENV=production
WORKDIR /app
# Files stay owned by root: the process can read its code but not change it.
COPY --from=component /out/ ./
USER 10001:10001
# No HEALTHCHECK: Kubernetes probes /healthz and /readyz itself (charts/underdog), and the port is
# the component's own (charts/underdog/components.yaml), set through PORT.
CMD ["node", "--enable-source-maps", "dist/main.js"]

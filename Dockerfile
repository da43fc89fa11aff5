# syntax=docker/dockerfile:1
# Order Graph: the compiled gateway on Node.js 24, production dependencies only, as a
# non-root user, able to run with a read-only root filesystem.
#   npm run image      (docker build -t order-graph:<package.json's version> .: the tag the
#                      Kubernetes Deployment runs)
#   docker run --read-only -p 4000:4000 -e ALLOWED_HOSTS=api.example.com -e AUTH_URL=… \
#     -e APPOINTMENT_URL=… -e ORDER_URL=… -e PRICE_CALCULATOR_URL=… -e TRADE_IN_URL=… order-graph:<version>

ARG NODE_IMAGE=node:24-bookworm-slim

# Compile: every dependency (the workspaces' too: the order-tracker page is built with them),
# then src/ → dist/ and the page → dist/tracker/ (served with TRACKER=on).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
COPY examples/order-tracker/package.json ./examples/order-tracker/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY schema ./schema
COPY src ./src
COPY examples/order-tracker ./examples/order-tracker
RUN node src/tools/build.mjs

# The production dependencies alone, installed for this Node.js (engine-strict refuses another).
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --engine-strict --ignore-scripts --no-audit --no-fund

# What runs: node, the compiled code and its dependencies; no npm in the process tree.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node as PID 1: it receives SIGTERM itself and drains (it handles the signal; nothing forwards it).
# The launcher replaces itself (execve, same PID) with node given heap flags sized for the
# container's memory limit; NODE_HEAP_FLAGS overrides them (docs/production.md, The heap).
CMD ["node", "dist/src/tools/start.mjs"]

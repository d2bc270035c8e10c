# Gatehouse image: built in one stage with the compilers better-sqlite3 and argon2 may need, run in another
# with only Node, the built service and its production dependencies, as an unprivileged user.
#   docker build --build-arg GATEHOUSE_COMMIT=$(git rev-parse HEAD) -t gatehouse .
# docs/deploy.md says how it was checked and what a real build adds.

FROM node:22-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages ./packages
COPY bin ./bin
COPY src ./src
COPY tools ./tools
COPY console ./console
COPY tsconfig.json tsconfig.build.json ./
# The source tree has no .git here: the commit that GET /v1/health and gatehouse --version name comes in
# as an argument (tools/release-json.mjs writes it into dist/release.json).
ARG GATEHOUSE_COMMIT=unknown
ENV GATEHOUSE_COMMIT=${GATEHOUSE_COMMIT}
# npm ci builds the native modules and runs prepare (npm run build); then the dev dependencies go.
RUN npm ci && npm prune --omit=dev && npm cache clean --force

FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/packages ./packages
COPY --from=build /src/bin ./bin
COPY --from=build /src/dist ./dist
# No package manager in the image that runs (nothing installs at run time), and a data directory the
# unprivileged user owns: SQLite, master.key and the file blob store live there when no other is named.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx /opt/yarn* /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 8080
# Liveness only: the process answers. Readiness (GET /v1/health: the database) is the load balancer's.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/v1/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/gatehouse.js"]
CMD ["serve"]

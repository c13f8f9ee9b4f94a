# presignd container image: `docker build -t presignd .` (or `podman build --format docker`; the OCI
# format drops HEALTHCHECK). Two stages: the official Swift image builds one static-stdlib binary; the
# runtime is Debian 12 slim with only the shared libraries that binary uses. docs/operations.md,
# "Containers", describes the volume, the user, health, signals and configuration.

FROM swift:6.3-bookworm AS build
# The C libraries' headers (systemLibrary targets in Package.swift).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev libsqlite3-dev libpq-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest names the test targets, so their folders must exist; nothing of them reaches the image.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product presignd \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/presignd" /out/presignd \
    && strip /out/presignd

FROM debian:bookworm-slim
# What `ldd presignd` shows, as Debian packages (libc6, libgcc-s1, libstdc++6, libssl3, libsqlite3-0),
# plus libpq5, which the binary loads with dlopen on the first PostgreSQL connection (ldd cannot see
# it), CA certificates for HTTPS to storage, and time zone data.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libc6 libgcc-s1 libstdc++6 libssl3 libsqlite3-0 libpq5 ca-certificates tzdata \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
    && groupadd --system --gid 999 presignd \
    && useradd --system --uid 999 --gid presignd --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin presignd \
    && mkdir -p /data \
    && chown presignd:presignd /data
COPY --from=build /out/presignd /usr/local/bin/presignd
# The image's config file: listen on every interface of the container (port 8080) and keep SQLite in
# the volume. It is a file layer, not variables, so that PRESIGN_* variables and their *_FILE forms
# (PRESIGN_RECORDS_URL_FILE=/run/secrets/records-url) still override it; an operator's own file
# replaces it through PRESIGN_CONFIG.
COPY config/container.json /etc/presignd/presignd.json
ENV PRESIGN_CONFIG=/etc/presignd/presignd.json
# The server writes the address it really listens on here once it is listening, and `presignd
# healthcheck` probes that one: flags given after the image name (`--port 18323`, `--config`) are the
# server's alone, never the health check's. A variable, not the config file, so that it holds whatever
# file `--config` names.
ENV PRESIGN_SERVER_LISTEN_INFO_PATH=/tmp/presignd-listen.json
VOLUME ["/data"]
WORKDIR /data
USER presignd:presignd
EXPOSE 8080
# SIGTERM drains: no new connections, in-flight requests finished (server.drainTimeoutMs), exit 0.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/presignd", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/presignd"]

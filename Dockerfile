# The maprender image of the README's Kubernetes example (section "On several machines"):
#   docker build -t registry.example/maprender:latest .
# Build stage: the official Swift image on Debian 12, a release build with the Swift standard library
# and Foundation linked statically (--static-swift-stdlib), as scripts/setup builds it.
# SWIFT_IMAGE picks another Swift image (the project is built with Swift 6.3).
ARG SWIFT_IMAGE=swift:6.3-bookworm
FROM ${SWIFT_IMAGE} AS build
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      pkg-config libcairo2-dev libpango1.0-dev libpng-dev librsvg2-dev libjpeg62-turbo-dev libwebp-dev libsqlite3-dev zlib1g-dev \
      libcurl4-openssl-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Package.swift names the test targets, so their folders come too (they are not built). --version names
# the commit scripts/setup stamped in Sources/CBuildInfo/generated/ if the context has it (.git is not copied).
COPY Package.swift ./
COPY Sources Sources
COPY Tests Tests
RUN swift build -c release --static-swift-stdlib --product maprender \
 && cp "$(swift build -c release --static-swift-stdlib --show-bin-path)/maprender" /maprender

# Run stage: Debian 12 slim with the C libraries the binary links (Cairo, Pango, libpng, libjpeg-turbo,
# libwebp, SQLite, zlib, libcurl for HTTP tiles) and the fonts maprender pins; no Swift toolchain.
FROM debian:bookworm-slim
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libpng16-16 librsvg2-2 libjpeg62-turbo libwebp7 libsqlite3-0 zlib1g \
      libcurl4 libstdc++6 ca-certificates \
      fonts-dejavu-core fonts-droid-fallback fonts-wqy-zenhei fonts-lohit-deva \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /maprender /usr/local/bin/maprender
ENV LANG=C.UTF-8
WORKDIR /data
ENTRYPOINT ["maprender"]

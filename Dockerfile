# The static release binary, built by the same script as everywhere else:
#   docker build --output type=local,dest=dist .      → dist/refbench
#   docker build --target image -t refbench .         → an image with only the binary and CA certificates
FROM debian:bookworm AS build
WORKDIR /src
COPY . .
RUN scripts/build-static.sh

FROM debian:bookworm-slim AS certificates
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates >/dev/null

FROM scratch AS image
COPY --from=certificates /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /src/dist/refbench /refbench
ENTRYPOINT ["/refbench"]

# `--output` exports the last stage's files: the binary alone
FROM scratch AS export
COPY --from=build /src/dist/refbench /refbench

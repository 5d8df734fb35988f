#!/usr/bin/env bash
# Builds a pinned Go command-line tool once into the shared tool cache and prints its path.
#
#   go-tool.sh <name> <version> <package> [extra go build flags...]
#
# The binary lands in ${UNDERDOG_CACHE:-$HOME/.cache/underdog}/tools/<name>-<version>/<name>.
# A second call finds it and returns at once; concurrent callers (parallel jest workers, CI jobs
# sharing a cache) wait on a lock instead of building twice. Progress goes to stderr so that
# stdout carries the path only: `helm="$(tools/helm/ensure-helm.sh)"`.
set -euo pipefail

if [ "$#" -lt 3 ]; then
  echo "usage: $0 <name> <version> <package> [go build flags...]" >&2
  exit 2
fi
name="$1"
version="$2"
package="$3"
shift 3

cache="${UNDERDOG_CACHE:-$HOME/.cache/underdog}"
dir="$cache/tools/$name-$version"
bin="$dir/$name"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "$name: the Go toolchain is required to build $package@$version (https://go.dev/dl/)" >&2
  exit 1
fi

mkdir -p "$dir"
exec 9>"$dir.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi
# Another caller may have finished the build while this one waited for the lock.
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

staging="$(mktemp -d "$dir/.build.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
started="$(date +%s)"
echo "$name: building $package@$version with $(go version | cut -d' ' -f3) (first run only; minutes on a small machine)" >&2
# CGO off: a static binary that does not depend on the host's C toolchain or libc.
CGO_ENABLED=0 GOBIN="$staging" go install -trimpath "$@" "$package@$version" >&2
built="$staging/$(basename "${package%%@*}")"
if [ ! -x "$built" ]; then
  echo "$name: go install succeeded but $built is missing" >&2
  exit 1
fi
mv -f "$built" "$bin"
echo "$name: installed $bin in $(($(date +%s) - started)) s" >&2
echo "$bin"

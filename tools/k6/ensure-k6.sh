#!/usr/bin/env bash
# Prints the path of a pinned k6 binary, building it from source with `go install` on first use
# (only the Go module proxy is needed, no release download). The binary is cached in
# ${UNDERDOG_CACHE:-$HOME/.cache/underdog}/tools/k6-<version>/k6 and built once under a lock, like
# helm (tools/helm/go-tool.sh). Usage: k6="$(tools/k6/ensure-k6.sh)"
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Keep in step with load/README.md and load/test/k6.e2e.test.ts.
version="v1.8.1"

exec "$here/../helm/go-tool.sh" k6 "$version" go.k6.io/k6 -ldflags "-s -w"

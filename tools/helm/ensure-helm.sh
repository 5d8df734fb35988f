#!/usr/bin/env bash
# Prints the path of a pinned helm binary, building it from source with `go install` on first use
# (no release download needed: only the Go module proxy). Usage: helm="$(tools/helm/ensure-helm.sh)"
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

version="v3.21.4"
# The same link-time settings as helm's own Makefile: the reported version, and the default
# Kubernetes version for capabilities and lint deprecation checks (client-go v0.36 -> 1.36),
# otherwise a plain `go install` reports v3.21 and assumes Kubernetes 1.20.
ldflags="-s -w"
ldflags+=" -X helm.sh/helm/v3/internal/version.version=$version"
ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in pkg/lint/rules pkg/chartutil; do
  ldflags+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=36"
done

exec "$here/go-tool.sh" helm "$version" helm.sh/helm/v3/cmd/helm -ldflags "$ldflags"

#!/usr/bin/env bash
# Builds the real control plane the oracle tests run against: kube-apiserver, kube-scheduler,
# kube-controller-manager and etcd, from the Go module in tests/oracles/kube (its go.mod pins the
# Kubernetes release). Each binary lands in .cache/kube/<version>/ once; a later run finds it
# there and builds nothing. The module and build caches live under .cache/go/ so a cached CI run
# is warm. Without Go it says so and exits 0: the tests then skip (or fail with CI=true).
#
# Usage: scripts/oracles/kube.sh [binary ...]   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
mod="$root/tests/oracles/kube"

if ! command -v go >/dev/null; then
  echo "kube.sh: no go on PATH; the control-plane oracles cannot be built" >&2
  exit 0
fi

version="$(awk '$1=="k8s.io/kubernetes" {sub(/^v/, "", $2); print $2; exit}' "$mod/go.mod")"
out="$root/.cache/kube/$version"
mkdir -p "$out" "$root/.cache/go/mod" "$root/.cache/go/build"
export GOMODCACHE="$root/.cache/go/mod" GOCACHE="$root/.cache/go/build"
export CGO_ENABLED=0 GOFLAGS=-mod=mod

# The version the binaries report (/version, the apiserver's compatibility version), as the
# release build stamps it.
major="${version%%.*}"; minor="${version#*.}"; minor="${minor%%.*}"
stamp="-X k8s.io/component-base/version.gitVersion=v$version"
stamp="$stamp -X k8s.io/component-base/version.gitMajor=$major"
stamp="$stamp -X k8s.io/component-base/version.gitMinor=$minor"
stamp="$stamp -X k8s.io/component-base/version.gitTreeState=clean"
stamp="$stamp -X k8s.io/client-go/pkg/version.gitVersion=v$version"

declare -A pkg=(
  [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
  [kube-scheduler]=k8s.io/kubernetes/cmd/kube-scheduler
  [kube-controller-manager]=k8s.io/kubernetes/cmd/kube-controller-manager
  [etcd]=./cmd/etcd
)
wanted=("$@")
if [ ${#wanted[@]} = 0 ]; then wanted=(etcd kube-apiserver kube-scheduler kube-controller-manager); fi

for name in "${wanted[@]}"; do
  if [ -x "$out/$name" ]; then continue; fi
  start=$(date +%s)
  # Built to a temporary name and moved into place, so an interrupted build never leaves a
  # binary that a later run would take for a finished one.
  (cd "$mod" && go build -trimpath -ldflags="-s -w $stamp" -o "$out/.$name.tmp" "${pkg[$name]}")
  mv "$out/.$name.tmp" "$out/$name"
  echo "kube.sh: built $name $version in $(( $(date +%s) - start ))s" >&2
done

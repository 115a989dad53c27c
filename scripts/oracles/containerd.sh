#!/usr/bin/env bash
# Builds real containerd daemons, one release per supported line, from the containerd Go
# modules, as oracles for the config-merge engine (tests/real_containerd.py finds them).
#
#   .cache/containerd-builds/<version>/containerd   static (CGO_ENABLED=0), without the
#                                                   btrfs/devmapper/zfs snapshotters
#
# Each version is built inside its own released module source with its go.mod/go.sum
# (-mod=readonly), so no dependency is re-resolved. A version whose binary
# exists is skipped; GOMODCACHE/GOCACHE live under .cache/go so a cached CI run is warm.
# Versions build one after another (small machines). Exit status: non-zero when any build
# failed (scripts/test then lets the tests report the missing binary: they fail with CI=true).
#
# Usage: scripts/oracles/containerd.sh [VERSION...]   (default: the list below)
set -uo pipefail
cd "$(dirname "$0")/../.."

# 1.7.27: the seed's release; then the newest served release of each 2.x line.
DEFAULT_VERSIONS=(1.7.27 2.0.14 2.1.9 2.2.9 2.3.4 2.3.7 2.4.2)
[ $# -gt 0 ] && VERSIONS=("$@") || VERSIONS=("${DEFAULT_VERSIONS[@]}")

OUT=.cache/containerd-builds
mkdir -p "$OUT" .cache/go
export GOMODCACHE="$PWD/.cache/go/mod" GOCACHE="$PWD/.cache/go/build"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local
TAGS="urfave_cli_no_docs osusergo netgo static_build no_btrfs no_devmapper no_zfs"

if ! command -v go >/dev/null; then
  echo "containerd oracles: no go toolchain on PATH; nothing built" >&2
  exit 1
fi

module_of() {  # 1.x lives at github.com/containerd/containerd, 2.x at .../v2
  case "$1" in 1.*) echo github.com/containerd/containerd ;; *) echo github.com/containerd/containerd/v2 ;; esac
}

failed=0
total_start=$(date +%s)
for v in "${VERSIONS[@]}"; do
  bin="$OUT/$v/containerd"
  if [ -x "$bin" ]; then continue; fi
  mod=$(module_of "$v")
  start=$(date +%s)
  dir=$(go mod download -json "$mod@v$v" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "containerd oracles: could not download $mod@v$v" >&2; failed=1; continue
  fi
  mkdir -p "$OUT/$v"
  tmp="$OUT/$v/.containerd.$$"
  if (cd "$dir" && go build -mod=readonly -trimpath -tags "$TAGS" \
        -ldflags "-s -w -X $mod/version.Version=v$v -X $mod/version.Package=$mod" \
        -o "$OLDPWD/$tmp" ./cmd/containerd) && mv "$tmp" "$bin"; then
    echo "containerd oracles: built $v in $(( $(date +%s) - start ))s"
  else
    rm -f "$tmp"
    echo "containerd oracles: build of $v failed" >&2; failed=1
  fi
done
[ $failed = 0 ] && state=ready || state="checked, some failed,"
echo "containerd oracles: ${#VERSIONS[@]} versions $state in $(( $(date +%s) - total_start ))s"
exit $failed

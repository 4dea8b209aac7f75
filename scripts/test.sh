#!/usr/bin/env bash
# The project's test command (README, .ci/run): every package's tests, then the
# runtime packages again under the race detector. Needs only Go; modules come
# from the module proxy on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 ./...
go test -count=1 -race ./nodes/sim/... ./workloads/...

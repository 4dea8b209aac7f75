#!/usr/bin/env bash
# The project's test command (README, .ci/run): every package's tests, then the
# runtime packages again under the race detector. Needs only Go; modules come
# from the module proxy on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
# The HTML report is tested in a real headless browser
# (reports/html_browser_test.go), which fails without one.
if ! command -v chromium >/dev/null 2>&1; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
go test -count=1 ./...
go test -count=1 -race ./nodes/sim/... ./workloads/...

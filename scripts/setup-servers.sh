#!/usr/bin/env bash
# Installs the unchanged server binaries the live "system" algorithms drive
# (docs/SERVERS.md): Debian's etcd-server. The package's own service must not
# run: a system etcd would hold 127.0.0.1:2379 and a data directory of its
# own, so invoke-rc.d is told to start nothing while the package installs
# (policy-rc.d, exit 101) and the unit is disabled and stopped afterwards
# where systemd runs at all.
set -euo pipefail
if command -v etcd >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup-servers: etcd missing; install Debian's etcd-server as root (apt-get install etcd-server)" >&2
  exit 2
fi
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  made_policy=1
fi
trap '[ -n "$made_policy" ] && rm -f "$policy"' EXIT
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends etcd-server
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl disable --now etcd.service || true
fi

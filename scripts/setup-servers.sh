#!/usr/bin/env bash
# Installs the unchanged server binaries the live "system" algorithms drive
# (docs/SERVERS.md): Debian's etcd-server and zookeeper. The packages' own
# services must not run: a system etcd would hold 127.0.0.1:2379 and a data
# directory of its own (zookeeper's service is the separate zookeeperd,
# which is not installed), so invoke-rc.d is told to start nothing while
# the packages install (policy-rc.d, exit 101) and etcd's unit is disabled
# and stopped afterwards where systemd runs at all.
set -euo pipefail
missing=()
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
# zookeeper's start script is not on PATH: the package installs it here.
[ -x /usr/share/zookeeper/bin/zkServer.sh ] || missing+=(zookeeper)
if [ ${#missing[@]} = 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup-servers: ${missing[*]} missing; install Debian's ${missing[*]} as root (apt-get install ${missing[*]})" >&2
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
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl disable --now etcd.service 2>/dev/null || true
fi

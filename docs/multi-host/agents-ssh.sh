#!/usr/bin/env bash
# Starts an electbench agent on each host over SSH and writes the hosts file
# that `electbench run --hosts` reads (docs/multi-host.md, "Real hosts").
#
#   agents-ssh.sh start HOSTS DIR   mint the keys (once, into DIR), start the
#                                   agents, write DIR/hosts.yaml
#   agents-ssh.sh stop HOSTS DIR    stop the agents; their nodes and Toxiproxy
#                                   servers die with them
#
# HOSTS lists one host a line: NAME SSH-DESTINATION LISTEN-ADDRESS, the last an
# address of that host the others and this machine reach, host:port (port 0:
# any free one); # starts a comment. Each agent runs the proxies into its
# host's nodes, on that address. Each host needs
# electbench on its PATH. $SSH (default ssh) reaches a host; $REMOTE_DIR
# (default electbench-agent, under the login directory) holds, per NAME, the
# agent's key, the controller's identity, its log and pid.
set -euo pipefail
SSH=${SSH:-ssh}
REMOTE=${REMOTE_DIR:-electbench-agent}

usage() { echo "usage: $0 start HOSTS DIR | stop HOSTS DIR" >&2; exit 2; }

# hosts prints the lines of the hosts list that name a host.
hosts() { grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1"; }

start() {
  local list=$1 dir=$2
  mkdir -p "$dir"
  [ -e "$dir/controller.id" ] || electbench pow mint --bits 1 -o "$dir/controller.id" >/dev/null
  { echo "controller: controller.id.key"; echo "hosts:"; } > "$dir/hosts.yaml.new"
  hosts "$list" | while read -r name dest listen; do
    [ -n "$listen" ] || { echo "$list: '$name $dest': want NAME SSH-DESTINATION LISTEN-ADDRESS" >&2; exit 2; }
    [ -e "$dir/$name.id" ] || electbench pow mint --bits 1 -o "$dir/$name.id" >/dev/null
    local r="$REMOTE/$name" line=""
    "$SSH" "$dest" "mkdir -p $r && umask 077 && cat > $r/agent.key" < "$dir/$name.id.key"
    "$SSH" "$dest" "cat > $r/controller.id" < "$dir/controller.id"
    "$SSH" "$dest" "rm -f $r/agent.log; nohup electbench agent --listen $listen --key $r/agent.key --controller $r/controller.id > $r/agent.log 2>&1 < /dev/null & echo \$! > $r/agent.pid" < /dev/null
    for _ in $(seq 100); do
      line=$("$SSH" "$dest" "grep -m1 '^agent listening on ' $r/agent.log || true" < /dev/null)
      [ -n "$line" ] && break
      sleep 0.1
    done
    if [ -z "$line" ]; then
      echo "$name: the agent did not start; its log:" >&2
      "$SSH" "$dest" "cat $r/agent.log" < /dev/null >&2 || true
      exit 1
    fi
    # "agent listening on ADDR, key HEX": the hosts file pins HEX.
    local addr=${line#agent listening on }
    printf '  - name: %s\n    agent: %s\n    key: %s\n' "$name" "${addr%%,*}" "${line##*key }" >> "$dir/hosts.yaml.new"
    echo "$name: agent on ${addr%%,*}"
  done
  mv "$dir/hosts.yaml.new" "$dir/hosts.yaml"
  echo "run: electbench run --runtime live --hosts $dir/hosts.yaml ..."
}

stop() {
  local list=$1
  hosts "$list" | while read -r name dest _; do
    local r="$REMOTE/$name"
    "$SSH" "$dest" "test -e $r/agent.pid && kill \$(cat $r/agent.pid) && rm -f $r/agent.pid" < /dev/null && echo "$name: agent stopped"
  done
}

case ${1:-} in
  start) [ $# -eq 3 ] || usage; start "$2" "$3" ;;
  stop) [ $# -eq 3 ] || usage; stop "$2" ;;
  *) usage ;;
esac

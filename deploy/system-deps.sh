#!/usr/bin/env bash
# Debian packages that the deploy checks and the local rig need: nginx (the gRPC
# balancer), prometheus (the server and promtool), prometheus-alertmanager (amtool,
# which checks the Alertmanager config), nats-server (the change feed), pgbouncer (the
# connection pooler), and chromium with fonts-liberation (Debian's build of the
# browser that the web table's tests drive with playwright-core, which never
# downloads one; the fonts are only recommended by it, and the screenshots need
# them). Installed only when missing, with --no-install-recommends. The packages' own
# services are not started (a policy-rc.d denies it for the duration of the install):
# the rig starts the binaries itself, on loopback, with its own config and pid files.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

need=()
have nginx || need+=(nginx)
{ have prometheus && have promtool; } || need+=(prometheus)
have amtool || need+=(prometheus-alertmanager)
have chromium || need+=(chromium fonts-liberation)
# The rig's parts for more than one machine: NATS (the change feed) and PgBouncer.
have nats-server || need+=(nats-server)
have pgbouncer || need+=(pgbouncer)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -n "$0" "$@"
  fi
  echo "system-deps: missing ${need[*]}; run as root:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends ${need[*]}" >&2
  # Outside CI the checks and the rig test that need them skip; in CI they must run.
  if [ -n "${CI:-}" ]; then exit 1; fi
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: no apt-get here; install ${need[*]} with this system's package manager" >&2
  exit 1
fi

policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# temporary, from deploy/system-deps.sh: no service starts\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  made_policy=1
fi
cleanup() { if [ "$made_policy" -eq 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT

echo "system-deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${need[@]}"

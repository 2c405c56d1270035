#!/usr/bin/env bash
# The machine's NATS server (JetStream on) at 127.0.0.1:4222, started if nothing
# answers there: what the benchmarks' NATS runs use (`make bench-scale`). The rig and
# its test start a NATS server of their own instead (deploy/rig/rig.py), which they
# can stop and start without disturbing anything else.
set -euo pipefail
if (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then
  exit 0
fi
bin=$(command -v nats-server || echo /usr/sbin/nats-server)
if [ ! -x "$bin" ]; then
  echo "nats-up: nats-server is not installed (make system-deps)" >&2
  exit 1
fi
mkdir -p /var/lib/nats-server
start-stop-daemon --start --oknodo --background --exec "$bin" -- \
  -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
for _ in $(seq 50); do
  if (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then exit 0; fi
  sleep 0.1
done
echo "nats-up: nats-server did not start (see /var/log/nats-server.log)" >&2
exit 1

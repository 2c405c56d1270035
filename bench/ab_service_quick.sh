#!/usr/bin/env bash
# The service quick benchmark (bench/service_quick.py) alternated between a checkout of
# an earlier commit and this one, three rounds each, on one machine in one run: the
# machine drifts, so a change is judged by the ratio of the medians, not by a figure
# of another day. The earlier checkout needs its generated stubs (make proto there,
# or protoc into its server/tranca/v1).
#
#     bench/ab_service_quick.sh /path/to/earlier/checkout [rounds]
set -euo pipefail
base=$(cd "$1" && pwd)
rounds=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
for round in $(seq 1 "$rounds"); do
  for tree in "$base" "$here"; do
    side=$([ "$tree" = "$base" ] && echo base || echo this)
    (cd "$tree" && PYTHONPATH="$tree/server:$tree/server/engine:$tree/bench" \
      "$here/.venv/bin/python" bench/service_quick.py --out "$out/$side-$round" >/dev/null)
    "$here/.venv/bin/python" -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], {k: (r['moves_per_second'], r['p99_ms']) for k, r in d['results'].items()})" \
      "$out/$side-$round/service_quick.json" "$side" "$round"
  done
done
echo "results under $out"

#!/usr/bin/env bash
# Checks of deploy/ that need no cluster, no Docker engine and no network
# (`make deploy-check`, part of `make test`):
#   YAML lint; the Dockerfile linted and its COPY sources checked against .dockerignore;
#   the compose file against the Compose specification's schema; both nginx configs
#   through `nginx -t`; the Prometheus configs, alert rules and their unit tests through
#   promtool; the Alertmanager config through amtool, its routes for every severity
#   of the alerts, and Prometheus wired to it; the Grafana dashboard's queries parsed
#   by promtool; metric names checked against the server's; the Kubernetes manifests
#   rendered by kustomize and validated against the Kubernetes schemas (two versions),
#   the ServiceMonitor against its schema, and the whole set for consistency; the
#   Python under deploy/ through ruff; docs/OPERATIONS.md naming every flag and
#   TRANCA_* variable of server.py, the settings tables' defaults and the rate limits
#   quoted anywhere in the documentation matching the server's, and the documentation's
#   numbered sections and links to headings holding together.
# nginx, promtool and amtool come from `make system-deps`. Outside CI a missing tool
# skips its checks with a note (and the summary lists them); with CI set, it fails them.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH:/usr/sbin:/sbin"
PY=${PYTHON:-python}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=()
skipped=()

# run NAME TOOL... -- COMMAND...: the command, if every tool is there.
run() {
  local name=$1
  shift
  local tools=()
  while [ "$1" != "--" ]; do tools+=("$1"); shift; done
  shift
  for t in "${tools[@]}"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      if [ -n "${CI:-}" ]; then
        echo "== $name: FAILED ($t is not installed; \`make system-deps\` installs it)"
        failed+=("$name")
      else
        echo "== $name: skipped ($t is not installed; \`make system-deps\` installs it)"
        skipped+=("$name")
      fi
      return 0
    fi
  done
  echo "== $name"
  if "$@"; then
    return 0
  fi
  echo "   FAILED: $name"
  failed+=("$name")
}

yaml_lint() { yamllint -c deploy/.yamllint.yml --strict deploy; }

docker_files() {
  hadolint --failure-threshold style deploy/docker/Dockerfile &&
    check-jsonschema --builtin-schema vendor.compose-spec deploy/docker/compose.yaml &&
    "$PY" deploy/check_helpers.py docker
}

nginx_configs() {
  "$PY" deploy/check_helpers.py nginx-compose deploy/docker/nginx.conf "$TMP/nginx-compose" &&
    nginx -q -t -p "$TMP/nginx-compose" -c "$TMP/nginx-compose/nginx.conf" \
      -e "$TMP/nginx-compose/error.log" &&
    "$PY" deploy/check_helpers.py nginx-rig "$TMP/nginx-rig" &&
    nginx -q -t -p "$TMP/nginx-rig" -c "$TMP/nginx-rig/nginx.conf" -e "$TMP/nginx-rig/error.log"
}

prometheus_files() {
  promtool check config deploy/prometheus/prometheus.yml deploy/prometheus/prometheus-rig.yml &&
    promtool check rules deploy/prometheus/alerts.yml &&
    promtool test rules deploy/prometheus/alerts_test.yml &&
    "$PY" deploy/check_helpers.py metrics deploy/prometheus/alerts.yml \
      deploy/prometheus/alerts_test.yml deploy/grafana/dashboards/tranca.json
}

alertmanager_config() {
  amtool check-config deploy/alertmanager/alertmanager.yml &&
    "$PY" deploy/check_helpers.py alerting
}

grafana_dashboard() {
  "$PY" deploy/check_helpers.py dashboard deploy/grafana/dashboards/tranca.json \
    "$TMP/dashboard-rules.yml" &&
    promtool check rules "$TMP/dashboard-rules.yml"
}

kubernetes() {
  local out="$TMP/k8s" ok=0
  mkdir -p "$out"
  for k in base overlays/example overlays/past-one-machine; do
    local name=${k//\//-}
    if command -v kubectl >/dev/null 2>&1; then
      kubectl kustomize "deploy/k8s/$k" >"$out/$name.yaml" || return 1
    else
      echo "   (no kubectl: the raw resources of deploy/k8s/$k, without kustomize's transformations)"
      "$PY" deploy/check_helpers.py assemble "deploy/k8s/$k" "$out/$name.yaml" || return 1
    fi
    "$PY" deploy/check_helpers.py split "$out/$name.yaml" "$out/$name" || return 1
    for version in 1.29.0 1.37.0; do
      kubernetes-validate --strict --quiet -k "$version" "$out/$name/core.yaml" || ok=1
    done
    for f in "$out/$name"/servicemonitor-*.json; do
      [ -e "$f" ] || continue
      check-jsonschema --schemafile deploy/k8s/schemas/servicemonitor.json "$f" || ok=1
    done
    "$PY" deploy/check_helpers.py k8s "$out/$name.yaml" || ok=1
  done
  [ "$(ls "$out"/overlays-example/servicemonitor-*.json 2>/dev/null | wc -l)" -eq 1 ] || {
    echo "   the example overlay renders no ServiceMonitor"
    ok=1
  }
  return $ok
}

python_files() {
  ruff check deploy && ruff format --check deploy
}

operations_guide() {
  "$PY" deploy/check_helpers.py docs
}

run "YAML lint (yamllint)" yamllint -- yaml_lint
run "Dockerfile (hadolint) and compose file (Compose schema)" hadolint check-jsonschema -- docker_files
run "nginx configs (nginx -t)" nginx -- nginx_configs
run "Prometheus configs, alert rules and their tests (promtool)" promtool -- prometheus_files
run "Alertmanager config and routes (amtool), Prometheus wired to it" amtool -- alertmanager_config
run "Grafana dashboard queries (promtool)" promtool -- grafana_dashboard
run "Kubernetes manifests (kubernetes-validate, schema, consistency)" kubernetes-validate \
  check-jsonschema -- kubernetes
run "Python under deploy/ (ruff)" ruff -- python_files
run "docs: the settings of server.py and their defaults, rate limits, sections, links" "$PY" -- \
  operations_guide

echo
if [ ${#skipped[@]} -gt 0 ]; then
  echo "deploy checks skipped: ${skipped[*]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "deploy checks FAILED: ${failed[*]}"
  exit 1
fi
echo "deploy checks passed"

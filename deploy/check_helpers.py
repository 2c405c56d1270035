"""Checks of the deployment files that need more than a linter (deploy/check.sh runs them).

    check_helpers.py k8s RENDERED.yaml [...]    structure and consistency of rendered manifests
    check_helpers.py split RENDERED.yaml OUT    core kinds to OUT/core.yaml, the rest one file each
    check_helpers.py dashboard DASHBOARD OUT    the dashboard's queries as a rules file for promtool
    check_helpers.py metrics FILE [...]         each tranca_* metric named is in tranca/metrics.py
    check_helpers.py nginx-compose CONF OUT     the compose nginx config, wrapped for `nginx -t`
    check_helpers.py nginx-rig OUT              the rig's nginx config as the rig writes it
    check_helpers.py assemble OVERLAY OUT       without kustomize: the raw resources an overlay
                                                names (and its bases'), generators included
    check_helpers.py docker                     the Dockerfile's and compose file's references
    check_helpers.py alerting                   Prometheus's Alertmanagers are compose services;
                                                every alert's severity is one the routes know
    check_helpers.py docs                       docs/OPERATIONS.md names every flag and variable,
                                                the settings tables give the server's defaults,
                                                every doc quotes its rate limits; numbered
                                                sections and links to headings hold

Each prints what it found wrong and exits 1 if anything was.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "server" / "tranca"
CORE_GROUPS = ("v1", "apps/v1", "batch/v1", "policy/v1", "autoscaling/v2")


def _docs(paths: list[str]) -> list[dict[str, Any]]:
    out = []
    for p in paths:
        out += [d for d in yaml.safe_load_all(Path(p).read_text()) if d]
    return out


def _settings() -> set[str]:
    """Every TRANCA_* variable the server and the CLI read."""
    text = "".join((SERVER / name).read_text() for name in ("config.py", "server.py", "cli.py"))
    return set(re.findall(r"\"(TRANCA_[A-Z_]+)\"", text))


def _metrics() -> set[str]:
    """The names of every metric the server exports, with the suffixes Prometheus
    sees (_total for counters, _bucket/_count/_sum for histograms; no _created: the
    server turns those off)."""
    text = (SERVER / "metrics.py").read_text()
    names: set[str] = set()
    for kind, name in re.findall(r"(Counter|Gauge|Histogram)\(\s*\"([a-z_]+)\"", text):
        if kind == "Counter":
            names.add(name.removesuffix("_total") + "_total")
        elif kind == "Histogram":
            names |= {name + s for s in ("_bucket", "_count", "_sum")}
        else:
            names.add(name)
    return names


# ----- Kubernetes -------------------------------------------------------------------------


def _pod_specs(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    if doc["kind"] in ("Deployment", "StatefulSet", "Job"):
        template = doc["spec"]["template"]
        return [(f"{doc['kind']}/{doc['metadata']['name']}", template, template["spec"])]
    return []


def _matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def check_k8s(docs: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    names = {(d["kind"], d["metadata"]["name"]) for d in docs}
    settings = _settings()

    for kind in ("ConfigMap", "Secret"):
        for d in by_kind.get(kind, []):
            if not d["metadata"]["name"].startswith(("tranca-config", "tranca-secrets")):
                continue  # another program's (PgBouncer's config, say)
            data = {**d.get("data", {}), **d.get("stringData", {})}
            for key in data:
                if key not in settings:
                    problems.append(f"{kind}/{d['metadata']['name']}: {key} is no setting")

    # The servers' Deployment; the optional parts' workloads (PgBouncer, NATS) get the
    # pod checks below but not the server's.
    deployments = [d for d in by_kind.get("Deployment", []) if d["metadata"]["name"] == "tranca"]
    if len(deployments) != 1:
        problems.append(f"expected one Deployment tranca, found {len(deployments)}")
    for where, _template, spec in [s for d in docs for s in _pod_specs(d)]:
        pod_sc = spec.get("securityContext", {})
        if pod_sc.get("runAsNonRoot") is not True:
            problems.append(f"{where}: the pod does not require a non-root user")
        if spec.get("automountServiceAccountToken") is not False:
            problems.append(f"{where}: mounts a service account token it does not need")
        for c in spec["containers"]:
            cw = f"{where}/{c['name']}"
            sc = c.get("securityContext", {})
            if sc.get("readOnlyRootFilesystem") is not True:
                problems.append(f"{cw}: root filesystem not read-only")
            if sc.get("allowPrivilegeEscalation") is not False:
                problems.append(f"{cw}: privilege escalation allowed")
            if "ALL" not in sc.get("capabilities", {}).get("drop", []):
                problems.append(f"{cw}: capabilities not dropped")
            res = c.get("resources", {})
            for part in ("requests", "limits"):
                for r in ("cpu", "memory"):
                    if r not in res.get(part, {}):
                        problems.append(f"{cw}: no {part}.{r}")
            for src in c.get("envFrom", []):
                for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                    if key in src and (kind, src[key]["name"]) not in names:
                        problems.append(f"{cw}: {kind} {src[key]['name']} is not in the set")
            for env in c.get("env", []):
                if env["name"].startswith("TRANCA_") and env["name"] not in settings:
                    problems.append(f"{cw}: {env['name']} is no setting")

    for d in deployments:
        name = d["metadata"]["name"]
        if "replicas" in d["spec"]:
            problems.append(f"Deployment/{name}: sets replicas, which the HPA owns")
        template = d["spec"]["template"]
        labels = template["metadata"]["labels"]
        if not _matches(d["spec"]["selector"]["matchLabels"], labels):
            problems.append(f"Deployment/{name}: its selector misses its pods")
        c = template["spec"]["containers"][0]
        ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            grpc = c.get(probe, {}).get("grpc")
            if grpc is None:
                problems.append(f"Deployment/{name}: {probe} is not a gRPC probe")
            elif grpc["port"] != ports.get("grpc"):
                problems.append(f"Deployment/{name}: {probe} asks port {grpc['port']}")
        notes = template["metadata"].get("annotations", {})
        if notes.get("prometheus.io/scrape") != "true" or notes.get("prometheus.io/port") != str(
            ports.get("metrics")
        ):
            problems.append(f"Deployment/{name}: scrape annotations missing or wrong")
        services = [
            s for s in by_kind.get("Service", []) if _matches(s["spec"]["selector"], labels)
        ]
        if {s["spec"].get("clusterIP") == "None" for s in services} != {True, False}:
            problems.append(f"Deployment/{name}: wants a ClusterIP and a headless Service")
        for s in services:
            for p in s["spec"]["ports"]:
                if p["targetPort"] not in ports:
                    problems.append(f"Service/{s['metadata']['name']}: no port {p['targetPort']}")
        for h in by_kind.get("HorizontalPodAutoscaler", []):
            if h["spec"]["scaleTargetRef"]["name"] != name:
                problems.append(f"HPA/{h['metadata']['name']}: scales something else")
        pdbs = by_kind.get("PodDisruptionBudget", [])
        if not any(_matches(p["spec"]["selector"]["matchLabels"], labels) for p in pdbs):
            problems.append(f"Deployment/{name}: no PodDisruptionBudget covers it")
        for m in by_kind.get("ServiceMonitor", []):
            picked = [
                s
                for s in by_kind.get("Service", [])
                if _matches(m["spec"]["selector"]["matchLabels"], s["metadata"].get("labels", {}))
            ]
            if len(picked) != 1 or picked[0]["metadata"]["name"] != "tranca":
                problems.append("ServiceMonitor: must select the Service tranca alone (job=tranca)")
            for e in m["spec"]["endpoints"]:
                if picked and e["port"] not in {p["name"] for p in picked[0]["spec"]["ports"]}:
                    problems.append(f"ServiceMonitor: the Service has no port {e['port']}")
    jobs = by_kind.get("Job", [])
    migrations = [j["spec"]["template"]["spec"]["containers"][0].get("args") for j in jobs]
    if ["migrate"] not in migrations:
        problems.append("no Job runs `tranca migrate`")
    return problems


def split(rendered: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    core, other = [], []
    for d in _docs([rendered]):
        (core if d["apiVersion"] in CORE_GROUPS else other).append(d)
    (out / "core.yaml").write_text(yaml.safe_dump_all(core, sort_keys=False))
    for d in other:
        name = f"{d['kind'].lower()}-{d['metadata']['name']}.json"
        (out / name).write_text(json.dumps(d))


def assemble(kustomization_dir: Path, out: Path) -> None:
    """The resources a kustomization names, followed through its bases and components,
    with each ConfigMap generator's env file as a ConfigMap: what kustomize would
    render, less its transformations (namespace, name suffixes, images)."""
    docs: list[dict[str, Any]] = []

    def walk(d: Path) -> None:
        k = yaml.safe_load((d / "kustomization.yaml").read_text())
        for entry in [*k.get("resources", []), *k.get("components", [])]:
            target = (d / entry).resolve()
            if target.is_dir():
                walk(target)
            else:
                docs.extend(x for x in yaml.safe_load_all(target.read_text()) if x)
        for gen in k.get("configMapGenerator", []):
            data: dict[str, str] = {}
            for env in gen.get("envs", []):
                for line in (d / env).read_text().splitlines():
                    if line.strip() and not line.startswith("#"):
                        key, _, value = line.partition("=")
                        data[key.strip()] = value.strip()
            meta = {"name": gen["name"]}
            docs.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data})

    walk(kustomization_dir.resolve())
    out.write_text(yaml.safe_dump_all(docs, sort_keys=False))


def check_docker() -> list[str]:
    """Every file the Dockerfile copies from the context exists and is let in by
    .dockerignore; every file the compose file mounts or builds from exists."""
    problems = []
    docker = ROOT / "deploy" / "docker"
    ignore = [ln.strip() for ln in (docker / ".dockerignore").read_text().splitlines()]
    allowed = [ln[1:] for ln in ignore if ln.startswith("!")]
    for line in (docker / "Dockerfile").read_text().splitlines():
        parts = line.split()
        if parts[:1] != ["COPY"] or any(p.startswith("--from") for p in parts):
            continue
        for src in parts[1:-1]:
            src = src.rstrip("/")
            if not (ROOT / src).exists():
                problems.append(f"Dockerfile: COPY {src}: no such file in the context")
            if not any(src == a or src.startswith(a + "/") for a in allowed):
                problems.append(f"Dockerfile: COPY {src}: .dockerignore leaves it out")
    compose = yaml.safe_load((docker / "compose.yaml").read_text())
    for name, service in compose["services"].items():
        build = service.get("build")
        if build:
            context = (docker / build["context"]).resolve()
            if not (context / build["dockerfile"]).exists():
                problems.append(f"compose {name}: no {build['dockerfile']} in {context}")
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith(".") and not (docker / source).exists():
                problems.append(f"compose {name}: mounts {source}, which does not exist")
    return problems


def _serve_defaults() -> dict[str, Any]:
    """`tranca serve`'s default for each flag, from its declaration in
    tranca/config.py (each option declared once, with its flag and variable)."""
    from dataclasses import MISSING

    from tranca.config import flag, options

    return {flag(f): f.default for f in options() if f.default is not MISSING}


def _serve_flags() -> list[str]:
    """Every flag of `tranca serve`, as tranca/config.py declares them."""
    from tranca.config import flag, options

    return [flag(f) for f in options()]


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _doc_files() -> list[Path]:
    """Every Markdown file of the documentation: docs/, the READMEs, deploy/, clients/."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for top in ("deploy", "clients"):
        files += [f for f in sorted((ROOT / top).rglob("*.md")) if "node_modules" not in f.parts]
    return files


def _anchors(text: str) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def check_sections(files: list[Path]) -> list[str]:
    """Numbered sections (`## N. ...`) run 1, 2, 3... once each, and every link to a
    heading (`(#anchor)`, `(OTHER.md#anchor)`) finds it."""
    problems = []
    for path in files:
        text = path.read_text()
        where = path.relative_to(ROOT)
        numbers = [
            int(n)
            for n in re.findall(r"^## (\d+)\. ", re.sub(r"```.*?```", "", text, flags=re.S), re.M)
        ]
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append(f"{where}: sections numbered {numbers}")
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
            linked = (path.parent / target).resolve() if target else path
            if target and (linked.suffix != ".md" or not linked.exists()):
                continue
            if anchor not in _anchors(linked.read_text()):
                problems.append(f"{where}: a link to {target}#{anchor}, which is no heading")
    return problems


def check_docs() -> list[str]:
    """The operations guide's configuration table names every flag of `tranca serve`
    and every TRANCA_* variable the server and the CLI read; the settings tables of
    docs/OPERATIONS.md and docs/SERVICE.md give the server's numeric defaults; every
    rate limit quoted in the documentation ("N/s, bursts of M", "N calls a second
    (bursts of M)") is the server's default, and both are quoted; numbered sections and
    links to headings hold together (check_sections)."""
    guide = (ROOT / "docs" / "OPERATIONS.md").read_text()
    flags = _serve_flags()
    problems = [
        f"docs/OPERATIONS.md does not mention {name}"
        for name in sorted(set(flags) | _settings())
        if f"`{name}`" not in guide
    ]
    defaults = _serve_defaults()
    for doc in ("OPERATIONS.md", "SERVICE.md"):
        text = (ROOT / "docs" / doc).read_text()
        for flag, shown in re.findall(r"^\| `(--[a-z-]+)`[^|]*\|[^|]*\| `([^`]*)`", text, re.M):
            want, got = defaults.get(flag), _number(shown)
            if isinstance(want, int | float) and not isinstance(want, bool) and got != want:
                problems.append(f"docs/{doc}: {flag} defaults to {want:g}, not {shown}")
    limits = {
        (defaults[f"--rate-per-{who}"], 2 * defaults[f"--rate-per-{who}"])
        for who in ("token", "app")
    }
    quoted = set()
    pattern = r"(\d[\d,]*)(?:/s|\s+calls\s+a\s+second),?\s+\(?bursts\s+of\s+(\d[\d,]*)"
    for path in _doc_files():
        for rate, burst in re.findall(pattern, path.read_text()):
            pair = (_number(rate), _number(burst))
            quoted.add(pair)
            if pair not in limits:
                where = path.relative_to(ROOT)
                problems.append(
                    f"{where}: a rate limit of {rate}/s, bursts of {burst}: not the server's"
                )
    problems += [
        f"no document quotes the rate limit {rate:g}/s, bursts of {burst:g}"
        for rate, burst in sorted(limits - quoted)
    ]
    return problems + check_sections(_doc_files())


# ----- Alertmanager -----------------------------------------------------------------------

# The receiver each severity of alerts.yml goes to (deploy/alertmanager/alertmanager.yml).
RECEIVERS = {"critical": "on-call", "warning": "team"}


def check_alerting() -> list[str]:
    """The compose Prometheus sends its alerts to Alertmanagers that are compose services
    on the port they listen on; each --config.file a compose service reads is mounted;
    every severity of alerts.yml is routed (amtool) to the receiver RECEIVERS names."""
    problems = []
    deploy = ROOT / "deploy"
    services = yaml.safe_load((deploy / "docker" / "compose.yaml").read_text())["services"]
    prometheus = yaml.safe_load((deploy / "prometheus" / "prometheus.yml").read_text())
    targets = [
        target
        for am in prometheus.get("alerting", {}).get("alertmanagers", [])
        for static in am.get("static_configs", [])
        for target in static.get("targets", [])
    ]
    if not targets:
        problems.append("prometheus.yml: alerts go to no Alertmanager")
    for target in targets:
        host, _, port = target.partition(":")
        args = services.get(host, {}).get("command", [])
        listen = next((a.rsplit(":", 1)[1] for a in args if "--web.listen-address" in a), "9093")
        if host not in services:
            problems.append(f"prometheus.yml: Alertmanager {target} is no compose service")
        elif port != listen:
            problems.append(f"prometheus.yml: Alertmanager {target}, which listens on {listen}")
    for name, service in services.items():
        mounted = {v.split(":")[1] for v in service.get("volumes", []) if v.count(":") >= 1}
        for arg in service.get("command", []) if isinstance(service.get("command"), list) else []:
            if arg.startswith("--config.file=") and arg.split("=", 1)[1] not in mounted:
                problems.append(f"compose {name}: reads {arg.split('=', 1)[1]}, not mounted")
    alerts = yaml.safe_load((deploy / "prometheus" / "alerts.yml").read_text())
    severities = {r["labels"]["severity"] for g in alerts["groups"] for r in g["rules"]}
    for severity in sorted(severities):
        receiver = RECEIVERS.get(severity)
        if receiver is None:
            problems.append(f"alerts.yml: severity {severity} has no receiver in RECEIVERS")
            continue
        routed = subprocess.run(
            [
                "amtool",
                "config",
                "routes",
                "test",
                f"--config.file={deploy / 'alertmanager' / 'alertmanager.yml'}",
                "--alertmanager.url=",
                f"--verify.receivers={receiver}",
                f"severity={severity}",
            ],
            capture_output=True,
            text=True,
        )
        if routed.returncode != 0:
            got = (routed.stdout.strip() or routed.stderr.strip() or "?").splitlines()[0]
            problems.append(f"alertmanager.yml: severity {severity} goes to {got}, not {receiver}")
    return problems


# ----- Prometheus and Grafana -------------------------------------------------------------


def dashboard_rules(path: Path, out: Path) -> list[str]:
    """Checks the dashboard's structure; writes every query as a recording rule, with
    Grafana's variables filled in, so that promtool parses each one."""
    board = json.loads(path.read_text())
    problems = []
    rules = []
    ids = [p["id"] for p in board["panels"]]
    if len(ids) != len(set(ids)):
        problems.append("panel ids repeat")
    variables = {v["name"] for v in board["templating"]["list"]}
    for panel in board["panels"]:
        if panel["type"] == "row":
            continue
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"panel {panel['title']!r}: not on the $datasource variable")
        if not panel.get("targets"):
            problems.append(f"panel {panel['title']!r}: no query")
        for t in panel.get("targets", []):
            expr = t["expr"]
            for var in re.findall(r"\$\{?([a-z_]+)\}?", expr):
                if var not in variables and not var.startswith("__"):
                    problems.append(f"panel {panel['title']!r}: unknown variable ${var}")
            expr = expr.replace("$__rate_interval", "5m").replace("$job", "tranca")
            expr = expr.replace("$instance", ".*")
            rules.append({"record": f"dashboard:panel_{panel['id']}:{t['refId']}", "expr": expr})
    out.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    return problems


def metric_names(paths: list[str]) -> list[str]:
    known = _metrics()
    problems = []
    for p in paths:
        for name in sorted(set(re.findall(r"\b(tranca_[a-z_]+)", Path(p).read_text()))):
            if name not in known and not name.startswith("tranca_rig"):
                problems.append(f"{p}: {name} is not a metric of server/tranca/metrics.py")
    return problems


# ----- nginx ------------------------------------------------------------------------------


def nginx_compose(conf: Path, out: Path) -> None:
    """The compose config is a server block for the image's http context, upstreams
    named by compose service: wrap it, and point the names at loopback (`nginx -t`
    resolves upstream hosts)."""
    out.mkdir(parents=True, exist_ok=True)
    text = re.sub(r"\btranca-(\d):", r"127.0.0.\1:", conf.read_text())
    (out / "default.conf").write_text(text)
    (out / "nginx.conf").write_text(
        f"pid {out}/nginx.pid;\nevents {{}}\nhttp {{\n"
        f"    client_body_temp_path {out}/body;\n    access_log off;\n"
        f"    include {out}/default.conf;\n}}\n"
    )


def nginx_rig(out: Path) -> None:
    sys.path.insert(0, str(ROOT / "deploy" / "rig"))
    import rig

    rig.write_nginx_conf(out, 50050, [50061, 50062, 50063])


def main(argv: list[str]) -> int:
    command, args = argv[0], argv[1:]
    problems: list[str] = []
    if command == "k8s":
        problems = check_k8s(_docs(args))
    elif command == "split":
        split(args[0], Path(args[1]))
    elif command == "dashboard":
        problems = dashboard_rules(Path(args[0]), Path(args[1]))
    elif command == "metrics":
        problems = metric_names(args)
    elif command == "nginx-compose":
        nginx_compose(Path(args[0]), Path(args[1]))
    elif command == "nginx-rig":
        nginx_rig(Path(args[0]))
    elif command == "assemble":
        assemble(Path(args[0]), Path(args[1]))
    elif command == "docker":
        problems = check_docker()
    elif command == "docs":
        problems = check_docs()
    elif command == "alerting":
        problems = check_alerting()
    else:
        print(__doc__)
        return 2
    for p in problems:
        print(f"  {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

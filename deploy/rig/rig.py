"""The local rig: the whole deployment on this machine, without containers.

    rig.py up [--dir DIR] [--ports fixed|auto] [--ttl SECONDS] [--json]
              [--feed notify|nats] [--pgbouncer]
    rig.py down [--dir DIR]
    rig.py status [--dir DIR]
    rig.py stop|start --name NAME [--dir DIR]   (one process of the rig, e.g. nats)

``up`` creates a fresh PostgreSQL database (on TRANCA_RIG_PG, by default the local
server on 127.0.0.1:5432), migrates it with ``tranca migrate``, starts three
``tranca serve`` processes on loopback ports, nginx in front of them as the gRPC
balancer (HTTP/2 in clear, one upstream pick per call) and Prometheus scraping the
three metrics ports every second, waits until every piece answers, registers an
app and prints the addresses. ``--feed nats`` adds a NATS server of the rig's own
(Debian's nats-server) and starts the servers with ``--change-feed`` on it (no
NOTIFY then); ``--pgbouncer`` adds a PgBouncer in transaction mode (Debian's
pgbouncer) between the servers and PostgreSQL: their pools go through it
(``--db-pgbouncer``: asyncpg's prepared statement caches off, since PgBouncer 1.18
cannot keep prepared statements in transaction mode), their NOTIFY listener and the
migration go straight to PostgreSQL. ``stop``/``start`` stop one of the rig's
processes and start it again with the same command line (the tests restart the bus
that way). Every process runs in its own session with its own
config, pid, log and data files under DIR; nothing listens beyond 127.0.0.1, and
nothing relies on systemd. A watchdog brings the rig down by itself after
``--ttl`` seconds; ``down`` stops it earlier, drops the database and removes DIR.

Run it with the project's interpreter (``make rig``, ``make rig-down``): the
servers are started with the same Python, and the health checks use grpcio.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEPLOY = HERE.parent
PY = sys.executable
HOST = "127.0.0.1"
REPLICAS = 3
DEFAULT_DIR = Path(tempfile.gettempdir()) / "tranca-rig"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
# ``--ports fixed``: what `make rig` uses, so that the addresses are easy to remember.
FIXED = {
    "balancer": 50050,
    "replicas": [50061, 50062, 50063],
    "metrics": [9471, 9472, 9473],
    "prometheus": 9490,
    "nats": 4232,
    "pgbouncer": 6442,
}


class RigError(Exception):
    pass


# ----- processes --------------------------------------------------------------------------


def _start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (to tell our process from a reused pid)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":  # a zombie has exited; only its parent's wait is missing
        return None
    return fields[19]


def alive(proc: dict[str, Any]) -> bool:
    """True while the process recorded in ``proc`` (pid and start time) runs."""
    return _start_time(int(proc["pid"])) == proc["start"]


def _spawn(
    name: str, argv: list[str], log: Path, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Start ``argv`` in a session of its own, output to ``log``; returns its record."""
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
        )
    start = None
    for _ in range(50):  # /proc/PID/stat appears with the process
        start = _start_time(proc.pid)
        if start is not None:
            break
        time.sleep(0.01)
    return {"name": name, "pid": proc.pid, "start": start, "log": str(log), "argv": argv}


def _stop(procs: list[dict[str, Any]], grace: float = 10.0) -> None:
    """SIGTERM each process's group, then SIGKILL what is left after ``grace``."""

    def signal_group(proc: dict[str, Any], sig: signal.Signals) -> None:
        pid = int(proc["pid"])
        if _start_time(pid) not in (None, proc["start"]):
            return  # the pid now belongs to another process
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)  # the group of our session leader, and only it

    for proc in procs:
        signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(alive(p) for p in procs):
        time.sleep(0.1)
    for proc in procs:
        signal_group(proc, signal.SIGKILL)
    for proc in procs:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(int(proc["pid"]), os.WNOHANG)


def _tail(path: str | Path, lines: int = 15) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# ----- ports and readiness ----------------------------------------------------------------


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind((HOST, 0))
            socks.append(s)
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def choose_ports(mode: str) -> dict[str, Any]:
    if mode == "auto":
        p = _free_ports(4 + 2 * REPLICAS)
        return {
            "balancer": p[0],
            "replicas": p[1 : 1 + REPLICAS],
            "metrics": p[1 + REPLICAS : 1 + 2 * REPLICAS],
            "prometheus": p[1 + 2 * REPLICAS],
            "nats": p[2 + 2 * REPLICAS],
            "pgbouncer": p[3 + 2 * REPLICAS],
        }
    ports = dict(FIXED)
    busy = [
        port
        for port in [
            ports["balancer"],
            *ports["replicas"],
            *ports["metrics"],
            ports["prometheus"],
            ports["nats"],
            ports["pgbouncer"],
        ]
        if not _port_free(port)
    ]
    if busy:
        raise RigError(f"ports in use on {HOST}: {busy} (is a rig up? `make rig-down`)")
    return ports


def _health(address: str, timeout: float = 1.0) -> str:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=timeout)
        except grpc.RpcError as exc:
            return str(exc.code().name)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def _wait(what: str, check: Any, proc: dict[str, Any] | None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if proc is not None and not alive(proc):
            raise RigError(f"{what} exited:\n{_tail(proc['log'])}")
        try:
            ok, last = check()
        except Exception as exc:  # not up yet
            ok, last = False, repr(exc)
        if ok:
            return
        time.sleep(0.1)
    log = _tail(proc["log"]) if proc else ""
    raise RigError(f"{what} not ready after {timeout:.0f} s ({last})\n{log}")


def _http_get(url: str, timeout: float = 2.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return int(resp.status), resp.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read()


# ----- the database -----------------------------------------------------------------------


def _pg_admin_url() -> str:
    return os.environ.get("TRANCA_RIG_PG") or os.environ.get("TRANCA_TEST_PG") or DEFAULT_PG


async def _pg(sql: str) -> None:
    import asyncpg

    url = _pg_admin_url().replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def create_database() -> tuple[str, str]:
    name = f"tranca_rig_{uuid.uuid4().hex[:10]}"
    try:
        asyncio.run(_pg(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        raise RigError(f"cannot create a database on {_pg_admin_url()}: {exc}") from exc
    base = _pg_admin_url().rsplit("/", 1)[0]
    return name, f"{base}/{name}"


def drop_database(name: str) -> None:
    asyncio.run(_pg(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


# ----- state ------------------------------------------------------------------------------


def _state_path(d: Path) -> Path:
    return d / "state.json"


def load_state(d: Path) -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads(_state_path(d).read_text())
        return state
    except (OSError, ValueError):
        return None


def save_state(d: Path, state: dict[str, Any]) -> None:
    tmp = d / "state.json.tmp"
    tmp.write_text(json.dumps(state, indent=2))
    tmp.replace(_state_path(d))


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.access(p, os.X_OK)), None
    )
    if found is None:
        raise RigError(f"{name} is not installed: `make system-deps` installs it")
    return found


# ----- up ---------------------------------------------------------------------------------


def write_nginx_conf(ndir: Path, listen: int, replicas: list[int]) -> Path:
    """nginx's config for the rig, with the directories it writes to, under ``ndir``."""
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (ndir / "tmp" / sub).mkdir(parents=True, exist_ok=True)
    servers = "\n".join(
        f"        server {HOST}:{port} max_fails=1 fail_timeout=5s;" for port in replicas
    )
    user = "user root;" if os.geteuid() == 0 else "# (not root: nginx runs as this user)"
    text = (HERE / "nginx.conf.in").read_text()
    for key, value in {
        "@@USER@@": user,
        "@@DIR@@": str(ndir),
        "@@SERVERS@@": servers,
        "@@LISTEN@@": f"{HOST}:{listen}",
    }.items():
        text = text.replace(key, value)
    conf = ndir / "nginx.conf"
    conf.write_text(text)
    return conf


def up(
    d: Path, ports_mode: str, ttl: float, feed: str = "notify", pgbouncer: bool = False
) -> dict[str, Any]:
    nginx = _binary("nginx")
    prometheus = _binary("prometheus")
    extras = {
        "nats": _binary("nats-server") if feed == "nats" else "",
        "pgbouncer": _binary("pgbouncer") if pgbouncer else "",
    }
    old = load_state(d)
    if old is not None:
        if any(alive(p) for p in old["procs"]):
            raise RigError(f"a rig is already up in {d}: `make rig-down` (or rig.py down) first")
        down(d)
    # Ports chosen free ("auto") may be taken by another process before ours bind
    # them: then the rig comes up again on other ports, a few times.
    attempts = 3 if ports_mode == "auto" else 1
    for attempt in range(1, attempts + 1):
        d.mkdir(parents=True, exist_ok=True)
        (d / "logs").mkdir(exist_ok=True)
        ports = choose_ports(ports_mode)
        state: dict[str, Any] = {
            "dir": str(d),
            "procs": [],
            "database": None,
            "ports": ports,
            "feed": feed,
            "pgbouncer": pgbouncer,
        }
        save_state(d, state)
        try:
            _bring_up(d, state, ports, nginx, prometheus, ttl, extras)
        except RigError as exc:
            down(d, keep=True)
            if attempt < attempts and "already in use" in str(exc):
                continue
            raise
        except BaseException:
            down(d, keep=True)
            raise
        return state
    raise AssertionError("unreachable: the last attempt returns or raises")


def write_pgbouncer_conf(pdir: Path, listen: int, database: str) -> Path:
    """PgBouncer's config for the rig: transaction mode, trust on loopback, in front of
    the rig's database on the PostgreSQL of TRANCA_RIG_PG."""
    pdir.mkdir(parents=True, exist_ok=True)
    pdir.chmod(0o755)  # PgBouncer refuses to run as root: it runs as postgres
    admin = urllib.parse.urlsplit(_pg_admin_url().replace("postgresql+asyncpg", "postgresql"))
    user = admin.username or "postgres"
    (pdir / "users.txt").write_text(f'"{user}" ""\n')
    text = (HERE / "pgbouncer.ini.in").read_text()
    for key, value in {
        "@@DATABASE@@": database,
        "@@PGHOST@@": admin.hostname or HOST,
        "@@PGPORT@@": str(admin.port or 5432),
        "@@USER@@": user,
        "@@LISTEN@@": str(listen),
        "@@DIR@@": str(pdir),
    }.items():
        text = text.replace(key, value)
    conf = pdir / "pgbouncer.ini"
    conf.write_text(text)
    for f in pdir.iterdir():
        f.chmod(0o644)
    return conf


def _port_open(port: int) -> tuple[bool, str]:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((HOST, port)) == 0, f"nothing on port {port}"


def _bring_up(
    d: Path,
    state: dict[str, Any],
    ports: dict[str, Any],
    nginx: str,
    prometheus: str,
    ttl: float,
    extras: dict[str, str],
) -> None:
    logs = d / "logs"
    # The watchdog first: from here on the rig stops by itself, whatever happens to us.
    state["watchdog"] = _spawn(
        "watchdog",
        [PY, str(Path(__file__).resolve()), "watchdog", "--dir", str(d), "--ttl", str(ttl)],
        logs / "watchdog.log",
    )
    state["deadline"] = time.time() + ttl
    save_state(d, state)

    name, url = create_database()
    state["database"] = {"name": name, "url": url}
    save_state(d, state)
    migrated = subprocess.run(
        [PY, "-m", "tranca.cli", "migrate", "--database-url", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    (logs / "migrate.log").write_text(migrated.stdout + migrated.stderr)
    if migrated.returncode != 0:
        raise RigError(f"tranca migrate failed:\n{migrated.stderr[-2000:]}")

    serve_url, serve_flags = url, []
    if extras["nats"]:
        # The rig's own bus (core NATS: hints are not stored), so that it can be
        # stopped and started without touching anything else on the machine.
        bus = _spawn(
            "nats",
            [extras["nats"], "-a", HOST, "-p", str(ports["nats"])],
            logs / "nats.log",
        )
        bus["url"] = f"nats://{HOST}:{ports['nats']}"
        state["procs"].append(bus)
        save_state(d, state)
        _wait("nats", lambda: _port_open(ports["nats"]), bus)
        serve_flags += ["--change-feed", bus["url"]]
    if extras["pgbouncer"]:
        # Through PgBouncer the connection's startup parameters are ignored, so the
        # statement timeout is the database's own setting.
        asyncio.run(_pg(f"ALTER DATABASE \"{name}\" SET statement_timeout = '5s'"))
        conf = write_pgbouncer_conf(d / "pgbouncer", ports["pgbouncer"], name)
        argv = [extras["pgbouncer"], *(["-u", "postgres"] if os.geteuid() == 0 else []), str(conf)]
        pooler = _spawn("pgbouncer", argv, logs / "pgbouncer.log")
        base = url.rsplit("@", 1)[0]
        pooler["url"] = f"{base}@{HOST}:{ports['pgbouncer']}/{name}"
        state["procs"].append(pooler)
        save_state(d, state)
        _wait("pgbouncer", lambda: _port_open(ports["pgbouncer"]), pooler)
        serve_url = pooler["url"]
        serve_flags += ["--db-pgbouncer", "--listen-database-url", url]

    env = {**os.environ, "TRANCA_LOG_FORMAT": "json"}
    env.pop("TRANCA_DEV_API_KEY", None)
    for i, (port, mport) in enumerate(zip(ports["replicas"], ports["metrics"], strict=True)):
        proc = _spawn(
            f"replica-{i + 1}",
            [
                PY,
                "-m",
                "tranca.cli",
                "serve",
                "--host",
                HOST,
                "--port",
                str(port),
                "--metrics-port",
                str(mport),
                "--database-url",
                serve_url,
                "--workers",
                "1",
                *serve_flags,
            ],
            logs / f"replica-{i + 1}.log",
            env,
        )
        proc.update(address=f"{HOST}:{port}", metrics=f"http://{HOST}:{mport}/metrics")
        state["procs"].append(proc)
        save_state(d, state)
    for proc in [p for p in state["procs"] if p["name"].startswith("replica")]:
        address = proc["address"]
        _wait(
            proc["name"],
            lambda a=address: ((s := _health(a)) == "SERVING", s),
            proc,
        )

    # nginx: check the config, then run it in the foreground of its own session.
    ndir = d / "nginx"
    conf = write_nginx_conf(ndir, ports["balancer"], ports["replicas"])
    base = [nginx, "-p", str(ndir), "-c", str(conf), "-e", str(ndir / "error.log")]
    tested = subprocess.run([*base, "-t"], capture_output=True, text=True, timeout=30)
    if tested.returncode != 0:
        raise RigError(f"nginx -t failed:\n{tested.stderr}")
    lb = _spawn("nginx", base, logs / "nginx.log")
    lb["address"] = f"{HOST}:{ports['balancer']}"
    state["procs"].append(lb)
    save_state(d, state)
    _wait("nginx", lambda: ((s := _health(lb["address"])) == "SERVING", s), lb)

    # Prometheus: the rig's config and the alert rules, with the targets beside them.
    pdir = d / "prometheus"
    (pdir / "data").mkdir(parents=True, exist_ok=True)
    shutil.copy(DEPLOY / "prometheus" / "prometheus-rig.yml", pdir / "prometheus.yml")
    shutil.copy(DEPLOY / "prometheus" / "alerts.yml", pdir / "alerts.yml")
    targets = [
        {"targets": [f"{HOST}:{mport}"], "labels": {"replica": f"replica-{i + 1}"}}
        for i, mport in enumerate(ports["metrics"])
    ]
    (pdir / "targets.json").write_text(json.dumps(targets, indent=2))
    prom_url = f"http://{HOST}:{ports['prometheus']}"
    prom = _spawn(
        "prometheus",
        [
            prometheus,
            f"--config.file={pdir / 'prometheus.yml'}",
            f"--storage.tsdb.path={pdir / 'data'}",
            "--storage.tsdb.retention.time=2h",
            f"--web.listen-address={HOST}:{ports['prometheus']}",
            "--log.level=warn",
        ],
        logs / "prometheus.log",
    )
    prom["url"] = prom_url
    state["procs"].append(prom)
    save_state(d, state)
    _wait("prometheus", lambda: (_http_get(prom_url + "/-/ready")[0] == 200, "not ready"), prom)

    def scraped() -> tuple[bool, str]:
        status, body = _http_get(prom_url + "/api/v1/targets?state=active")
        active = json.loads(body)["data"]["activeTargets"] if status == 200 else []
        healthy = [t for t in active if t["labels"].get("job") == "tranca" and t["health"] == "up"]
        return len(healthy) == REPLICAS, f"{len(healthy)} of {REPLICAS} targets up"

    _wait("prometheus's first scrape of every replica", scraped, prom)

    made = subprocess.run(
        [PY, "-m", "tranca.cli", "create-app", "rig", "--database-url", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if made.returncode != 0:
        raise RigError(f"tranca create-app failed:\n{made.stderr[-2000:]}")
    state["api_key"] = json.loads(made.stdout.strip().splitlines()[-1])["api_key"]
    state["balancer"] = lb["address"]
    state["replicas"] = [p["address"] for p in state["procs"] if p["name"].startswith("replica")]
    state["metrics"] = [p["metrics"] for p in state["procs"] if p["name"].startswith("replica")]
    state["prometheus"] = prom_url
    save_state(d, state)


def summary(state: dict[str, Any]) -> str:
    left = max(0, int(state["deadline"] - time.time()))
    return "\n".join(
        [
            f"rig up in {state['dir']}: stops by itself in {left // 60} min {left % 60} s;"
            " `make rig-down` stops it now",
            f"  balancer    {state['balancer']}  (nginx, HTTP/2 in clear, one replica per call)",
            f"  replicas    {'  '.join(state['replicas'])}",
            f"  metrics     {'  '.join(state['metrics'])}",
            f"  prometheus  {state['prometheus']}  (scrapes every second; alerts.yml loaded)",
            f"  database    {state['database']['url']}",
            *[
                f"  {p['name']:<11} {p['url']}"
                for p in state["procs"]
                if p["name"] in ("nats", "pgbouncer")
            ],
            f"  api key     {state['api_key']}  (the x-api-key header)",
            f"  logs        {state['dir']}/logs/",
        ]
    )


# ----- down -------------------------------------------------------------------------------


def down(d: Path, keep: bool = False) -> list[str]:
    """Stop every process of the rig in ``d``, drop its database, remove ``d`` (unless
    ``keep``). Returns what it did."""
    state = load_state(d)
    if state is None:
        if (d / "state.down.json").exists() and not keep:  # the logs of a failed start
            shutil.rmtree(d, ignore_errors=True)
            return [f"no rig in {d}; removed the logs of a failed start"]
        return [f"no rig in {d}"]
    done = []
    procs = list(state.get("procs", []))
    watchdog = state.get("watchdog")
    if watchdog is not None and int(watchdog["pid"]) != os.getpid():
        procs.append(watchdog)
    running = [p["name"] for p in procs if alive(p)]
    _stop(procs)
    done.append(f"stopped {', '.join(running) or 'nothing (all had exited)'}")
    db = state.get("database")
    if db:
        try:
            drop_database(db["name"])
            done.append(f"dropped database {db['name']}")
        except Exception as exc:
            done.append(f"could not drop database {db['name']}: {exc}")
    if keep:
        _state_path(d).rename(d / "state.down.json")
    else:
        shutil.rmtree(d, ignore_errors=True)
        done.append(f"removed {d}")
    return done


def stop_one(d: Path, name: str) -> str:
    """Stop the rig's process ``name`` (its record stays, for ``start_one``)."""
    state = load_state(d)
    if state is None:
        raise RigError(f"no rig in {d}")
    proc = next((p for p in state["procs"] if p["name"] == name), None)
    if proc is None:
        raise RigError(f"the rig has no process {name!r}")
    _stop([proc])
    return f"stopped {name}"


def start_one(d: Path, name: str) -> str:
    """Start the rig's process ``name`` again with its command line, once it stopped."""
    state = load_state(d)
    if state is None:
        raise RigError(f"no rig in {d}")
    procs = state["procs"]
    i = next((i for i, p in enumerate(procs) if p["name"] == name), None)
    if i is None:
        raise RigError(f"the rig has no process {name!r}")
    old = procs[i]
    if alive(old):
        raise RigError(f"{name} is running")
    new = _spawn(name, old["argv"], Path(old["log"]))
    procs[i] = {**old, "pid": new["pid"], "start": new["start"]}
    save_state(d, state)
    port = {"nats": "nats", "pgbouncer": "pgbouncer"}.get(name)
    if port is not None:
        _wait(name, lambda: _port_open(int(state["ports"][port])), procs[i])
    return f"started {name}"


def watchdog(d: Path, ttl: float) -> None:
    """Bring the rig down after ``ttl`` seconds, unless it has gone already."""
    deadline = time.monotonic() + ttl
    me = os.getpid()
    while time.monotonic() < deadline:
        time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        state = load_state(d)
        if state is None or int(state.get("watchdog", {}).get("pid", -1)) != me:
            return
    print(f"time is up ({ttl:.0f} s): bringing the rig down", flush=True)
    for line in down(d):
        print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="rig.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("up", "down", "status", "watchdog", "stop", "start"):
        s = sub.add_parser(name)
        if name in ("stop", "start"):
            s.add_argument("--name", required=True, help="a process of the rig: nats, say")
        s.add_argument("--dir", type=Path, default=Path(os.environ.get("RIG_DIR", DEFAULT_DIR)))
        if name in ("up", "watchdog"):
            s.add_argument("--ttl", type=float, default=float(os.environ.get("RIG_TTL", 1800)))
        if name == "up":
            s.add_argument("--ports", choices=["fixed", "auto"], default="fixed")
            s.add_argument("--json", action="store_true", help="print the state as one JSON line")
            s.add_argument(
                "--feed",
                choices=["notify", "nats"],
                default=os.environ.get("RIG_FEED", "notify"),
                help="the change feed between the servers: PostgreSQL's NOTIFY or NATS",
            )
            s.add_argument(
                "--pgbouncer",
                action="store_true",
                default=os.environ.get("RIG_PGBOUNCER", "") in ("1", "true"),
                help="PgBouncer (transaction mode) between the servers and PostgreSQL",
            )
    args = p.parse_args(argv)
    d = args.dir.resolve()
    try:
        if args.command == "up":
            state = up(d, args.ports, args.ttl, args.feed, args.pgbouncer)
            print(json.dumps(state) if args.json else summary(state), flush=True)
        elif args.command == "down":
            for line in down(d):
                print(line)
        elif args.command == "stop":
            print(stop_one(d, args.name))
        elif args.command == "start":
            print(start_one(d, args.name))
        elif args.command == "status":
            state = load_state(d)
            if state is None:
                print(f"no rig in {d}")
                return 1
            for proc in state["procs"]:
                where = proc.get("address") or proc.get("url") or ""
                print(
                    f"{proc['name']:<11} pid {proc['pid']:<8} {where:<24} "
                    f"{'running' if alive(proc) else 'exited'}"
                )
        else:
            watchdog(d, args.ttl)
    except RigError as exc:
        print(f"rig: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

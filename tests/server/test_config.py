"""`tranca serve`'s settings: each option of ``Config`` is a flag and an environment
variable, with a help line, and a value given either way comes back the same."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

import pytest

from tranca.config import OPTION, Config, Option, argument_parser, flag, options
from tranca.server import Config as WiringConfig

# A value other than the default for every option, consistent with the rules between
# settings (TLS files together, robot levels within their maximum, a NATS feed URL).
SAMPLES: dict[str, Any] = {
    "host": "0.0.0.0",
    "port": 50999,
    "metrics_port": 0,
    "database_url": "postgresql://u@db:5432/tranca",
    "workers": 3,
    "auto_migrate": True,
    "dev_api_key": "dev-key",
    "log_format": "console",
    "log_level": "debug",
    "tls_cert": "/tls/cert.pem",
    "tls_key": "/tls/key.pem",
    "tls_client_ca": "/tls/ca.pem",
    "rate_per_token": 12.5,
    "rate_per_app": 300.0,
    "auth_failures_per_peer": 0.0,
    "token_lifetime": 7200,
    "max_watches_per_token": 2,
    "max_watches_per_app": 50,
    "health_interval": 1.5,
    "db_timeout": 2.0,
    "db_pool_size": 4,
    "db_pgbouncer": True,
    "listen_database_url": "postgresql://u@db-direct:5432/tranca",
    "change_feed": "nats://nats:4222",
    "max_connection_age": 60.0,
    "snapshot_schema": 2,
    "sweep_interval": 0.0,
    "match_interval": 2.0,
    "robot_level": "random",
    "robot_max_level": "greedy",
    "robot_ms": 50,
    "robot_iterations": 100,
    "robot_workers": 2,
    "webhook_interval": 0.0,
    "webhook_timeout": 3.0,
    "webhook_attempts": 4,
    "webhook_backoff": 1.0,
    "event_retention_hours": 24.0,
    "outbound_allow_http": True,
    "outbound_allow": "10.0.0.0/8,192.168.1.0/24",
    "outbound_ca_file": "/tls/outbound.pem",
    "identity_keys_refresh": 5.0,
    "web_port": 8080,
    "web_root": "/srv/table",
}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No TRANCA_* setting of the machine running the tests leaks into them."""
    for f in options():
        monkeypatch.delenv(f.metadata[OPTION].env, raising=False)
    return monkeypatch


def test_the_wiring_re_exports_the_settings() -> None:
    assert WiringConfig is Config


def test_every_option_has_an_environment_variable_and_a_help() -> None:
    found = options()
    assert len(found) == len(SAMPLES)
    envs = [f.metadata[OPTION].env for f in found]
    assert len(set(envs)) == len(envs)
    for f in found:
        declared: Option = f.metadata[OPTION]
        assert declared.env == "TRANCA_" + f.name.upper()
        assert declared.help.strip()
    helps = {action.dest: action.help for action in argument_parser({})._actions}
    assert all(helps[f.name] for f in found)


def test_the_settings_without_a_flag_are_few() -> None:
    # Set by tests and embedders only; any new setting is an option.
    plain = {f.name for f in fields(Config)} - {f.name for f in options()}
    assert plain == {"max_message_bytes", "grace_seconds", "extra"}


def test_the_defaults_are_the_fields_defaults(clean_env: pytest.MonkeyPatch) -> None:
    assert Config.from_args([]) == Config()


def test_every_sample_differs_from_the_default() -> None:
    defaults = asdict(Config())
    assert all(defaults[name] != value for name, value in SAMPLES.items())


def _argv(values: dict[str, Any]) -> list[str]:
    argv: list[str] = []
    for f in options():
        value = values[f.name]
        if isinstance(value, bool):
            argv += [flag(f)] if value else []
        else:
            argv += [flag(f), str(value)]
    return argv


def test_flags_round_trip(clean_env: pytest.MonkeyPatch) -> None:
    cfg = Config.from_args(_argv(SAMPLES))
    assert {name: getattr(cfg, name) for name in SAMPLES} == SAMPLES


def test_environment_variables_round_trip(clean_env: pytest.MonkeyPatch) -> None:
    for f in options():
        value = SAMPLES[f.name]
        text = ("true" if value else "") if isinstance(value, bool) else str(value)
        clean_env.setenv(f.metadata[OPTION].env, text)
    cfg = Config.from_args([])
    assert {name: getattr(cfg, name) for name in SAMPLES} == SAMPLES


def test_a_flag_wins_over_its_environment_variable(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("TRANCA_PORT", "1234")
    clean_env.setenv("TRANCA_LOG_LEVEL", "WARNING")
    assert Config.from_args([]).port == 1234
    assert Config.from_args([]).log_level == "warning"
    assert Config.from_args(["--port", "4321"]).port == 4321


@pytest.mark.parametrize("word", ["1", "true"])
def test_a_switch_is_on_for_1_and_true(clean_env: pytest.MonkeyPatch, word: str) -> None:
    clean_env.setenv("TRANCA_AUTO_MIGRATE", word)
    assert Config.from_args([]).auto_migrate


@pytest.mark.parametrize("word", ["", "0", "yes", "TRUE"])
def test_a_switch_is_off_otherwise(clean_env: pytest.MonkeyPatch, word: str) -> None:
    clean_env.setenv("TRANCA_AUTO_MIGRATE", word)
    assert not Config.from_args([]).auto_migrate


@pytest.mark.parametrize(
    "argv",
    [
        ["--tls-cert", "c.pem"],
        ["--tls-client-ca", "ca.pem"],
        ["--change-feed", "http://nats"],
        ["--robot-level", "expert", "--robot-max-level", "greedy"],
        ["--robot-ms", "0"],
        ["--token-lifetime", "1"],
        ["--outbound-allow", "10.0.0.0/33"],
        ["--snapshot-schema", "4"],
        ["--log-level", "loud"],
    ],
)
def test_broken_rules_are_usage_errors(clean_env: pytest.MonkeyPatch, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        Config.from_args(argv)
    assert exc.value.code == 2

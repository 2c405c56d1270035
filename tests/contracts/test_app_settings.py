"""An app's settings as the fake and both databases keep them: its webhook
(services/webhooks.py) and its policy for players' sessions (services/policy.py)."""

from __future__ import annotations

from tranca.services.policy import AppPolicy

from .conftest import Backend


async def test_an_app_without_a_webhook_has_none(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    assert await backend.notes.webhook(app_id) is None


async def test_a_webhook_reads_back_enabled_at_its_url(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    await backend.notes.set_webhook(app_id, "https://hooks.example.test/a", "s3cret")
    hook = await backend.notes.webhook(app_id)
    assert hook is not None
    assert (hook.url, hook.enabled) == ("https://hooks.example.test/a", True)


async def test_setting_a_webhook_again_replaces_it(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    await backend.notes.set_webhook(app_id, "https://hooks.example.test/a", "one")
    await backend.notes.set_webhook(app_id, "https://hooks.example.test/b", "two")
    hook = await backend.notes.webhook(app_id)
    assert hook is not None and hook.url == "https://hooks.example.test/b"


async def test_a_deleted_webhook_is_gone_and_deleting_again_finds_none(
    backend: Backend,
) -> None:
    app_id, _ = await backend.new_app()
    await backend.notes.set_webhook(app_id, "https://hooks.example.test/a", "s3cret")
    assert await backend.notes.delete_webhook(app_id) is True
    assert await backend.notes.webhook(app_id) is None
    assert await backend.notes.delete_webhook(app_id) is False


async def test_one_apps_webhook_is_not_anothers(backend: Backend) -> None:
    mine, _ = await backend.new_app()
    other, _ = await backend.new_app()
    await backend.notes.set_webhook(mine, "https://hooks.example.test/a", "s3cret")
    assert await backend.notes.webhook(other) is None


async def test_a_new_apps_policy_is_the_default(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    assert await backend.sessions.app_policy(app_id) == AppPolicy()


async def test_a_policy_set_reads_back(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    policy = AppPolicy(guest_sign_in=True, players_create_tables=False)
    await backend.sessions.set_app_policy(app_id, policy)
    assert await backend.sessions.app_policy(app_id) == policy


async def test_the_last_policy_set_wins(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    await backend.sessions.set_app_policy(app_id, AppPolicy(guest_sign_in=True))
    await backend.sessions.set_app_policy(app_id, AppPolicy(device_sign_in=True))
    assert await backend.sessions.app_policy(app_id) == AppPolicy(device_sign_in=True)

"""The development server's test identity provider (services/dev_identity.py): its
tokens verify as any provider's, one name (however typed) is one identity, and
every process of one server (one development key) signs and checks alike."""

from __future__ import annotations

import time

import pytest

from tranca.services.dev_identity import DEV_JWKS, DevIdentity, DevKeyFetcher
from tranca.services.errors import Refused
from tranca.services.identity_tokens import verify_id_token
from tranca.services.key_sets import KeysUnavailable


class Nowhere:
    async def fetch(self, url: str) -> dict[str, object]:
        raise KeysUnavailable(url)


def test_a_token_verifies_and_names_the_folded_name() -> None:
    dev = DevIdentity("dev-key")
    now = int(time.time())
    token = dev.token("  Lia   Prado ", nonce="n-1", now=now)
    identity = verify_id_token(token, dev.provider(), dev.key_set(), now=now, nonce="n-1")
    assert (identity.subject, identity.name) == ("lia prado", "Lia Prado")


def test_one_development_key_one_signing_key() -> None:
    now = int(time.time())
    token = DevIdentity("dev-key").token("ana", now=now)
    other_process = DevIdentity("dev-key")
    verify_id_token(token, other_process.provider(), other_process.key_set(), now=now)
    assert DevIdentity("another-key").key_set() != other_process.key_set()


def test_a_name_out_of_shape_is_malformed() -> None:
    with pytest.raises(Refused):
        DevIdentity("k").token("   ")
    with pytest.raises(Refused):
        DevIdentity("k").token("x" * 65)


async def test_its_keys_are_read_in_process_and_others_fetched() -> None:
    dev = DevIdentity("k")
    fetcher = DevKeyFetcher(Nowhere(), dev)
    assert await fetcher.fetch(DEV_JWKS) == dev.key_set()
    with pytest.raises(KeysUnavailable):
        await fetcher.fetch("https://id.example.test/jwks")

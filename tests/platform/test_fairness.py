"""Verifiable deals: commit, entropy, reveal, and the standalone check script."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.script_module import load_script
from tranca.table.fairness import (
    VerifiableDeal,
    commitment,
    derive_seed,
    verify,
)
from tranca.table.game import Action, Setup, rebuild
from tranca_rules.cards import cards_text, shuffled_deck
from tranca_rules.engine import new_deal
from tranca_rules.presets import PRESETS

SCRIPT = Path(__file__).resolve().parents[2] / "clients" / "verify_deal.py"
SERVER_SEED = bytes(range(32))


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    # -I: isolated, so the script cannot lean on the project's packages.
    return subprocess.run(
        [sys.executable, "-I", str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def dealt(jokers: bool, entropy: list[str]) -> VerifiableDeal:
    deal = VerifiableDeal(jokers, SERVER_SEED)
    for e in entropy:
        deal.add_entropy(e)
    deal.deal()
    return deal


def test_the_seed_follows_the_documented_formula() -> None:
    entropy = ["bob: 42", "alice: é"]
    h = hashlib.sha256(SERVER_SEED)
    for item in sorted(e.encode() for e in entropy):
        h.update(len(item).to_bytes(4, "big") + item)
    assert derive_seed(SERVER_SEED, entropy) == int.from_bytes(h.digest()[:8], "big") >> 1
    assert 0 <= derive_seed(SERVER_SEED, entropy) < 2**63
    assert commitment(SERVER_SEED) == hashlib.sha256(SERVER_SEED).hexdigest()
    # The order contributions arrive in does not matter; their boundaries do.
    assert derive_seed(SERVER_SEED, ["x", "y"]) == derive_seed(SERVER_SEED, ["y", "x"])
    assert derive_seed(SERVER_SEED, ["ab", "c"]) != derive_seed(SERVER_SEED, ["a", "bc"])
    assert derive_seed(SERVER_SEED, []) != derive_seed(SERVER_SEED, [""])
    with pytest.raises(ValueError, match="32 bytes"):
        derive_seed(b"short", [])


def test_a_deal_commits_then_takes_entropy_then_reveals() -> None:
    deal = VerifiableDeal(False)
    published = deal.commitment
    deal.add_entropy("alice: 1234")
    deal.add_entropy("organiser: round 3")
    deck = deal.deal()
    with pytest.raises(ValueError, match="no more entropy"):
        deal.add_entropy("late")
    with pytest.raises(ValueError, match="at most"):
        VerifiableDeal(False).add_entropy("x" * 1000)
    reveal = deal.reveal()
    assert reveal.commitment == published and deal.revealed
    assert reveal.deck == cards_text(deck) and reveal.deck_size == 104
    assert deck == shuffled_deck(False, reveal.seed)
    check = verify(published, reveal.server_seed, reveal.entropy, 104, reveal.deck)
    assert check.ok and check.commitment_ok and check.deck_matches and check.seed == reveal.seed
    assert not verify(published, "00" * 32, reveal.entropy, 104).ok
    assert not verify(published, reveal.server_seed, ["alice: 1235"], 104, deck).ok


def test_the_revealed_deck_is_the_deck_the_game_dealt() -> None:
    rules = PRESETS["tranca-000"]
    deal = dealt(rules.jokers, ["north", "south"])
    setup = Setup(rules, 4, seed=1, deck=deal.deal())
    start = [*(Action("join", s, name=f"p{s}") for s in range(4)), Action("start")]
    game = rebuild(setup, start)
    assert game.match is not None
    reveal = deal.reveal()
    expected = new_deal(
        rules, 4, dealer=game.match.first_dealer, deck=shuffled_deck(False, reveal.seed)
    )
    assert game.match.deal.to_dict() == expected.to_dict()


def test_the_script_rebuilds_the_engines_decks_without_importing_it() -> None:
    script = load_script("verify_deal", SCRIPT)
    for seed in (0, 1, 2**62 + 5, derive_seed(SERVER_SEED, ["z"])):
        for size, jokers in ((104, False), (108, True)):
            assert script.deck_of(seed, size) == shuffled_deck(jokers, seed)
    assert script.deal_seed(SERVER_SEED, ["b", "a"]) == derive_seed(SERVER_SEED, ["a", "b"])
    assert "tranca" not in SCRIPT.read_text().replace("Tranca", "")
    imports = {
        line.split()[1]
        for line in SCRIPT.read_text().splitlines()
        if line.startswith(("import ", "from "))
    }
    assert imports <= {"__future__", "argparse", "hashlib", "hmac", "json", "random", "sys"}


@pytest.mark.parametrize(("size", "jokers"), [(104, False), (108, True)])
def test_a_deal_is_verified_from_its_revealed_seed_by_the_script(size: int, jokers: bool) -> None:
    entropy = ["alice: 1234", "bob: hello world", ""]
    reveal = dealt(jokers, entropy).reveal()
    args = ["--commitment", reveal.commitment, "--server-seed", reveal.server_seed]
    args += [f"--entropy={e}" for e in entropy] + ["--deck-size", str(size)]
    out = run_script(*args, "--deck", reveal.deck)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert f"seed: {reveal.seed}" in lines
    assert f"deck ({size} cards, first dealt first): {reveal.deck}" in lines
    assert "commitment: matches the server seed" in lines
    assert "dealt deck: matches" in lines and lines[-1] == "VERIFIED"
    # Without a deck to compare it still prints the deck and checks the commitment.
    plain = run_script(*args)
    assert plain.returncode == 0 and reveal.deck in plain.stdout


def test_the_script_refuses_a_tampered_seed_or_entropy(tmp_path: Path) -> None:
    entropy = ["alice: 1234", "bob: hello"]
    reveal = dealt(False, entropy).reveal()
    base = ["--commitment", reveal.commitment, "--deck-size", "104", "--deck", reveal.deck]
    good = ["--server-seed", reveal.server_seed, *(f"--entropy={e}" for e in entropy)]
    assert run_script(*base, *good).returncode == 0

    # Another server seed: the commitment does not match (and the deck differs).
    other = bytes([SERVER_SEED[0] ^ 1]) + SERVER_SEED[1:]
    out = run_script(*base, "--server-seed", other.hex(), *(f"--entropy={e}" for e in entropy))
    assert out.returncode == 1
    assert "commitment: DOES NOT MATCH" in out.stdout and "NOT VERIFIED" in out.stdout

    # Tampered entropy: the commitment holds but the deck is not the one dealt.
    for bad in (["alice: 1234", "bob: hellO"], ["alice: 1234"], [*entropy, "mallory"]):
        out = run_script(
            *base, "--server-seed", reveal.server_seed, *(f"--entropy={e}" for e in bad)
        )
        assert out.returncode == 1, bad
        assert "commitment: matches" in out.stdout
        assert "dealt deck: DIFFERS" in out.stdout and out.stdout.endswith("NOT VERIFIED\n")

    # A tampered announced seed is refused too.
    out = run_script(*base, *good, "--seed", str(reveal.seed + 1))
    assert out.returncode == 1 and "announced seed: DIFFERS" in out.stdout

    # The reveal as a JSON file, as the server publishes it.
    path = tmp_path / "reveal.json"
    path.write_text(json.dumps(reveal.to_dict()))
    assert run_script("--reveal", str(path)).returncode == 0
    tampered = {**reveal.to_dict(), "entropy": ["alice: 1234"]}
    path.write_text(json.dumps(tampered))
    assert run_script("--reveal", str(path)).returncode == 1
    # Bad input is a usage error.
    assert run_script("--reveal", str(path), "--server-seed", "zz").returncode == 2
    assert run_script("--commitment", "00").returncode == 2

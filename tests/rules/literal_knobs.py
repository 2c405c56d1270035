"""The knobs of the documents' literal readings (docs/RULES.md, "Literal readings"),
drawn over every preset for the property tests: the invariants, the generators' agreement
with brute force and the views' leaks must hold under any mix of them."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tranca_rules.presets import PRESETS, Rules, make_rules

# Each knob with the value that plays the letter (the presets hold the other).
LITERAL_KNOBS: dict[str, Any] = {
    "aces_wild": True,
    "pile_unfreezes_when_covered": True,
    "ace_low": True,
    "pile_view": "all",
    "one_meld_per_turn": True,
    "threes_in_runs": False,
    "untaken_morto_is_penalised": False,
}


def applicable(rules: Rules, knob: str) -> bool:
    """Whether ``knob`` may be set on ``rules`` (check_rules refuses the others)."""
    if knob == "pile_unfreezes_when_covered":
        return rules.wild_freezes_pile
    if knob == "ace_low":
        return rules.sequences
    return True


@st.composite
def literal_rules(draw: st.DrawFn) -> Rules:
    """A preset with a drawn subset (at least one) of the literal-reading knobs."""
    preset = PRESETS[draw(st.sampled_from(sorted(PRESETS)))]
    knobs = [k for k in sorted(LITERAL_KNOBS) if applicable(preset, k)]
    chosen = draw(st.lists(st.sampled_from(knobs), min_size=1, max_size=len(knobs), unique=True))
    return make_rules(preset.name, {k: LITERAL_KNOBS[k] for k in chosen})

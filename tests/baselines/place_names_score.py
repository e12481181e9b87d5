"""Score the preference reader on the hand-written place-name fixture
(``data/place_names.yaml``): a case passes when no ``absent`` value is read (wanted, avoided
or either-of) and every ``present`` value is.  Prints passes / n with a Wilson 95 % interval
(statsmodels).  Passes the fixture's names to the reader when it accepts ``names``."""

from __future__ import annotations

import inspect
from pathlib import Path

import yaml
from statsmodels.stats.proportion import proportion_confint

from trace_crs.baselines.preferences import stated_preferences

FIXTURE = Path(__file__).parent / "data" / "place_names.yaml"


def read(text: str, names: list[str]) -> set[tuple[str, object]]:
    if "names" in inspect.signature(stated_preferences).parameters:
        st = stated_preferences([text], names=tuple(names))
    else:
        st = stated_preferences([text])
    return set(st.as_constraints()) | set(st.avoid) | {c for g in st.either for c in g}


def passes(case: dict) -> bool:
    got = read(case["text"], case["names"])
    return not any(tuple(c) in got for c in case["absent"]) and all(tuple(c) in got for c in case["present"])


def main() -> None:
    cases = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    ok = [passes(c) for c in cases]
    lo, hi = proportion_confint(sum(ok), len(ok), method="wilson")
    print(f"{sum(ok)}/{len(ok)} pass (Wilson 95% {lo:.2f}-{hi:.2f})")
    for c, good in zip(cases, ok, strict=True):
        if not good:
            print(f"  FAIL {c['text']!r} -> {sorted(read(c['text'], c['names']))}")


if __name__ == "__main__":
    main()

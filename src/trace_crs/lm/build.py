"""Which llama.cpp build serves the local model, and the tag it adds to the local model id.

``make llama`` compiles llama-cpp-python *portable* (``GGML_NATIVE=OFF``): SSE3 … AVX2, FMA, F16C,
BMI2, code that every x86-64 CPU of the last decade runs the same way, so a request gets the same
greedy reply on any machine with that build.  ``make llama-native`` compiles for the build
machine's CPU (``GGML_NATIVE=ON``: AVX-512, VNNI … where present): faster prompt processing
(README "Measured here", ``bench/bench_llama_build.py``), but its kernels accumulate in another
order, so a reply may differ from the portable build's.  A build with instruction sets beyond the
portable ones appends them to the local model id (``openai/<name>-sha256-<hash>+avx512-…``): the
records say which build answered, and the LM cache, keyed on the model id, never replays one
build's reply for the other.  The portable build's id is unchanged.
"""

from __future__ import annotations

import functools
import re

# the instruction sets GGML_NATIVE=OFF compiles in (llama.cpp's CMake defaults; mk/models.mk)
PORTABLE = frozenset({"SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "BMI2"})
# features llama.cpp lists in its system info that are not instruction sets
NOT_ISA = frozenset({"LLAMAFILE", "OPENMP", "REPACK", "ACCELERATE", "KLEIDIAI"})
_FLAG = re.compile(r"([A-Z][A-Z0-9_]*) = 1\b")


def features(system_info: str) -> tuple[str, ...]:
    """The features llama.cpp reports as present (``NAME = 1``) in ``llama_print_system_info()``."""
    return tuple(dict.fromkeys(_FLAG.findall(system_info)))


def build_tag(system_info: str) -> str:
    """``""`` for a portable build, else ``+`` and the extra instruction sets, lower case, sorted."""
    extra = sorted(set(features(system_info)) - PORTABLE - NOT_ISA)
    return "+" + "-".join(name.lower() for name in extra) if extra else ""


@functools.cache
def installed_system_info() -> str:
    """``llama_print_system_info()`` of the installed llama-cpp-python ("" when it is not installed:
    an API-only install never starts a local server)."""
    try:
        import llama_cpp
    except ImportError:
        return ""
    return str(llama_cpp.llama_print_system_info().decode())


def installed_build_tag() -> str:
    """:func:`build_tag` of the installed llama.cpp build."""
    return build_tag(installed_system_info())

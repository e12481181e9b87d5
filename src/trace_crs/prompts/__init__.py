"""The LLM prompts as data: one YAML file per DSPy signature in this folder (as ALCE keeps its
prompts in ``prompts/*.json``), built into the signature class its module exports.

A prompt file holds the signature's class ``name``, its ``instructions`` (the prompt, with its
version tag such as ``[core-v2]``; the ranking and generator prompts are versioned by their
module's ``PROMPT_VERSION``) and its ``inputs`` and ``outputs`` in order, each ``{name, type,
desc}`` (``desc`` optional: DSPy then shows ``${name}``).  A file may instead name another prompt
file of the same module it ``extends``: it keeps that signature's fields and is its subclass, with
its own ``name`` and ``instructions`` (the compact dialogue prompt, paper App. G).

Types are a closed list of spellings (:data:`TYPES`); anything else, a missing or unknown key,
is a :class:`~trace_crs.errors.DataError` naming the file and field.  The class is built by
DSPy's own signature metaclass from the same namespace a ``class ...(dspy.Signature)`` statement
gives it (annotations, fields, docstring, module), so the messages DSPy sends — and the LM cache
keys made from them — are the ones the class statements produced (``tests/test_prompts.py``).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any, Literal

import dspy
import yaml

from trace_crs.errors import DataError

# the type spellings a prompt file may use -> the annotation DSPy sees
TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "bool": bool,
    "int | None": int | None,
    "str | None": str | None,
    "list[str]": list[str],
    "list[dict[str, Any]]": list[dict[str, Any]],
    "dict[str, int]": dict[str, int],
    "dict[str, str]": dict[str, str],
    "dict[str, list[str]]": dict[str, list[str]],
    'Literal["yes", "maybe", "no"]': Literal["yes", "maybe", "no"],
}
_KEYS = {"name", "instructions", "inputs", "outputs", "extends"}
_FIELD_KEYS = {"name", "type", "desc"}
_FIELDS = {"inputs": dspy.InputField, "outputs": dspy.OutputField}


def read(prompt: str) -> dict[str, Any]:
    """The parsed prompt file ``<prompt>.yaml`` of this folder."""
    path = resources.files(__name__).joinpath(f"{prompt}.yaml")
    if not path.is_file():
        raise DataError("no such prompt file", file=f"prompts/{prompt}.yaml")
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(spec, dict):
        raise DataError("a prompt file is a mapping", file=f"prompts/{prompt}.yaml")
    return spec


@functools.cache
def signature(prompt: str, module: str) -> type[dspy.Signature]:
    """The signature class of ``prompts/<prompt>.yaml``, declared in ``module`` (its ``__name__``,
    which pickling and DSPy's saved programs refer to)."""
    spec = read(prompt)
    base = signature(spec["extends"], module) if "extends" in spec else None
    return build(spec, f"prompts/{prompt}.yaml", module, base)


def build(
    spec: dict[str, Any], file: str, module: str, base: type[dspy.Signature] | None = None
) -> type[dspy.Signature]:
    """The signature class of one parsed prompt file (:func:`signature`); ``base`` is the class
    of the file it ``extends``."""
    unknown = set(spec) - _KEYS
    if unknown:
        raise DataError(f"unknown keys {sorted(unknown)} (allowed: {sorted(_KEYS)})", file=file)
    for key in ("name", "instructions"):
        if not isinstance(spec.get(key), str) or not spec[key]:
            raise DataError("missing or not a string", file=file, field=key)
    if (base is None) == ("extends" in spec):
        raise DataError("a prompt extends another exactly when it is built on its class", file=file, field="extends")
    if base is not None and ("inputs" in spec or "outputs" in spec):
        raise DataError("a prompt that extends another keeps its fields", file=file, field="extends")
    name = spec["name"]
    namespace: dict[str, Any] = {
        "__module__": module,
        "__qualname__": name,
        "__doc__": spec["instructions"],
        "__annotations__": {},
    }
    for kind, make in _FIELDS.items():
        if base is None and not isinstance(spec.get(kind), list):
            raise DataError("missing or not a list of fields", file=file, field=kind)
        for i, field in enumerate(spec.get(kind, [])):
            field_name, annotation, desc = _field(field, file, f"{kind}[{i}]")
            if field_name in namespace["__annotations__"]:
                raise DataError("declared twice", file=file, field=field_name)
            namespace["__annotations__"][field_name] = annotation
            namespace[field_name] = make() if desc is None else make(desc=desc)
    return type(dspy.Signature)(name, (base or dspy.Signature,), namespace)


def _field(field: Any, file: str, where: str) -> tuple[str, Any, str | None]:
    """One field's name, annotation and description (None: not given)."""
    if not isinstance(field, dict):
        raise DataError("a field is a mapping {name, type, desc}", file=file, field=where)
    name = field.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise DataError("missing or invalid field name", file=file, field=where)
    unknown = set(field) - _FIELD_KEYS
    if unknown:
        raise DataError(f"unknown keys {sorted(unknown)} (allowed: {sorted(_FIELD_KEYS)})", file=file, field=name)
    spelling = field.get("type")
    if not isinstance(spelling, str) or spelling not in TYPES:
        raise DataError(f"unknown type {spelling!r} (one of: {', '.join(TYPES)})", file=file, field=name)
    desc = field.get("desc")
    if desc is not None and not isinstance(desc, str):
        raise DataError("desc is a string", file=file, field=name)
    return name, TYPES[spelling], desc

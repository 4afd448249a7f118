"""Statements built from named fragments: one source for a long statement, its per-server
variants and the path that runs it one piece at a time.

A fragment is a ``.cypher`` file in a folder of the catalog (``cypher/retrieval/recall/``),
one ``CALL (inputs) { … RETURN outputs }`` block whose header names what it reads and
returns::

    // part: vector                 what a failure of this fragment degrades (none: fatal)
    // repeat: 4                    rendered once per step, @h = 1 … 4 and @p = @h − 1
    // in: visible, population
    // out: approx = []             a name, and what stands in for it when the fragment fails

A fragment has a variant only where a server differs: ``vector.lts.cypher`` beside
``vector.cypher`` is the Neo4j 5.26 form. :func:`render_statement` puts the fragments, in the
order given, into the one statement for a server (``CYPHER 25`` first on 2026.x); every
fragment reads the variables the ones before it returned, and the last one is a bare
``RETURN``. :func:`render_stages` makes each fragment a statement of its own, its inputs passed
as parameters (``$in_<name>``), for the degrade path: the same text, run one piece at a time.

A stand-in (``= …``) is a JSON literal, the name of an input (passed on unchanged) or a
parameter (``$name``). Every rendered text is made from the shipped files and the step number
alone, never from user input. A fragment only reads: every rendered statement runs in a read
transaction, where the server refuses writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from hippograph.store.catalog import RenderedQuery, TransactionKind, cypher_root

__all__ = ["Fragment", "Output", "Stage", "render_stages", "render_statement"]

_HEADER = re.compile(r"^//\s*(part|repeat|in|out):(.*)$")
_NAME = re.compile(r"^[a-z_][a-z0-9_@]*$")
STAGE_PREFIX = "in_"
"""Parameters that carry a stage's inputs are named ``in_<variable>``."""


@dataclass(frozen=True, slots=True)
class Output:
    """A variable a fragment returns, and what stands in for it when the fragment fails."""

    name: str
    fallback: str | None = None

    def stand_in(self, env: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        """The value that replaces this output after a failure: an input passed on, a
        parameter, or a JSON literal.

        Raises:
            LookupError: The output has no stand-in (its fragment's failure is fatal).
        """
        spec = self.fallback
        if spec is None:
            raise LookupError(f"{self.name} has no stand-in")
        if spec.startswith("$"):
            return params[spec[1:]]
        if _NAME.match(spec) and spec not in ("true", "false", "null"):
            return env[spec]
        return json.loads(spec)


@dataclass(frozen=True, slots=True)
class Fragment:
    """One rendered fragment (a repeated one once per step, its name ``hop@2``)."""

    name: str
    part: str | None
    inputs: tuple[str, ...]
    outputs: tuple[Output, ...]
    body: str

    def stand_ins(self, env: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
        """What replaces every output of this fragment when it failed or was skipped."""
        return {o.name: o.stand_in(env, params) for o in self.outputs}


@dataclass(frozen=True, slots=True)
class Stage:
    """A fragment as a statement of its own (the degrade path)."""

    fragment: Fragment
    query: RenderedQuery

    def params(self, env: Mapping[str, Any]) -> dict[str, Any]:
        """The stage's inputs as its parameters, from what the stages before it returned."""
        return {STAGE_PREFIX + name: env[name] for name in self.fragment.inputs}


def _code(text: str) -> str:
    """``text`` without its full-line comments and blank lines."""
    return "\n".join(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("//"))


def _names(spec: str) -> list[str]:
    return [n.strip() for n in spec.split(",") if n.strip()]


def _read(folder: str, name: str, lts: bool) -> str:
    base = cypher_root().joinpath(*folder.split("/"))
    if lts and base.joinpath(f"{name}.lts.cypher").is_file():
        return base.joinpath(f"{name}.lts.cypher").read_text(encoding="utf-8")
    return base.joinpath(f"{name}.cypher").read_text(encoding="utf-8")


@cache
def load(folder: str, name: str, lts: bool) -> tuple[Fragment, ...]:
    """Fragment ``name`` of ``folder`` as the server (``lts``: Neo4j 5.26) takes it, once per
    step when it repeats.

    Raises:
        ValueError: A malformed header.
    """
    text = _read(folder, name, lts)
    header: dict[str, str] = {}
    for line in text.splitlines():
        found = _HEADER.match(line.strip())
        if found:
            header[found.group(1)] = found.group(2).strip()
    if "in" not in header or "out" not in header:
        raise ValueError(f"fragment {folder}/{name} has no '// in:' or '// out:' line")
    outputs = []
    for spec in _names(header["out"]):
        out_name, _, fallback = spec.partition("=")
        outputs.append(Output(out_name.strip(), fallback.strip() or None))
    template = Fragment(
        name=name,
        part=header.get("part") or None,
        inputs=tuple(_names(header["in"])),
        outputs=tuple(outputs),
        body=_code(text),
    )
    for variable in (*template.inputs, *(o.name for o in template.outputs)):
        if not _NAME.match(variable):
            raise ValueError(f"fragment {folder}/{name}: {variable!r} is not a variable name")
    steps = int(header["repeat"]) if "repeat" in header else 0
    if not steps:
        return (template,)
    return tuple(_step(template, h) for h in range(1, steps + 1))


def _step(template: Fragment, h: int) -> Fragment:
    def put(text: str) -> str:
        return text.replace("@h", str(h)).replace("@p", str(h - 1))

    return Fragment(
        name=f"{template.name}@{h}",
        part=template.part,
        inputs=tuple(put(n) for n in template.inputs),
        outputs=tuple(Output(put(o.name), None if o.fallback is None else put(o.fallback)) for o in template.outputs),
        body=put(template.body),
    )


def fragments(folder: str, order: Sequence[str], *, lts: bool) -> tuple[Fragment, ...]:
    """The fragments of ``order``, rendered for the server, checked to chain: each reads only
    what an earlier one returned, and no name is returned twice.

    Raises:
        ValueError: A fragment reads a variable no earlier fragment returns, or returns one that
            exists already.
    """
    known: set[str] = set()
    found: list[Fragment] = []
    for name in order:
        for fragment in load(folder, name, lts):
            missing = [n for n in fragment.inputs if n not in known]
            if missing:
                raise ValueError(f"fragment {fragment.name} reads {missing} before any fragment returns it")
            again = [o.name for o in fragment.outputs if o.name in known]
            if again:
                raise ValueError(f"fragment {fragment.name} returns {again} again")
            known.update(o.name for o in fragment.outputs)
            found.append(fragment)
    return tuple(found)


def _prologue(lts: bool) -> str:
    return "" if lts else "CYPHER 25\n"


@cache
def render_statement(folder: str, order: tuple[str, ...], *, lts: bool) -> RenderedQuery:
    """The fragments of ``order`` as one statement for the server (``lts``: Neo4j 5.26)."""
    text = _prologue(lts) + "\n".join(f.body for f in fragments(folder, order, lts=lts))
    # made only from the catalog's own files and step numbers
    return RenderedQuery(f"{folder}@{'lts' if lts else '2026'}", text, TransactionKind.READ)


@cache
def render_stages(folder: str, order: tuple[str, ...], *, lts: bool) -> tuple[Stage, ...]:
    """Each fragment of ``order`` but the final ``RETURN`` as a statement of its own: its inputs
    bound from ``$in_<name>`` parameters, its outputs returned as one row."""
    stages = []
    for fragment in fragments(folder, order, lts=lts):
        if not fragment.outputs:
            continue
        bind = ", ".join(f"${STAGE_PREFIX}{n} AS {n}" for n in fragment.inputs)
        text = (
            _prologue(lts)
            + (f"WITH {bind}\n" if bind else "")
            + fragment.body
            + "\nRETURN "
            + ", ".join(o.name for o in fragment.outputs)
        )
        query = RenderedQuery(f"{folder}/{fragment.name}@{'lts' if lts else '2026'}", text, TransactionKind.READ)
        stages.append(Stage(fragment, query))
    return tuple(stages)

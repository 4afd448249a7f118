"""Neo4j Browser material shipped in ``cypher/browser/``: saved queries (``:param`` lines, then
one Cypher statement), the ``hippograph.grass`` style, and a ``:play`` guide built from them.

The saved queries are for people to run in Browser; the library never runs them. A saved query
file is a header of ``//`` lines (the first is its title), ``:param name => value;`` lines whose
values are JSON literals (so Python can read them too), then the statement.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources.abc import Traversable
from itertools import pairwise
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

from hippograph.dbms.local_server import BrowserSetup
from hippograph.errors import ConfigurationError
from hippograph.store.catalog import cypher_root

if TYPE_CHECKING:
    from hippograph.retrieval.types import RecallResult

__all__ = [
    "SavedQuery",
    "browser_dir",
    "connect_url",
    "guide_html",
    "local_browser",
    "post_connect_commands",
    "recall_query",
    "saved_queries",
    "style_grass",
    "style_json",
]

STYLE_FILE = "hippograph.grass"
GUIDE_FILE = "guide.html"
RECALL_QUERY = "recall_activation_paths"
_PARAM = re.compile(r"^:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?);?\s*$")


@dataclass(frozen=True)
class SavedQuery:
    """One saved query: ``name`` is its file name without ``.cypher``."""

    name: str
    title: str
    description: str
    params: dict[str, Any]
    statement: str

    @property
    def param_lines(self) -> list[str]:
        return [f":param {k} => {json.dumps(v, ensure_ascii=False)};" for k, v in self.params.items()]

    def text(self, **params: Any) -> str:
        """The query as Browser runs it: ``:param`` lines (these defaults, overridden by
        ``params``), then the statement."""
        unknown = set(params) - set(self.params)
        if unknown:
            raise ValueError(f"{self.name} has no parameter {sorted(unknown)}; it has {sorted(self.params)}")
        merged = SavedQuery(self.name, self.title, self.description, {**self.params, **params}, self.statement)
        return "\n".join([*merged.param_lines, merged.statement])


def browser_dir() -> Traversable:
    """The ``cypher/browser`` folder, found the way the query catalog finds ``cypher/``."""
    folder = cypher_root().joinpath("browser")
    if not folder.is_dir():
        raise ConfigurationError("the cypher/browser folder is missing from this installation of hippograph")
    return folder


def parse_saved_query(name: str, text: str) -> SavedQuery:
    """Split a saved query file into header, parameters and statement."""
    header: list[str] = []
    params: dict[str, Any] = {}
    body: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not body and stripped.startswith("//"):
            header.append(stripped.removeprefix("//").strip())
        elif not body and stripped.startswith(":param"):
            match = _PARAM.match(stripped)
            if match is None:
                raise ValueError(f"{name}: cannot read {stripped!r}; write :param name => <JSON literal>;")
            params[match.group(1)] = json.loads(match.group(2))
        elif body or stripped:
            body.append(line.rstrip())
    if not header or not body:
        raise ValueError(f"{name}: a saved query needs a // title line and a statement")
    title, _, lead = header[0].partition(": ")
    description = " ".join([lead, *header[1:]]).strip()
    return SavedQuery(name, title, description, params, "\n".join(body).strip())


@cache
def saved_queries() -> dict[str, SavedQuery]:
    """Every saved query of ``cypher/browser``, by name."""
    folder = browser_dir()
    out = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".cypher"):
            name = entry.name.removesuffix(".cypher")
            out[name] = parse_saved_query(name, entry.read_text(encoding="utf-8"))
    return out


def style_grass() -> str:
    """The Browser style sheet (GraSS) text."""
    return browser_dir().joinpath(STYLE_FILE).read_text(encoding="utf-8")


def style_json() -> dict[str, dict[str, str]]:
    """The style as Browser's JSON form, parsed the way Browser parses GraSS (selectors in order)."""
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", style_grass()):
        props: dict[str, str] = {}
        for decl in body.split(";"):
            key, sep, value = decl.partition(":")
            if sep:
                props[key.strip()] = value.strip().strip("'\"")
        rules[selector.strip()] = props
    return rules


def post_connect_commands(guide_url: str | None = None) -> str:
    """``browser.post_connect_cmd``: load the style (inline JSON, which has no ``;`` to split on)
    and, when given, play the guide at ``guide_url``."""
    cmds = ["style " + json.dumps(style_json(), separators=(",", ":"))]
    if guide_url:
        cmds.append(f"play {guide_url}")
    return "; ".join(cmds)


def guide_html() -> str:
    """A Browser guide (``:play <url>``): one slide on the layers and style, one per saved query,
    each runnable with a click."""
    colours = style_json()
    layers = ("Working", "Episodic", "Semantic", "Procedural", "Prospective")
    legend = "".join(
        f'<li><span style="display:inline-block;width:12px;height:12px;border-radius:6px;'
        f'background:{html.escape(colours.get(f"node.{layer}", {}).get("color", "#A5ABB6"))}"></span> '
        f"<b>{layer}</b></li>"
        for layer in layers
    )
    slides = [
        '<slide class="row-fluid"><div class="col-sm-3"><h3>hippograph</h3>'
        '<p class="lead">Long-term memory for agents, as a graph</p></div>'
        '<div class="col-sm-9"><p>Every memory is a <code>:Memory</code> node with one layer label, '
        "coloured by this server's style:</p>"
        f'<ul class="big">{legend}</ul>'
        "<p>Memories hang off their <code>:Scope</code> by <code>IN_SCOPE</code>; scopes form a tree by "
        "<code>PARENT</code>. Episodic events follow each other by <code>NEXT</code> and "
        "<code>MENTIONS</code> facts; a new fact <code>SUPERSEDES</code> the old one.</p>"
        "<p>The next slides are the saved queries of <code>cypher/browser/</code>: click one to put it in the "
        "editor, edit its <code>:param</code> lines, run it.</p></div></slide>"
    ]
    for q in saved_queries().values():
        params = "\n".join(q.param_lines)
        slides.append(
            f'<slide class="row-fluid"><div class="col-sm-3"><h3>{html.escape(q.title)}</h3>'
            f"<p><code>cypher/browser/{html.escape(q.name)}.cypher</code></p></div>"
            f'<div class="col-sm-9"><p>{html.escape(q.description)}</p>'
            "<p>1. Set the parameters (edit them in the editor first if you like):</p>"
            f'<pre class="pre-scrollable code runnable">{html.escape(params)}</pre>'
            "<p>2. Run the query:</p>"
            f'<pre class="pre-scrollable code runnable">{html.escape(q.statement)}</pre></div></slide>'
        )
    deck = "".join(slides)
    return f'<article class="guide"><carousel class="deck container-fluid">{deck}</carousel></article>\n'


def local_browser(http_port: int | None = None) -> BrowserSetup:
    """Browser on the local server with hippograph's style loaded and its guide playing on
    connect; the guide, style and saved queries are served at ``/browser/hippograph/``."""
    served = {GUIDE_FILE: guide_html(), STYLE_FILE: style_grass()}
    served.update({f"{q.name}.cypher": q.text() for q in saved_queries().values()})
    return BrowserSetup(
        http_port=http_port, files=served, post_connect=post_connect_commands("{files_url}/" + GUIDE_FILE)
    )


def connect_url(browser_url: str, bolt_uri: str, user: str = "neo4j") -> str:
    """Browser's address that opens its connect form filled in: the connect URL and the user
    from ``dbms=<scheme>://<user>@<host:port>`` (Browser 5 reads ``dbms`` or ``connectURL``),
    user-and-password sign-in from ``preselectAuthMethod=NATIVE``. Browser takes no password
    from its address: the user types it."""
    parts = urlsplit(bolt_uri)
    dbms = f"{parts.scheme}://{user}@{parts.netloc.rpartition('@')[2]}"
    return f"{browser_url}?{urlencode({'dbms': dbms, 'preselectAuthMethod': 'NATIVE'}, safe=':/@')}"


def recall_query(result: RecallResult) -> str:
    """The saved query ``recall_activation_paths`` with the ``:param`` lines of ``result``:
    paste it into Browser to see the seeds and every step activation took."""
    sources: list[str] = []
    targets: list[str] = []
    relationships: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for path in [a.path for a in result.activation.activated] + [i.path for i in result.items]:
        for prev, step in pairwise(path):
            if step.relationship is None or _pseudo(prev.node_id) or _pseudo(step.node_id):
                continue
            key = (prev.node_id, step.node_id, step.relationship)
            if key not in seen:
                seen.add(key)
                sources.append(prev.node_id)
                targets.append(step.node_id)
                relationships.append(step.relationship)
    query = saved_queries()[RECALL_QUERY]
    reached = [a.id for a in result.activation.activated if not _pseudo(a.id)]
    return query.text(
        seeds=list(result.activation.seeds),
        reached=reached,
        sources=sources,
        targets=targets,
        relationships=relationships,
    )


def _pseudo(node_id: str) -> bool:
    """Activation paths through a shared cue or session pass a ``cue:…`` step, not a memory."""
    return node_id.startswith("cue:")

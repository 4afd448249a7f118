"""hippograph.analysis without a server: a hand-built RecallResult as a networkx graph and as a
Browser query; the saved queries, style and guide of cypher/browser/."""

from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import pytest

from hippograph.analysis import browser, recall_query, to_networkx
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import (
    ActivatedNode,
    ActivationLog,
    Channel,
    PathStep,
    RecallItem,
    RecallResult,
    RecallTimings,
    ScoreParts,
)


def node(node_id: str, layer: Layer, text: str) -> MemoryNode:
    return MemoryNode(id=node_id, layer=layer, label=text, scope_key="org:a/user:b")


def recall_result() -> RecallResult:
    """seed e1 -NEXT-> e2 -MENTIONS-> f1 (recalled), and a cue association e1 -> cue -> e3."""
    e1, f1 = node("e1", Layer.EPISODIC, "Sam moved to Lisbon"), node("f1", Layer.SEMANTIC, "Sam's city")
    to_f1 = [
        PathStep(node_id="e1"),
        PathStep(node_id="e2", relationship="NEXT"),
        PathStep(node_id="f1", relationship="MENTIONS"),
    ]
    via_cue = [
        PathStep(node_id="e1"),
        PathStep(node_id="cue:lisbon", relationship="HAS_CUE"),
        PathStep(node_id="e3", relationship="HAS_CUE"),
    ]
    return RecallResult(
        query="where does Sam live?",
        scope_key="org:a/user:b",
        items=[
            RecallItem(
                node=e1,
                score=0.9,
                parts=ScoreParts(relevance=1.0),
                channels={Channel.VECTOR: 1},
                path=[PathStep(node_id="e1")],
            ),
            RecallItem(
                node=f1,
                score=0.5,
                parts=ScoreParts(relevance=0.4, edges=0.3),
                channels={Channel.ACTIVATION: 1},
                path=to_f1,
            ),
        ],
        activation=ActivationLog(
            seeds=["e1"],
            activated=[
                ActivatedNode(id="e2", activation=0.6, hop=1, path=to_f1[:2]),
                ActivatedNode(id="f1", activation=0.3, hop=2, path=to_f1),
                ActivatedNode(id="e3", activation=0.2, hop=2, path=via_cue),
            ],
        ),
        timings=RecallTimings(),
    )


def test_activation_trace_as_networkx() -> None:
    g = to_networkx(
        recall_result(), nodes=[node("e2", Layer.EPISODIC, "then the tram"), node("e3", Layer.EPISODIC, "x")]
    )
    assert isinstance(g, nx.MultiDiGraph)
    assert g.graph == {"query": "where does Sam live?", "scope_key": "org:a/user:b"}
    assert set(g.nodes) == {"e1", "e2", "f1", "e3", "cue:lisbon"}
    assert sorted(g.edges(keys=True)) == [
        ("cue:lisbon", "e3", "HAS_CUE"),
        ("e1", "cue:lisbon", "HAS_CUE"),
        ("e1", "e2", "NEXT"),
        ("e2", "f1", "MENTIONS"),
    ]
    assert g.nodes["e1"]["seed"] is True and g.nodes["e1"]["hop"] == 0 and g.nodes["e1"]["rank"] == 1
    assert g.nodes["f1"]["hop"] == 2 and g.nodes["f1"]["activation"] == 0.3 and g.nodes["f1"]["rank"] == 2
    assert g.nodes["f1"]["layer"] == "semantic" and g.nodes["f1"]["channels"] == "activation"
    assert g.nodes["e2"]["layer"] == "episodic" and g.nodes["e2"]["text"] == "then the tram"
    assert g.nodes["cue:lisbon"]["kind"] == "cue"
    assert nx.shortest_path(g, "e1", "f1") == ["e1", "e2", "f1"]


def test_trace_attributes_are_scalars_so_graphml_writes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    g = to_networkx(recall_result())
    nx.write_graphml(g, tmp_path / "trace.graphml")
    back = nx.read_graphml(tmp_path / "trace.graphml")
    assert back.number_of_nodes() == g.number_of_nodes()


def test_recall_as_browser_query_has_its_params() -> None:
    text = recall_query(recall_result())
    params = {
        line.split()[1]: json.loads(line.split("=>", 1)[1].strip().rstrip(";"))
        for line in text.splitlines()
        if line.startswith(":param")
    }
    assert params["seeds"] == ["e1"]
    assert params["reached"] == ["e2", "f1", "e3"]
    # memory edges only: the cue association has no edge to draw
    assert list(zip(params["sources"], params["targets"], params["relationships"], strict=True)) == [
        ("e1", "e2", "NEXT"),
        ("e2", "f1", "MENTIONS"),
    ]
    assert text.splitlines()[len(params)].startswith("WITH COLLECT { MATCH (e:Erasure)")


def test_saved_queries_parse() -> None:
    queries = browser.saved_queries()
    chain = queries["supersession_chain"]
    assert chain.title == "The supersession chain of a fact"
    assert chain.params == {"scope_key": "org:demo/user:sam", "fact_key": "sam.employer"}
    assert chain.statement.startswith("WITH COLLECT { MATCH (e:Erasure)")
    assert ":param" not in chain.statement
    assert chain.text(fact_key="x.y").splitlines()[1] == ':param fact_key => "x.y";'
    with pytest.raises(ValueError, match="no parameter"):
        chain.text(nope=1)


def test_bad_saved_query_is_refused() -> None:
    with pytest.raises(ValueError, match="JSON literal"):
        browser.parse_saved_query("x", "// t\n:param a = 1\nRETURN 1")
    with pytest.raises(ValueError, match="title"):
        browser.parse_saved_query("x", ":param a => 1;\nRETURN 1")


def test_style_colours_each_layer_and_parses_like_browser() -> None:
    style = browser.style_json()
    colours = {style[f"node.{layer.label}"]["color"] for layer in Layer}
    assert len(colours) == len(Layer), "every layer has its own colour"
    assert style["node.Memory"]["caption"] == "{label}"
    assert style["node.Episodic"]["caption"] == "{content}"
    # rules that set a layer's colour come after node.Memory, so they win in Browser
    order = list(style)
    assert all(order.index("node.Memory") < order.index(f"node.{layer.label}") for layer in Layer)


def test_post_connect_loads_style_then_plays_guide() -> None:
    cmds = browser.post_connect_commands("http://127.0.0.1:1/browser/hippograph/guide.html")
    style_cmd, play_cmd = cmds.split("; ")
    assert json.loads(style_cmd.removeprefix("style ")) == browser.style_json()
    assert ";" not in style_cmd, "Browser splits post-connect commands on ;"
    assert play_cmd == "play http://127.0.0.1:1/browser/hippograph/guide.html"


def test_guide_has_a_runnable_slide_per_saved_query() -> None:
    guide = browser.guide_html()
    assert guide.count("<slide") == 1 + len(browser.saved_queries())
    for query in browser.saved_queries().values():
        assert f"cypher/browser/{query.name}.cypher" in guide
    assert guide.count('class="pre-scrollable code runnable"') == 2 * len(browser.saved_queries())


def test_local_browser_serves_guide_style_and_queries() -> None:
    setup = browser.local_browser(http_port=7475)
    assert setup.http_port == 7475
    assert {"guide.html", "hippograph.grass"} <= set(setup.files)
    assert "{files_url}/guide.html" in setup.post_connect


def test_docker_compose_loads_the_same_style() -> None:
    from pathlib import Path

    compose = (Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text()
    line = next(x for x in compose.splitlines() if "NEO4J_browser_post__connect__cmd" in x)
    value = line.split(":", 1)[1].strip().removeprefix("'").removesuffix("'")
    assert value == browser.post_connect_commands()


def test_importing_analysis_does_not_import_networkx() -> None:
    code = "import sys, hippograph.analysis, hippograph.retrieval.types; print('networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

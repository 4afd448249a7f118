"""Analysis: networkx views of activation traces and scope subgraphs, and the Neo4j Browser
material of ``cypher/browser/`` (saved queries, style, guide, a recall as a query to paste).

networkx is optional (``pip install 'hippograph[analysis]'``) and imported only when a graph is
built.
"""

from __future__ import annotations

from hippograph.analysis.browser import (
    SavedQuery,
    browser_dir,
    guide_html,
    local_browser,
    post_connect_commands,
    recall_query,
    saved_queries,
    style_grass,
    style_json,
)
from hippograph.analysis.graph import scope_subgraph, to_networkx

__all__ = [
    "SavedQuery",
    "browser_dir",
    "guide_html",
    "local_browser",
    "post_connect_commands",
    "recall_query",
    "saved_queries",
    "scope_subgraph",
    "style_grass",
    "style_json",
    "to_networkx",
]

// The activation graph of one recall, drawn with Neo4j's visualization library (NVL):
// recalled and activated memories as nodes (coloured by layer, sized by score), the
// relationships spreading activation walked as arrows. A click on a node selects it.

import { NVL, type Node, type Relationship } from "@neo4j-nvl/base";

export const LAYER_COLOURS: Record<string, string> = {
  WORKING: "#F2C94C",
  EPISODIC: "#4C8EDA",
  SEMANTIC: "#57C7E3",
  PROCEDURAL: "#8DCC93",
  PROSPECTIVE: "#F79767",
};

export interface GraphNode {
  id: string;
  layer: string | null;
  caption: string;
  weight: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  type: string;
}

export class ActivationGraph {
  /** One graph on the page at a time: a new one (or leaving the view) ends the last one's rendering. */
  private static current: ActivationGraph | null = null;
  private readonly nvl: NVL;

  /** Draws into a frame of its own inside `host` (NVL takes over its frame's attributes). */
  constructor(
    readonly host: HTMLElement,
    nodes: GraphNode[],
    edges: GraphEdge[],
    onSelect: (id: string) => void,
  ) {
    const nvlNodes: Node[] = nodes.map((n) => ({
      id: n.id,
      caption: n.caption,
      color: (n.layer && LAYER_COLOURS[n.layer]) || "#A5ABB6",
      size: 18 + 22 * Math.min(1, Math.max(0, n.weight)),
    }));
    const rels: Relationship[] = edges.map((e, i) => ({ id: `r${i}`, from: e.from, to: e.to, caption: e.type }));
    ActivationGraph.current?.destroy();
    const frame = document.createElement("div");
    frame.className = "nvl-frame";
    host.replaceChildren(frame);
    this.nvl = new NVL(frame, nvlNodes, rels, {
      renderer: "canvas",
      disableTelemetry: true,
      initialZoom: 1,
      layout: "d3Force",
    }, {
      // may fire inside the constructor, before this.nvl is set: fit once it is
      onLayoutDone: () => queueMicrotask(() => this.nvl.fit(nodes.map((n) => n.id))),
      onError: (error) => console.error("graph drawing failed", error),
    });
    // what NVL holds, for people and tests reading the page
    host.dataset.nodeCount = String(this.nvl.getNodes().length);
    host.dataset.relationshipCount = String(this.nvl.getRelationships().length);
    ActivationGraph.current = this;
    frame.addEventListener("click", (event) => {
      const hit = this.nvl.getHits(event, ["node"]).nvlTargets.nodes[0];
      if (hit) onSelect(hit.data.id);
    });
  }

  select(id: string): void {
    this.nvl.deselectAll();
    this.nvl.updateElementsInGraph([{ id, selected: true }], []);
  }

  destroy(): void {
    this.nvl.destroy();
    if (ActivationGraph.current === this) ActivationGraph.current = null;
  }

  static destroyCurrent(): void {
    ActivationGraph.current?.destroy();
  }
}

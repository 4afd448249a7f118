// The activation graph of one recall, drawn with Neo4j's visualization library (NVL):
// recalled and activated memories as nodes (coloured by layer, sized by score, the seeds of
// spreading activation ringed), the relationships spreading activation walked as arrows.
// NVL draws a node's caption inside the circle and only once the node is large on screen, so
// each node carries its label as an HTML overlay (NVL's `html`), set below the circle at a
// fixed on-screen size whatever the zoom the graph opens with. Hovering an arrow names its
// relationship type; hovering a node shows its layer and full caption; a click selects it.

import { NVL, type Node, type PartialRelationship, type Relationship } from "@neo4j-nvl/base";
import { h } from "./dom";

export const LAYER_COLOURS: Record<string, string> = {
  WORKING: "#F2C94C",
  EPISODIC: "#4C8EDA",
  SEMANTIC: "#57C7E3",
  PROCEDURAL: "#8DCC93",
  PROSPECTIVE: "#F79767",
};
const UNKNOWN_LAYER = "#A5ABB6";
const EDGE_COLOUR = "#8A9099";
const LABEL_CHARS = 24;

export interface GraphNode {
  id: string;
  layer: string | null;
  /** The full caption (label or content); the drawn label is shortened, the tooltip is not. */
  caption: string;
  weight: number;
  seed: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  type: string;
}

function short(text: string): string {
  return text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1)}…` : text;
}

/** What the colours and marks mean: the layers present, the seed ring, the arrows. */
export function legend(nodes: GraphNode[], edges: GraphEdge[]): HTMLElement {
  const layers = Object.keys(LAYER_COLOURS).filter((layer) => nodes.some((n) => n.layer === layer));
  const types = [...new Set(edges.map((e) => e.type).filter(Boolean))].sort();
  return h(
    "ul",
    { class: "legend", "data-testid": "graph-legend" },
    layers.map((layer) =>
      h("li", { "data-layer": layer }, h("span", { class: "swatch", style: `background:${LAYER_COLOURS[layer]}` }), layer.toLowerCase()),
    ),
    nodes.some((n) => n.seed) ? h("li", { "data-mark": "seed" }, h("span", { class: "swatch seed" }), "seed of spreading activation") : null,
    h("li", {}, "size: score or activation"),
    edges.length ? h("li", { "data-mark": "arrow" }, `→ ${types.join(", ") || "relationship"} (hover an arrow for its type)`) : null,
  );
}

export class ActivationGraph {
  /** One graph on the page at a time: a new one (or leaving the view) ends the last one's rendering. */
  private static current: ActivationGraph | null = null;
  private readonly nvl: NVL;
  private hoveredEdge: string | null = null;

  /** Draws into a frame of its own inside `host` (NVL takes over its frame's attributes). */
  constructor(
    readonly host: HTMLElement,
    nodes: GraphNode[],
    edges: GraphEdge[],
    onSelect: (id: string) => void,
  ) {
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const nvlNodes: Node[] = nodes.map((n) => ({
      id: n.id,
      color: (n.layer && LAYER_COLOURS[n.layer]) || UNKNOWN_LAYER,
      size: 18 + 22 * Math.min(1, Math.max(0, n.weight)),
      html: h(
        "div",
        { class: n.seed ? "nvl-node seed" : "nvl-node", "data-id": n.id, "data-layer": n.layer ?? "" },
        h("span", { class: "node-label" }, short(n.caption)),
      ),
    }));
    const rels: Relationship[] = edges.map((e, i) => ({ id: `r${i}`, from: e.from, to: e.to, type: e.type, color: EDGE_COLOUR, width: 1.5 }));
    ActivationGraph.current?.destroy();
    const frame = document.createElement("div");
    frame.className = "nvl-frame";
    const tip = h("div", { class: "graph-tip", role: "tooltip", "data-testid": "graph-tip", hidden: true });
    host.replaceChildren(frame, tip);
    // labels and rings are sized in screen pixels: divide by the zoom NVL scales them with
    let fitting = false;
    const rescale = (): void => {
      if (fitting && host.dataset.fitted === undefined) {
        // fit() frames the circles only: step back so the labels under the outer nodes show
        this.nvl.setZoom(this.nvl.getScale() * 0.88);
        host.dataset.fitted = "";
      }
      const zoom = this.nvl.getScale();
      frame.style.setProperty("--unzoom", String(1 / zoom));
      host.dataset.zoom = zoom.toFixed(3);
    };
    this.nvl = new NVL(
      frame,
      nvlNodes,
      rels,
      { renderer: "canvas", disableTelemetry: true, initialZoom: 1, maxZoom: 2, layout: "d3Force" },
      {
        // may fire inside the constructor, before this.nvl is set: fit once it is
        onLayoutDone: () =>
          queueMicrotask(() => {
            fitting = true;
            this.nvl.fit(nodes.map((n) => n.id), { maxZoom: 1.5 });
          }),
        onZoomTransitionDone: () => queueMicrotask(rescale),
        onError: (error) => console.error("graph drawing failed", error),
      },
    );
    rescale();
    // what NVL holds, for people and tests reading the page
    host.dataset.nodeCount = String(this.nvl.getNodes().length);
    host.dataset.relationshipCount = String(this.nvl.getRelationships().length);
    host.dataset.seedCount = String(nodes.filter((n) => n.seed).length);
    ActivationGraph.current = this;
    frame.addEventListener("click", (event) => {
      const hit = this.nvl.getHits(event, ["node"]).nvlTargets.nodes[0];
      if (hit) onSelect(hit.data.id);
    });
    frame.addEventListener("mousemove", (event) => {
      const { nodes: onNodes, relationships } = this.nvl.getHits(event, ["node", "relationship"]).nvlTargets;
      const node = onNodes[0] ? byId.get(onNodes[0].data.id) : undefined;
      const rel = node ? undefined : relationships[0]?.data;
      this.hoverEdge(rel?.id ?? null);
      if (!node && !rel) {
        tip.hidden = true;
        return;
      }
      tip.replaceChildren(
        node
          ? h("span", {}, h("strong", {}, (node.layer ?? "memory").toLowerCase()), node.seed ? " · seed" : "", h("br"), node.caption)
          : h("span", { "data-edge": rel!.id }, h("strong", {}, rel!.type || "relationship"), h("br"), `${short(byId.get(rel!.from)?.caption ?? "")} → ${short(byId.get(rel!.to)?.caption ?? "")}`),
      );
      const box = host.getBoundingClientRect();
      tip.style.left = `${event.clientX - box.left + 12}px`;
      tip.style.top = `${event.clientY - box.top + 12}px`;
      tip.hidden = false;
    });
    frame.addEventListener("mouseleave", () => {
      tip.hidden = true;
      this.hoverEdge(null);
    });
  }

  /** Highlights the arrow under the pointer and writes its type along it. */
  private hoverEdge(id: string | null): void {
    if (id === this.hoveredEdge) return;
    const changes: PartialRelationship[] = [];
    if (this.hoveredEdge) changes.push({ id: this.hoveredEdge, hovered: false, caption: "" });
    if (id) changes.push({ id, hovered: true, caption: this.nvl.getRelationshipById(id)?.type ?? "" });
    this.hoveredEdge = id;
    this.nvl.updateElementsInGraph([], changes);
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

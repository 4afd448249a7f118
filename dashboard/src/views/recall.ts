// Run a recall and see why: the activation graph (seeds, what spreading activation reached,
// the paths it walked) beside the ranked items; a click on a node or an item shows that
// memory's explanation — channels, score parts and activation path.

import { fill, form, h, round, table } from "../dom";
import { ActivationGraph, legend, type GraphEdge, type GraphNode } from "../graph";
import type { Session } from "../session";

interface Step {
  nodeId: string;
  relationship: string | null;
}

interface MemoryBrief {
  id: string;
  layer: string;
  label: string;
  content: string;
}

interface Item {
  memory: MemoryBrief;
  score: number;
  explanation: string;
  scopeDistance: number;
  channels: { channel: string; rank: number }[];
  parts: Record<string, number | null>;
  path: Step[];
}

interface Recall {
  recall: {
    items: Item[];
    activation: { seeds: string[]; activated: { id: string; activation: number; hop: number; path: Step[] }[]; capped: boolean };
    timings: { totalMs: number };
  };
}

const RECALL = `query($scope: String!, $query: String!, $first: Int!, $hops: Int) {
  recall(scope: $scope, query: $query, first: $first, hops: $hops) {
    items {
      score explanation scopeDistance
      memory { id layer label content }
      channels { channel rank }
      parts { relevance cosine bm25 zVector zFulltext person edges session cues recency frequency proximity scopeWeight timeMatch currency }
      path { nodeId relationship }
    }
    activation { seeds activated { id activation hop path { nodeId relationship } } capped }
    timings { totalMs }
  }
}`;

const BATCH = 14; // the API allows 15 aliases per operation

/** Memories that activation reached but that are not among the items (one query per 14). */
async function fetchMemories(session: Session, ids: string[]): Promise<Map<string, MemoryBrief>> {
  const found = new Map<string, MemoryBrief>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const chunk = ids.slice(i, i + BATCH);
    const vars = chunk.map((_, j) => `$i${j}: ID!`).join(", ");
    const fields = chunk.map((_, j) => `m${j}: node(id: $i${j}) { id layer label content }`).join("\n");
    const data = await session.api.query<Record<string, MemoryBrief | null>>(
      `query(${vars}) {\n${fields}\n}`,
      Object.fromEntries(chunk.map((id, j) => [`i${j}`, id])),
    );
    for (const m of Object.values(data)) if (m) found.set(m.id, m);
  }
  return found;
}

function fullCaption(m: MemoryBrief | undefined, id: string): string {
  return m ? m.label || m.content : id;
}

function caption(m: MemoryBrief | undefined, id: string): string {
  const text = fullCaption(m, id);
  return text.length > 28 ? `${text.slice(0, 27)}…` : text;
}

/** The label, when it says something the content does not start with. */
function heading(m: MemoryBrief): string | null {
  return m.label && m.content && !m.content.startsWith(m.label) ? m.label : null;
}

/** A recalled item as a person reads it: score, layer, label and the whole text, wrapped;
 *  the whole text again on hover, and a click explains it. */
function itemEntry(i: Item, explain: (id: string) => void): HTMLElement {
  const m = i.memory;
  const text = m.content || m.label || m.id;
  const title = heading(m);
  const layer = m.layer.toLowerCase();
  return h(
    "li",
    {},
    h(
      "button",
      { type: "button", class: "memory", title: title ? `${title}: ${text}` : text, "data-id": m.id, onclick: () => explain(m.id) },
      h("span", { class: "meta" }, h("span", { class: "score" }, round(i.score)), h("span", { class: `layer ${layer}` }, layer)),
      title ? h("strong", { class: "label" }, title) : null,
      h("span", { class: "memory-text", "data-testid": "recall-item-text" }, text),
    ),
  );
}

export async function recallView(session: Session): Promise<HTMLElement> {
  const graphBox = h("div", { class: "graph", "data-testid": "recall-graph" });
  const legendBox = h("div");
  const itemsBox = h("div", { class: "items" });
  const explanation = h("aside", { class: "explanation", "data-testid": "explanation" }, h("p", { class: "empty" }, "Click a node or an item to see why it was recalled."));
  let graph: ActivationGraph | null = null; // this view's graph, for selecting its nodes

  async function run(values: Record<string, string>): Promise<void> {
    const { recall } = await session.api.query<Recall>(RECALL, {
      scope: session.scope,
      query: values.query,
      first: Number(values.first) || 10,
      hops: values.hops === "" ? null : Number(values.hops),
    });
    const items = new Map(recall.items.map((i) => [i.memory.id, i]));
    const activated = new Map(recall.activation.activated.map((a) => [a.id, a]));
    const paths = [...recall.items.map((i) => i.path), ...recall.activation.activated.map((a) => a.path)];
    const ids = new Set([...items.keys(), ...recall.activation.seeds, ...activated.keys(), ...paths.flat().map((s) => s.nodeId)]);
    const memories = new Map(recall.items.map((i) => [i.memory.id, i.memory]));
    const missing = [...ids].filter((id) => !memories.has(id));
    for (const [id, m] of await fetchMemories(session, missing)) memories.set(id, m);

    const seeds = new Set(recall.activation.seeds);
    const top = Math.max(1e-9, ...recall.items.map((i) => i.score));
    const nodes: GraphNode[] = [...ids].map((id) => ({
      id,
      layer: memories.get(id)?.layer ?? null,
      caption: fullCaption(memories.get(id), id),
      weight: items.has(id) ? items.get(id)!.score / top : (activated.get(id)?.activation ?? 0),
      seed: seeds.has(id),
    }));
    const edges = new Map<string, GraphEdge>();
    for (const path of paths) {
      for (let k = 1; k < path.length; k++) {
        const edge = { from: path[k - 1].nodeId, to: path[k].nodeId, type: path[k].relationship ?? "" };
        edges.set(`${edge.from}|${edge.type}|${edge.to}`, edge);
      }
    }

    function explain(id: string): void {
      graph?.select(id);
      const item = items.get(id);
      const act = activated.get(id);
      const m = memories.get(id);
      const pathOf = (steps: Step[]) =>
        steps.length
          ? h("ol", { class: "path" }, steps.map((s) => h("li", { title: fullCaption(memories.get(s.nodeId), s.nodeId) }, s.relationship ? `—${s.relationship}→ ` : "seed ", caption(memories.get(s.nodeId), s.nodeId))))
          : h("p", {}, "Found directly (no activation path).");
      fill(
        explanation,
        h("h3", {}, m ? m.label || m.layer.toLowerCase() : id),
        m ? h("p", { class: "memory-text", "data-testid": "explanation-text" }, m.content) : null,
        item
          ? h(
              "div",
              { "data-testid": "explanation-item" },
              h("p", {}, h("strong", {}, `score ${round(item.score)}`), ` · scope distance ${item.scopeDistance}`),
              h("p", { class: "why" }, item.explanation),
              h("h4", {}, "Channels"),
              table(["channel", "rank"], item.channels, (c) => [c.channel.toLowerCase(), c.rank]),
              h("h4", {}, "Score parts"),
              table(
                ["part", "value"],
                Object.entries(item.parts).filter(([, v]) => v !== null && v !== 0),
                ([k, v]) => [k, round(v)],
                "score-parts",
              ),
              h("h4", {}, "Path"),
              pathOf(item.path),
            )
          : h("p", {}, "Reached by spreading activation but not among the recalled items."),
        act ? h("p", {}, `activation ${round(act.activation)} ${act.hop > 0 ? `at hop ${act.hop}` : "at the seeds"}`) : null,
        !item && act ? pathOf(act.path) : null,
        recall.activation.seeds.includes(id) ? h("p", {}, "A seed of spreading activation.") : null,
      );
    }

    graph = new ActivationGraph(graphBox, nodes, [...edges.values()], explain);
    legendBox.replaceChildren(legend(nodes, [...edges.values()]));
    itemsBox.replaceChildren(
      h("p", {}, `${recall.items.length} items in ${recall.timings.totalMs.toFixed(0)} ms; ${recall.activation.activated.length} activated${recall.activation.capped ? " (capped)" : ""}.`),
      h(
        "ol",
        { "data-testid": "recall-items" },
        recall.items.map((i) => itemEntry(i, explain)),
      ),
    );
  }

  const recallForm = form(
    [
      h("input", { name: "query", placeholder: "What is my cat called?", required: true, size: 40, "data-testid": "recall-query" }),
      h("label", {}, "items ", h("input", { name: "first", type: "number", min: 1, max: 50, value: 10 })),
      h("label", {}, "hops ", h("input", { name: "hops", type: "number", min: 0, max: 4, placeholder: "default" })),
    ],
    "Recall",
    run,
  );
  return h("section", {}, h("h2", {}, "Recall"), recallForm, h("div", { class: "recall" }, h("div", {}, graphBox, legendBox), itemsBox, explanation));
}

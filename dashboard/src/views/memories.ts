// Search memories of the scope (substring of label or content, layer, listing), page through
// them, and open one: its neighbours, its supersession chain and its audit trail.

import { fill, form, h, table, when } from "../dom";
import type { Session } from "../session";
import { LAYERS } from "./overview";

interface MemoryRow {
  id: string;
  layer: string;
  label: string;
  content: string;
  scopeKey: string;
  createdAt: number;
  retracted: boolean;
  supersededBy: string | null;
}

interface Page {
  memories: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    edges: { node: MemoryRow }[];
  };
}

interface Detail {
  node: {
    id: string;
    content: string;
    neighbours: { direction: string; edge: { relationship: string; weight: number }; memory: { id: string; label: string; content: string } }[];
    supersessionChain: { id: string; content: string; validUntil: number | null }[];
    auditEntries: { action: string; actor: string; at: number }[];
  } | null;
}

const SEARCH = `query($scope: String!, $where: MemoryWhere, $after: String) {
  memories(scope: $scope, where: $where, first: 25, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { node { id layer label content scopeKey createdAt retracted supersededBy } }
  }
}`;

const DETAIL = `query($id: ID!) {
  node(id: $id) {
    id content
    neighbours(first: 10) { direction edge { relationship weight } memory { id label content } }
    supersessionChain { id content validUntil }
    auditEntries { action actor at }
  }
}`;

export async function memoriesView(session: Session): Promise<HTMLElement> {
  const results = h("div", { "data-testid": "memory-results" });
  const detail = h("aside", { class: "detail" });

  async function openDetail(id: string): Promise<void> {
    const { node } = await session.api.query<Detail>(DETAIL, { id });
    if (!node) return void detail.replaceChildren(h("p", {}, "Out of reach."));
    detail.replaceChildren(
      h("h3", {}, "Memory ", h("code", {}, node.id)),
      h("p", {}, node.content),
      h("h4", {}, "Neighbours"),
      table(["", "relationship", "weight", "memory"], node.neighbours, (n) => [
        n.direction === "OUT" ? "→" : "←",
        n.edge.relationship,
        n.edge.weight.toFixed(2),
        n.memory.label || n.memory.content,
      ]),
      h("h4", {}, "Versions"),
      table(["content", "valid until"], node.supersessionChain, (m) => [m.content, when(m.validUntil)]),
      h("h4", {}, "Audit"),
      table(["action", "actor", "at"], node.auditEntries, (a) => [a.action, a.actor, when(a.at)]),
    );
  }

  async function search(values: Record<string, string>, after: string | null = null): Promise<void> {
    const where = {
      text: values.text || null,
      layers: values.layer ? [values.layer] : null,
      listing: values.listing,
    };
    const { memories } = await session.api.query<Page>(SEARCH, { scope: session.scope, where, after });
    const rows = table(
      ["layer", "label", "content", "scope", "created", ""],
      memories.edges.map((e) => e.node),
      (m) => [
        h("span", { class: `layer ${m.layer.toLowerCase()}` }, m.layer.toLowerCase()),
        m.label,
        m.content,
        h("code", {}, m.scopeKey),
        when(m.createdAt),
        h("button", { type: "button", class: "link", onclick: () => void openDetail(m.id) }, "open"),
      ],
      "memory-rows",
    );
    const more = memories.pageInfo.hasNextPage
      ? h("button", { type: "button", onclick: () => void search(values, memories.pageInfo.endCursor) }, "next page")
      : null;
    fill(results, h("p", {}, `${memories.totalCount} memories match.`), rows, more);
  }

  const searchForm = form(
    [
      h("input", { name: "text", placeholder: "text in label or content", "data-testid": "search-text" }),
      h("select", { name: "layer", "aria-label": "layer" }, h("option", { value: "" }, "any layer"), LAYERS.map((l) => h("option", { value: l }, l.toLowerCase()))),
      h(
        "select",
        { name: "listing", "aria-label": "listing" },
        h("option", { value: "SUBTREE" }, "this scope and below"),
        h("option", { value: "VISIBLE" }, "what a recall here sees"),
        h("option", { value: "OWN" }, "this scope only"),
      ),
    ],
    "Search",
    (values) => search(values),
  );
  await search({ text: "", layer: "", listing: "SUBTREE" });
  return h("section", {}, h("h2", {}, "Memories"), searchForm, h("div", { class: "split" }, results, detail));
}

// Counts by layer for the scope's subtree, pending links, growth, and where the scope sits.

import { h, table } from "../dom";
import type { Session } from "../session";

interface LayerCount {
  layer: string;
  total: number;
  retracted: number;
  superseded: number;
}

interface Overview {
  stats: {
    counts: { total: number; retracted: number; superseded: number; byLayer: LayerCount[] };
    pendingLinks: number;
    growth: { day: string; created: number }[];
  };
  scope: { ancestors: { key: string }[]; children: { edges: { node: { key: string } }[] } } | null;
}

const QUERY = `query($scope: String!) {
  stats(scope: $scope) {
    counts { total retracted superseded byLayer { layer total retracted superseded } }
    pendingLinks
    growth(days: 14) { day created }
  }
  scope(key: $scope) { ancestors { key } children(first: 50) { edges { node { key } } } }
}`;

export const LAYERS = ["WORKING", "EPISODIC", "SEMANTIC", "PROCEDURAL", "PROSPECTIVE"];

export async function overviewView(session: Session): Promise<HTMLElement> {
  const key = session.scope;
  const { stats, scope } = await session.api.query<Overview>(QUERY, { scope: key });
  const byLayer = new Map(stats.counts.byLayer.map((c) => [c.layer, c]));
  const rows = LAYERS.map((layer) => byLayer.get(layer) ?? { layer, total: 0, retracted: 0, superseded: 0 });
  const peak = Math.max(1, ...stats.growth.map((g) => g.created));
  return h(
    "section",
    {},
    h("h2", { "data-testid": "overview-title" }, "Overview of ", h("code", {}, key), " and below"),
    h(
      "div",
      { class: "cards" },
      h("div", { class: "card", "data-testid": "total" }, h("strong", {}, stats.counts.total), " memories"),
      h("div", { class: "card" }, h("strong", {}, stats.counts.retracted), " retracted"),
      h("div", { class: "card" }, h("strong", {}, stats.counts.superseded), " superseded"),
      h("div", { class: "card" }, h("strong", {}, stats.pendingLinks), " pending links"),
    ),
    h("h3", {}, "By layer"),
    table(
      ["layer", "memories", "retracted", "superseded"],
      rows,
      (c) => [h("span", { class: `layer ${c.layer.toLowerCase()}` }, c.layer.toLowerCase()), c.total, c.retracted, c.superseded],
      "layer-counts",
    ),
    h("h3", {}, "Created per day (last 14 days)"),
    stats.growth.length
      ? h(
          "div",
          { class: "bars" },
          stats.growth.map((g) =>
            h("div", { class: "bar", title: `${g.day}: ${g.created}`, style: `height:${(100 * g.created) / peak}%` }),
          ),
        )
      : h("p", { class: "empty" }, "No memories created in the last 14 days."),
    h("h3", {}, "Scope tree"),
    h(
      "p",
      {},
      "Above: ",
      scope?.ancestors.length ? scope.ancestors.map((a) => h("code", {}, a.key)) : "none",
      h("br"),
      "Below: ",
      scope?.children.edges.length ? scope.children.edges.map((e) => h("code", {}, e.node.key)) : "none",
    ),
  );
}

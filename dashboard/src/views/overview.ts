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

const DAYS = 14;

/** The last `DAYS` UTC days, oldest first, with the API's counts (days it does not list had none). */
function lastDays(growth: { day: string; created: number }[]): { day: string; created: number }[] {
  const counts = new Map(growth.map((g) => [g.day, g.created]));
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  return Array.from({ length: DAYS }, (_, i) => {
    const day = new Date(today - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { day, created: counts.get(day) ?? 0 };
  });
}

/** One column per day: the count above its bar, the date (month-day) below, the full date as title. */
function growthChart(growth: { day: string; created: number }[]): HTMLElement {
  const days = lastDays(growth);
  const peak = Math.max(1, ...days.map((g) => g.created));
  return h(
    "div",
    { class: "bars", "data-testid": "growth", role: "img", "aria-label": `memories created per day, ${days[0].day} to ${days[DAYS - 1].day} (UTC)` },
    days.map((g) =>
      h(
        "div",
        { class: "day", title: `${g.day}: ${g.created} created`, "data-day": g.day, "data-created": g.created },
        h("span", { class: "count" }, g.created || ""),
        h("div", { class: "bar", style: `height:${(100 * g.created) / peak}%` }),
        h("time", { datetime: g.day }, g.day.slice(5)),
      ),
    ),
  );
}

export const LAYERS = ["WORKING", "EPISODIC", "SEMANTIC", "PROCEDURAL", "PROSPECTIVE"];

export async function overviewView(session: Session): Promise<HTMLElement> {
  const key = session.scope;
  const { stats, scope } = await session.api.query<Overview>(QUERY, { scope: key });
  const byLayer = new Map(stats.counts.byLayer.map((c) => [c.layer, c]));
  const rows = LAYERS.map((layer) => byLayer.get(layer) ?? { layer, total: 0, retracted: 0, superseded: 0 });
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
    h("h3", {}, `Created per day (last ${DAYS} days, UTC)`),
    stats.growth.some((g) => g.created > 0) ? growthChart(stats.growth) : h("p", { class: "empty" }, `No memories created in the last ${DAYS} days.`),
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

// Consolidation reports of the scope, newest first; writers can start a quick run.

import { errorBox, h, round, table, when } from "../dom";
import { canWrite, type Session } from "../session";

interface Report {
  runId: string;
  entryPoint: string;
  status: string;
  skipReason: string | null;
  error: string | null;
  startedAt: number;
  durationMs: number;
  phases: { number: string; name: string; status: string; skipReason: string | null; counts: Record<string, unknown>; durationMs: number }[];
  totals: Record<string, unknown>;
}

const REPORT = `runId entryPoint status skipReason error startedAt durationMs
  phases { number name status skipReason counts durationMs } totals`;
const RUNS = `query($scope: String!) { consolidationRuns(scope: $scope, first: 20) { ${REPORT} } }`;
const CONSOLIDATE = `mutation($scope: String!) {
  consolidate(scope: $scope, mode: QUICK) { __typename ... on ConsolidationBusy { message } ... on ConsolidationReport { runId } }
}`;

function counts(values: Record<string, unknown>): string {
  const shown = Object.entries(values).filter(([, v]) => v !== 0 && v !== null);
  return shown.length ? shown.map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : String(v)}`).join(", ") : "—";
}

function report(r: Report): HTMLElement {
  return h(
    "details",
    { class: "report", "data-testid": "consolidation-report" },
    h("summary", {}, `${when(r.startedAt)} · ${r.entryPoint} · ${r.status} · ${round(r.durationMs, 0)} ms`, r.skipReason ? ` · ${r.skipReason}` : ""),
    r.error ? errorBox(r.error) : null,
    h("p", {}, "Totals: ", counts(r.totals)),
    table(["", "phase", "status", "counts", "ms"], r.phases, (p) => [
      p.number,
      p.name,
      p.skipReason ? `${p.status} (${p.skipReason})` : p.status,
      counts(p.counts),
      round(p.durationMs, 0),
    ]),
  );
}

export async function consolidationView(session: Session): Promise<HTMLElement> {
  const list = h("div", {});
  const note = h("span", { class: "status" });

  async function load(): Promise<void> {
    const { consolidationRuns } = await session.api.query<{ consolidationRuns: Report[] }>(RUNS, { scope: session.scope });
    list.replaceChildren(consolidationRuns.length ? h("div", {}, consolidationRuns.map(report)) : h("p", { class: "empty" }, "No consolidation run yet."));
  }

  async function runNow(): Promise<void> {
    note.replaceChildren("consolidating…");
    const { consolidate } = await session.api.query<{ consolidate: { __typename: string; message?: string } }>(CONSOLIDATE, { scope: session.scope });
    note.replaceChildren(consolidate.__typename === "ConsolidationBusy" ? (consolidate.message ?? "busy") : "done");
    await load();
  }

  await load();
  const button = canWrite(session)
    ? h("button", { type: "button", "data-testid": "consolidate", onclick: () => void runNow().catch((e: unknown) => note.replaceChildren(errorBox(e))) }, "Run a quick consolidation now")
    : null;
  return h("section", {}, h("h2", {}, "Consolidation reports"), h("p", {}, button, note), list);
}

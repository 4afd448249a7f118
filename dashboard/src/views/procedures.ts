// Review procedures (skills): drafts first; writers approve or reject them.

import { errorBox, h, table, when } from "../dom";
import { canWrite, type Session } from "../session";

interface Procedure {
  id: string;
  label: string;
  content: string;
  scopeKey: string;
  createdAt: number;
  properties: { status?: string; active?: boolean; rejection_reason?: string };
}

const LIST = `query($scope: String!, $status: ProcedureStatus) {
  procedures(scope: $scope, status: $status) { id label content scopeKey createdAt properties }
}`;

const RESULT = `__typename ... on NotFound { message } ... on InputError { field message }`;
const APPROVE = `mutation($scope: String!, $id: ID!) { approveProcedure(scope: $scope, id: $id) { ${RESULT} } }`;
const REJECT = `mutation($scope: String!, $id: ID!, $reason: String!) { rejectProcedure(scope: $scope, id: $id, reason: $reason) { ${RESULT} } }`;

type Outcome = { __typename: string; message?: string };

export async function proceduresView(session: Session): Promise<HTMLElement> {
  const list = h("div", {});
  const status = h(
    "select",
    { "aria-label": "status", "data-testid": "procedure-status" },
    h("option", { value: "DRAFT" }, "drafts"),
    h("option", { value: "APPROVED" }, "approved"),
    h("option", { value: "REJECTED" }, "rejected"),
    h("option", { value: "" }, "all"),
  );

  async function decide(mutation: string, variables: Record<string, unknown>): Promise<void> {
    const data = await session.api.query<Record<string, Outcome>>(mutation, { scope: session.scope, ...variables });
    const outcome = Object.values(data)[0];
    if (outcome.__typename !== "MemoryPayload") throw new Error(outcome.message ?? outcome.__typename);
    await load();
  }

  function actions(p: Procedure): HTMLElement | string {
    if (!canWrite(session) || p.properties.status !== "draft") return "";
    const act = (run: () => Promise<void>) => () => void run().catch((e: unknown) => list.prepend(errorBox(e)));
    return h(
      "span",
      { class: "actions" },
      h("button", { type: "button", onclick: act(() => decide(APPROVE, { id: p.id })) }, "approve"),
      h(
        "button",
        {
          type: "button",
          onclick: act(() => decide(REJECT, { id: p.id, reason: prompt("Why reject it?") ?? "" })),
        },
        "reject",
      ),
    );
  }

  async function load(): Promise<void> {
    const { procedures } = await session.api.query<{ procedures: Procedure[] }>(LIST, {
      scope: session.scope,
      status: status.value || null,
    });
    list.replaceChildren(
      table(
        ["procedure", "steps", "status", "scope", "created", ""],
        procedures,
        (p) => [
          p.label,
          h("pre", {}, p.content),
          p.properties.status ?? "—",
          h("code", {}, p.scopeKey),
          when(p.createdAt),
          actions(p),
        ],
        "procedure-rows",
      ),
    );
  }

  status.addEventListener("change", () => void load().catch((e: unknown) => list.replaceChildren(errorBox(e))));
  await load();
  return h(
    "section",
    {},
    h("h2", {}, "Procedures"),
    h("p", {}, "Procedures the agent learned wait here as drafts until someone approves them. ", h("label", {}, "show ", status)),
    canWrite(session) ? null : h("p", { class: "note" }, "This key can read only; a writer key can approve and reject."),
    list,
  );
}

// Send a message as an agent turn and watch its typed events arrive over the websocket
// subscription: message start, activation, text deltas, extraction, fabrication checks, end.

import { errorBox, form, h } from "../dom";
import { canWrite, type Session } from "../session";

type TurnEvent = { __typename: string } & Record<string, unknown>;

const TURN = `subscription($scope: String!, $message: String!, $sessionId: String) {
  turn(scope: $scope, message: $message, sessionId: $sessionId) {
    __typename
    ... on MessageStartEvent { messageId model }
    ... on TextDeltaEvent { text }
    ... on ThinkingDeltaEvent { text }
    ... on ActivationEvent { nodes { id score layer label } }
    ... on MemoryExtractedEvent { ops strategy reason invalid { index reason } }
    ... on FabricationDetectedEvent { mode action findings { kind text } }
    ... on IntentClassifiedEvent { verdict mode }
    ... on ToolRoutingDecisionEvent { mode kept dropped }
    ... on ToolCallStartEvent { name }
    ... on ToolResultEvent { name content isError }
    ... on UsageEvent { inputTokens outputTokens }
    ... on ConsolidationScheduledEvent { opCount quickNap }
    ... on StageFailedEvent { stage message recoverable }
    ... on MessageEndEvent { stopReason }
    ... on BudgetExceeded { used budget retryAfter }
    ... on OtherEvent { type data }
  }
}`;

function summary(event: TurnEvent): string {
  const { __typename, ...fields } = event;
  void __typename;
  if ("nodes" in fields) {
    const nodes = fields.nodes as { id: string; label: string | null; layer: string | null; score: number }[];
    const name = (n: (typeof nodes)[number]) => n.label || `${n.layer?.toLowerCase() ?? "memory"} ${n.id.slice(0, 8)}`;
    return nodes.map((n) => `${name(n)} (${n.score.toFixed(2)})`).join(", ") || "nothing activated";
  }
  return JSON.stringify(fields);
}

export async function turnView(session: Session): Promise<HTMLElement> {
  const reply = h("p", { class: "reply", "data-testid": "turn-reply" });
  const events = h("ol", { class: "events", "data-testid": "turn-events" });

  async function send(values: Record<string, string>): Promise<void> {
    reply.replaceChildren();
    events.replaceChildren();
    const variables = { scope: session.scope, message: values.message, sessionId: values.sessionId || null };
    const { done } = session.api.subscribe<{ turn: TurnEvent }>(TURN, variables, ({ turn }) => {
      if (turn.__typename === "TextDeltaEvent") reply.append(String(turn.text));
      events.append(h("li", { "data-type": turn.__typename }, h("strong", {}, turn.__typename), " ", h("code", {}, summary(turn))));
    });
    await done;
  }

  const turnForm = form(
    [
      h("input", { name: "message", placeholder: "My cat is called Miso.", required: true, size: 50, "data-testid": "turn-message" }),
      h("input", { name: "sessionId", placeholder: "session id (optional)" }),
    ],
    "Send",
    send,
  );
  return h(
    "section",
    {},
    h("h2", {}, "Turn stream"),
    canWrite(session) ? turnForm : errorBox("A turn writes memories: it needs a writer key."),
    h("h3", {}, "Reply"),
    reply,
    h("h3", {}, "Events"),
    events,
  );
}

// The dashboard's shell: the key form, the scope picker, the navigation and the router
// (`#/overview`, `#/memories`, …). Every view talks to the public GraphQL API only.

import "./style.css";
import { errorBox, h } from "./dom";
import { ActivationGraph } from "./graph";
import { canWrite, forget, keyFromAddress, openSession, pickScope, rememberedKey, type Session } from "./session";
import { consolidationView } from "./views/consolidation";
import { memoriesView } from "./views/memories";
import { overviewView } from "./views/overview";
import { proceduresView } from "./views/procedures";
import { recallView } from "./views/recall";
import { turnView } from "./views/turn";

type View = (session: Session) => Promise<HTMLElement>;

const VIEWS: Record<string, { title: string; view: View }> = {
  overview: { title: "Overview", view: overviewView },
  memories: { title: "Memories", view: memoriesView },
  recall: { title: "Recall", view: recallView },
  procedures: { title: "Procedures", view: proceduresView },
  consolidation: { title: "Consolidation", view: consolidationView },
  turn: { title: "Turn stream", view: turnView },
};

const nav = document.getElementById("nav")!;
const who = document.getElementById("who")!;
const main = document.getElementById("view")!;
let session: Session | null = null;

function route(): string {
  const name = location.hash.replace(/^#\/?/, "");
  return name in VIEWS ? name : "overview";
}

function showKeyForm(message?: unknown): void {
  nav.replaceChildren();
  who.replaceChildren();
  const input = h("input", {
    name: "key",
    type: "password",
    placeholder: "hg_…",
    autocomplete: "off",
    required: true,
    "data-testid": "key-input",
  });
  const form = h(
    "form",
    { class: "login", "data-testid": "key-form" },
    h("h2", {}, "Open the dashboard with an API key"),
    h("p", {}, "Create one with ", h("code", {}, "hippograph keys create --scope org:acme --role writer"), "."),
    h("label", {}, "API key ", input),
    h("button", { type: "submit" }, "Open"),
    message ? errorBox(message) : null,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void start(input.value.trim());
  });
  main.replaceChildren(form);
  input.focus();
}

async function start(key: string): Promise<void> {
  try {
    session = await openSession(key);
  } catch (error) {
    forget();
    showKeyForm(error);
    return;
  }
  await render();
}

function renderHeader(s: Session): void {
  const current = route();
  nav.replaceChildren(
    ...Object.entries(VIEWS).map(([name, { title }]) =>
      h("a", { href: `#/${name}`, class: name === current ? "active" : undefined, "data-testid": `nav-${name}` }, title),
    ),
  );
  const picker = h(
    "select",
    { "data-testid": "scope-picker", "aria-label": "scope" },
    s.scopes.map((key) => h("option", { value: key, selected: key === s.scope }, key)),
  );
  picker.addEventListener("change", () => {
    pickScope(s, picker.value);
    void render();
  });
  const leave = h("button", { class: "link", type: "button" }, "change key");
  leave.addEventListener("click", () => {
    forget();
    session = null;
    showKeyForm();
  });
  const keyName = s.viewer.keyName || s.viewer.keyId || "development mode";
  who.replaceChildren(h("label", {}, "scope ", picker), h("span", { class: "role" }, `${keyName} · ${s.viewer.role}${canWrite(s) ? "" : " (read-only)"}`), leave);
}

let renders = 0; // a newer render (another scope or view) wins over one still loading

async function render(): Promise<void> {
  if (!session) return showKeyForm();
  const ticket = ++renders;
  ActivationGraph.destroyCurrent(); // a recall's graph stops drawing when its view goes
  renderHeader(session);
  const name = route();
  const { title, view } = VIEWS[name];
  document.title = `${title} · hippograph`;
  if (!session.scope) {
    main.replaceChildren(h("p", { class: "empty" }, "This key acts on no scope that holds memories yet."));
    return;
  }
  main.replaceChildren(h("p", { class: "status" }, "loading…"));
  try {
    const content = await view(session);
    if (ticket !== renders) return;
    content.dataset.view = name;
    main.replaceChildren(content);
  } catch (error) {
    if (ticket !== renders) return;
    main.replaceChildren(h("section", { "data-view": name }, h("h2", {}, title), errorBox(error)));
  }
}

window.addEventListener("hashchange", () => {
  const handed = keyFromAddress();
  void (handed ? start(handed) : render());
});
const opening = keyFromAddress() ?? rememberedKey();
if (opening) void start(opening);
else showKeyForm();

// A tiny DOM helper: h("div", {class: "x"}, "text", child) builds elements without a framework.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.replace(/^on/, ""), value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replaces an element's children (skipping null, undefined and false). */
export function fill(el: HTMLElement, ...children: Child[]): void {
  el.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : String(c))));
}

/** A table with a header row; `cells` maps one row to its cells. */
export function table<T>(headers: string[], rows: T[], cells: (row: T) => Child[], testid?: string): HTMLElement {
  if (rows.length === 0) return h("p", { class: "empty" }, "Nothing here yet.");
  return h(
    "table",
    { "data-testid": testid },
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h(
      "tbody",
      {},
      rows.map((row) => h("tr", {}, cells(row).map((c) => h("td", {}, c)))),
    ),
  );
}

export function when(seconds: number | null | undefined): string {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "—";
}

export function round(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined ? "—" : x.toFixed(digits);
}

export function errorBox(error: unknown): HTMLElement {
  return h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error));
}

/** A form whose submit runs `run` with the form's named values, showing failures inline. */
export function form(
  fields: Child[],
  submit: string,
  run: (values: Record<string, string>) => Promise<void>,
): HTMLFormElement {
  const status = h("span", { class: "status" });
  const el = h("form", {}, fields, h("button", { type: "submit" }, submit), status);
  el.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = Object.fromEntries([...new FormData(el)].map(([k, v]) => [k, String(v)]));
    status.replaceChildren("working…");
    run(values)
      .then(() => status.replaceChildren())
      .catch((error: unknown) => status.replaceChildren(errorBox(error)));
  });
  return el;
}

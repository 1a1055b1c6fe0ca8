/* What every JS test needs: a DOM (jsdom) made the page's globals, the package's browser modules (static/ and
   each view's folder) loaded as ES modules, and the fixtures the Python side wrote (tests/js/fixtures.py). */
import { JSDOM } from "jsdom";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE = path.join(HERE, "..", "..", "src", "jaxprlens");
const FIXTURES = process.env.JL_FIXTURES || path.join(HERE, ".fixtures");

/* IntersectionObserver is not in jsdom: this one records what is observed; `fire()` says all of it is in view. */
class FakeIO {
  constructor(callback) { this.callback = callback; this.targets = new Set(); FakeIO.all.push(this); }
  observe(t) { this.targets.add(t); }
  unobserve(t) { this.targets.delete(t); }
  disconnect() { this.targets.clear(); }
  static fire() {
    FakeIO.all.forEach((io) => {
      const entries = [...io.targets].map((target) => ({ target, isIntersecting: true }));
      if (entries.length) io.callback(entries, io);
    });
  }
}
FakeIO.all = [];

/* A fresh page holding `html`; the modules read `document`, `window`, `CSS` and `IntersectionObserver` from the
   globals, as in a browser. */
export function page(html = "") {
  const dom = new JSDOM(`<!DOCTYPE html><html><body>${html}</body></html>`, { pretendToBeVisual: true });
  const w = dom.window;
  FakeIO.all = [];
  Object.assign(globalThis, {
    window: w, document: w.document, Node: w.Node, HTMLElement: w.HTMLElement, Event: w.Event,
    MutationObserver: w.MutationObserver,
    IntersectionObserver: FakeIO, requestAnimationFrame: (f) => setTimeout(f, 0),
    CSS: { escape: (s) => String(s).replace(/["\\\]\[]/g, "\\$&") },
  });
  return w.document;
}

export const scroll = () => FakeIO.fire();      // everything observed comes into view

/* A browser module as an ES module: its folder has no package.json saying so, so a copy beside one does.  The
   modules import one another by name (present/front.py bundles them so), so the copies share one folder. */
let copied = null;
export async function load(name) {
  if (!copied) {
    copied = fs.mkdtempSync(path.join(os.tmpdir(), "jl-static-"));
    fs.writeFileSync(path.join(copied, "package.json"), '{"type": "module"}');
    for (const f of fs.readdirSync(PACKAGE, { recursive: true })) {
      if (f.endsWith(".js")) fs.copyFileSync(path.join(PACKAGE, f), path.join(copied, path.basename(f)));
    }
    process.on("exit", () => fs.rmSync(copied, { recursive: true, force: true }));
  }
  return import(pathToFileURL(path.join(copied, name)).href);
}

export function fixture(name) {
  const file = path.join(FIXTURES, name + ".json");
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing: scripts/js_tests.sh writes the fixtures (python tests/js/fixtures.py)`);
  }
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

export const text = (node) => (node ? node.textContent.replace(/\s+/g, " ").trim() : null);

/* Type into an input as a reader does: its value, then the event the module listens to. */
export function type(input, value, event = "input") {
  input.value = value;
  input.dispatchEvent(new window.Event(event, { bubbles: true }));
}

export function click(node) {
  node.dispatchEvent(new window.MouseEvent("click", { bubbles: true }));
}

/* anywidget's model for a widget whose kernel answers from a recording (tests/js/fixtures.py `_asked`: each ask and
   the messages sent for it, the command's reply last), in a front end with no invoke: the page sends anywidget's
   command message itself (static/rpc.js); each is checked against the next ask recorded, and its messages come
   back with the reply's id made the page's.  `asked`: the asks sent, in order. */
export function recorded(answers, traits) {
  const listeners = new Set(), asked = [];
  return {
    asked,
    get: (key) => traits[key],
    on: (name, f) => listeners.add(f), off: (name, f) => listeners.delete(f),
    deliver: (msg) => listeners.forEach((f) => f(msg)),
    send: (msg) => {
      const [ask, messages] = answers[asked.length];
      asked.push(msg.msg);
      if (msg.kind !== "anywidget-command" || msg.name !== "ask") throw new Error("not a command: " + JSON.stringify(msg));
      const same = (x) => JSON.stringify(x, Object.keys(x).sort());          // (the recording's keys are sorted)
      if (same(msg.msg) !== same(ask)) throw new Error(`asked ${JSON.stringify(msg.msg)}, recorded ${JSON.stringify(ask)}`);
      const id = messages[messages.length - 1].id;
      const mine = messages.map((m) => (m.id === id ? Object.assign({}, m, { id: msg.id }) : m));
      setTimeout(() => mine.forEach((m) => listeners.forEach((f) => f(m))), 0);
    },
  };
}

/* Runs a page's script (web_ui/static/common.js, then the page's own) under
 * node with a small stand-in for the DOM, and prints what the page shows.
 *
 * Standard input: {"script": "live.js", "page_data": {...} or null,
 * "logged_in": true|false, "answers": {"GET /api/camera": {...}, ...},
 * "clicks": ["save-corners", ...], "report": ["turn-line", ...]}.
 * Every element asked for by id exists (made when first asked for); board.js
 * gives its words (names, dice), and the drawings and editors (board.js's
 * drawing, editor.js, corners.js) are stood in for: what is tested is the
 * page's words and which controls it shows.
 * Standard output: {"elements": {id: {"text", "hidden", "disabled"}},
 * "selected": {selector: [{"text", "hidden", "disabled"}]}, "requests": [...]}. */
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const STATIC = path.join(__dirname, "..", "..", "web_ui", "static");

class Node {}

class Text extends Node {
  constructor(text) { super(); this.data = String(text); }
  get textContent() { return this.data; }
}

class Element extends Node {
  constructor(tag) {
    super();
    this.tag = tag; this.attrs = {}; this.children = []; this.listeners = {};
    this.hidden = false; this.disabled = false; this.value = ""; this.open = false; this.className = "";
    this.dataset = {}; this.style = {};
    const el = this;
    this.classList = {
      contains: (c) => el.className.split(" ").includes(c),
      toggle: (c, on) => { el.className = on ? `${el.className} ${c}`.trim() : el.className.replace(c, "").trim(); },
      add: (c) => el.classList.toggle(c, true),
      remove: (c) => el.classList.toggle(c, false),
    };
  }
  setAttribute(name, value) {
    this.attrs[name] = String(value);
    if (name.startsWith("data-")) this.dataset[name.slice(5)] = String(value);
    if (name === "class") this.className = String(value);
  }
  getAttribute(name) { return name in this.attrs ? this.attrs[name] : null; }
  set textContent(value) { this.children = [new Text(value)]; }
  get textContent() { return this.children.map((c) => c.textContent).join(""); }
  append(...nodes) { this.children.push(...nodes.map((n) => (n instanceof Node ? n : new Text(n)))); }
  replaceChildren(...nodes) { this.children = []; this.append(...nodes); }
  addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); }
  dispatch(type, event) { return Promise.all((this.listeners[type] || []).map((fn) => fn(event))); }
}

const byId = {};
const selected = {};
const documentListeners = {};
const getElementById = (id) => {
  if (!byId[id]) {
    byId[id] = new Element("div");
    byId[id].id = id;
  }
  return byId[id];
};
const meta = { "csrf-token": new Element("meta"), "willughby-user": new Element("meta") };
meta["csrf-token"].setAttribute("content", input.logged_in ? "token" : "");
if (input.page_data !== undefined && input.page_data !== null) {
  getElementById("page-data").textContent = JSON.stringify(input.page_data);
} else {
  byId["page-data"] = null;
}

const document = {
  getElementById,
  createElement: (tag) => new Element(tag),
  createElementNS: (ns, tag) => new Element(tag),
  createTextNode: (text) => new Text(text),
  querySelector: (selector) => {
    const name = /meta\[name="([^"]+)"\]/.exec(selector);
    return name ? meta[name[1]] || null : null;
  },
  // "[data-cube]": the page's three cube buttons; any other selector: nothing
  querySelectorAll: (selector) => {
    if (!selected[selector]) {
      selected[selector] = selector === "[data-cube]" ? ["double", "take", "drop"].map((action) => {
        const button = new Element("button");
        button.setAttribute("data-cube", action);
        return button;
      }) : [];
    }
    return selected[selector];
  },
  addEventListener: (type, fn) => { (documentListeners[type] = documentListeners[type] || []).push(fn); },
  dispatchEvent: () => true,
  body: new Element("body"),
};

const requests = [];
async function fetch(url, options) {
  const method = (options && options.method) || "GET";
  const key = `${method} ${String(url).split("?")[0]}`;
  requests.push({ key, body: options && options.body ? JSON.parse(options.body) : null });
  const answers = input.answers || {};
  const found = key in answers;
  return { ok: found, status: found ? 200 : 404, json: async () => (found ? answers[key] : { error: "no answer" }) };
}

class EventSource {
  constructor(url) { this.url = url; this.readyState = 0; }
  addEventListener() {}
}
EventSource.CLOSED = 2;

const window = { confirm: () => true };
const context = {
  window, document, fetch, EventSource, Node, console, JSON, Promise, Date, Math, Number, String, Array, Object,
  Set, Map, Error, RegExp, CustomEvent: class { constructor(type, init) { this.type = type; this.detail = init && init.detail; } },
  setTimeout: () => 0, clearTimeout: () => {}, setInterval: () => 0, clearInterval: () => {},
  performance: { now: () => 0 },
};
vm.createContext(context);
for (const script of ["common.js", "board.js", "clock.js"]) vm.runInContext(fs.readFileSync(path.join(STATIC, script), "utf8"), context);

// the drawings and editors the other scripts give the page, stood in for (board.js's words are kept)
const W = window.Willughby;
W.drawBoard = () => {};
W.drawTally = () => {};
W.changedPlaces = () => new Set();
W.isTally = (board) => !!board && board.format === "tally/1";
W.boardEditor = () => ({ load() {}, read: () => ({}) });
let corners = [];
let proposed = null;
W.cornerEditor = (options) => ({
  set(c) { corners = Array.isArray(c) ? c : []; options.onChange(corners); },
  propose(p) { proposed = p; },
  proposed: () => proposed,
  corners: () => corners,
  undo() {},
  clear() { corners = []; options.onChange(corners); },
});

vm.runInContext(fs.readFileSync(path.join(STATIC, input.script), "utf8"), context);

const settle = () => new Promise((resolve) => setImmediate(resolve));

(async () => {
  for (const fn of documentListeners.DOMContentLoaded || []) await fn();
  await settle();
  for (const id of input.clicks || []) {
    await getElementById(id).dispatch("click", { preventDefault() {} });
    await settle();
  }
  const shown = (el) => ({ text: el.textContent, hidden: el.hidden, disabled: el.disabled });
  const elements = {};
  for (const id of input.report || []) elements[id] = shown(getElementById(id));
  const lists = {};
  for (const [selector, found] of Object.entries(selected)) lists[selector] = found.map(shown);
  process.stdout.write(JSON.stringify({ elements, selected: lists, requests }));
})();

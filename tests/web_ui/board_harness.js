/* Runs web_ui/static/board.js under node with a tiny stand-in for the DOM,
 * draws the board read from standard input ({"board", "options", "before"})
 * and prints what was drawn as JSON: each point's polygon and men, the
 * labels, the dice, the cube and the places marked changed. */
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

class Element {
  constructor(tag) { this.tag = tag; this.attrs = {}; this.children = []; this.text = ""; }
  setAttribute(name, value) { this.attrs[name] = String(value); }
  getAttribute(name) { return this.attrs[name]; }
  set textContent(value) { this.text = String(value); this.children = []; }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(""); }
  append(...nodes) { this.children.push(...nodes); }
  replaceChildren() { this.children = []; }
  all(predicate, out = []) {
    for (const child of this.children) {
      if (predicate(child)) out.push(child);
      child.all(predicate, out);
    }
    return out;
  }
}

const window = {};
const context = { window, document: { createElementNS: (ns, tag) => new Element(tag) }, Set, Number, Array, Math, Object, String };
const source = fs.readFileSync(path.join(__dirname, "..", "..", "web_ui", "static", "board.js"), "utf8");
vm.runInNewContext(source, context);
const W = window.Willughby;

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const options = input.options || {};
if (input.before) options.changed = W.changedPlaces(input.before, input.board);
const svg = new Element("svg");
W.drawBoard(svg, input.board, options);

const classes = (el) => (el.attrs.class || "").split(" ");
const points = {};
for (const g of svg.all((el) => el.tag === "g" && classes(el).includes("point"))) {
  const polygon = g.children.find((c) => c.tag === "polygon");
  const corners = polygon.attrs.points.split(" ").map((p) => p.split(",").map(Number));
  points[g.attrs["data-place"]] = {
    left: Math.min(...corners.map((c) => c[0])),
    base: corners[0][1],
    tip: corners[2][1],
    light: g.all((el) => el.tag === "circle" && classes(el).includes("man-light")).length,
    dark: g.all((el) => el.tag === "circle" && classes(el).includes("man-dark")).length,
    labels: g.all((el) => el.tag === "text").map((t) => t.text),
    changed: classes(g).includes("changed"),
    data: { light: Number(g.attrs["data-light"]), dark: Number(g.attrs["data-dark"]) },
  };
}
const texts = (cls) => svg.all((el) => el.tag === "text" && classes(el).includes(cls)).map((t) => t.text);
const groups = (cls) => svg.all((el) => el.tag === "g" && classes(el).includes(cls));
process.stdout.write(JSON.stringify({
  viewBox: svg.attrs.viewBox,
  points,
  // each point's number on either side: [side, its number, the place it labels, the text, x, y]
  numbers: svg.all((el) => el.tag === "text" && classes(el).includes("point-number")).map((t) => ({
    side: t.attrs["data-side"], point: Number(t.attrs["data-point"]), place: Number(t.attrs["data-place"]),
    text: t.text, x: Number(t.attrs.x), y: Number(t.attrs.y),
  })),
  keys: svg.all((el) => el.tag === "g" && classes(el).includes("number-key")).map((g) => ({
    side: g.attrs["data-side"], text: g.all((el) => el.tag === "text").map((t) => t.text).join(""),
    y: Number(g.all((el) => el.tag === "text")[0].attrs.y),
  })),
  marker: groups("turn-marker").map((g) => ({
    turn: g.attrs["data-turn"], men: g.all((el) => el.tag === "circle").map((c) => classes(c)[1]),
    arrow: g.all((el) => el.tag === "polygon").map((p) => p.attrs.points.split(" ").map((q) => q.split(",").map(Number))),
  })),
  off: texts("off-count"),
  bar: groups("bar-men").flatMap((g) => g.all((el) => el.tag === "text").map((t) => t.text)),
  barMen: groups("bar-men").flatMap((g) => g.all((el) => el.tag === "circle").map((c) => classes(c)[1])),
  barChanged: groups("bar-men").some((g) => classes(g).includes("changed")),
  dice: groups("die").map((g) => g.children.filter((c) => c.tag === "circle").length),
  cube: groups("cube").map((g) => g.all((el) => el.tag === "text").map((t) => t.text)),
  noBoard: texts("no-board"),
}));

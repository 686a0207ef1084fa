/* The "fix the board" editor: a number box per colour on each point, the bar,
 * the men off and whose turn it is, with a preview drawn as you type. */
(function () {
  "use strict";
  const W = window.Willughby;

  function numberBox(label) {
    return W.el("input", {
      type: "number", min: 0, max: 15, step: 1, inputmode: "numeric", value: 0, "aria-label": label,
    });
  }

  /** A board editor in *grid*, previewed in the <svg> *preview*: {load(board), read()}. */
  W.boardEditor = function (grid, preview) {
    const boxes = { light: [], dark: [], bar: {}, off: {} };
    let base = null;  // the document loaded: keeps what the editor does not show (stacked, phase)

    grid.append(W.el("span", { class: "head" }, "Point"), W.el("span", { class: "head" }, "Light"),
      W.el("span", { class: "head" }, "Dark"));
    for (let p = 24; p >= 1; p--) {
      const light = numberBox(`light men on point ${p}`);
      const dark = numberBox(`dark men on point ${p}`);
      boxes.light[p - 1] = light;
      boxes.dark[p - 1] = dark;
      grid.append(W.el("span", { class: "point-label" }, p), light, dark);
    }
    for (const place of ["bar", "off"]) {
      boxes[place].light = numberBox(`light men ${place === "bar" ? "on the bar" : "borne off"}`);
      boxes[place].dark = numberBox(`dark men ${place === "bar" ? "on the bar" : "borne off"}`);
      grid.append(W.el("span", { class: "point-label" }, place === "bar" ? "Bar" : "Off"),
        boxes[place].light, boxes[place].dark);
    }
    const turn = W.el("select", { "aria-label": "Whose turn" },
      W.el("option", { value: "light" }, "light"), W.el("option", { value: "dark" }, "dark"));
    grid.append(W.el("span", { class: "point-label" }, "Turn"), turn);

    const value = (box) => Math.max(0, parseInt(box.value, 10) || 0);

    function read() {
      const doc = {
        format: "board/1",
        light: boxes.light.map(value),
        dark: boxes.dark.map(value),
        bar: { light: value(boxes.bar.light), dark: value(boxes.bar.dark) },
        off: { light: value(boxes.off.light), dark: value(boxes.off.dark) },
        turn: turn.value,
      };
      if (base && base.stacked) {
        // a pile cannot hold more men than stand on the point
        doc.stacked = {};
        for (const colour of ["light", "dark"]) {
          doc.stacked[colour] = doc[colour].map((n, i) => Math.min(n, Number((base.stacked[colour] || [])[i]) || 0));
        }
      }
      if (base && base.phase) doc.phase = base.phase;
      return doc;
    }

    function load(board) {
      base = board || null;
      const b = board || {};
      for (let i = 0; i < 24; i++) {
        boxes.light[i].value = (b.light && b.light[i]) || 0;
        boxes.dark[i].value = (b.dark && b.dark[i]) || 0;
      }
      for (const place of ["bar", "off"]) {
        boxes[place].light.value = (b[place] && b[place].light) || 0;
        boxes[place].dark.value = (b[place] && b[place].dark) || 0;
      }
      turn.value = b.turn === "dark" ? "dark" : "light";
      W.drawBoard(preview, read());
    }

    grid.addEventListener("input", () => W.drawBoard(preview, read(), { changed: W.changedPlaces(base, read()) }));
    return { load, read };
  };
})();

/* Drawing a board document (docs/board-document.md) as SVG, shared by every page.
 *
 * Seen from light's seat: points 1-12 along the near (bottom) edge, 13-24
 * along the far edge, 13 facing 12 and 24 facing 1; light's home table
 * (1-6) at the bottom right, so the bottom row reads 12..7 | bar | 6..1 and
 * the top row 13..18 | bar | 19..24. Light moves 24 -> 1 (anticlockwise
 * here). Borne-off men stand in the tray at the right, each colour on its
 * home side; men on the bar stand on the side where they enter.
 *
 * Every point carries both numberings, because each side writes its plays
 * from its own home (light's point p is dark's point 25 - p): beside each
 * row of points run two rows of numbers, dark's on dark chips in the upper
 * row (towards dark's seat, the far edge) and light's on light chips in the
 * lower row (towards light's seat), each row keyed at its end, over the
 * tray's column, by a chip that names the side. The bar and the tray stay
 * clear. Hooks for tests: each point's group is `g.point[data-place=p]`
 * (light's numbering, the board document's index) with its men counted in
 * data-light and data-dark; each number is `text.point-number[data-side]
 * [data-point]` (that side's numbering) with the place it labels in
 * data-place.
 *
 * Colours and highlights are CSS classes (style.css), never inline styles.
 */
(function () {
  "use strict";
  const W = (window.Willughby = window.Willughby || {});
  const NS = "http://www.w3.org/2000/svg";

  // Geometry, in SVG units.
  const CHIP_W = 48;       // a point number's chip
  const CHIP_H = 34;
  const ROW = 36;          // one row of numbers (a chip and its spacing)
  const NUM = 2 * ROW + 2; // the two rows of point numbers above and below the board
  const FRAME = 16;        // the board's frame
  const PW = 56;           // a point's width
  const PH = 250;          // a point's length: five men
  const GAP = 60;          // between the rows: dice and cube
  const BAR = 56;          // the bar
  const TRAY = 64;         // the tray for borne-off men
  const R = 25;            // a man's radius
  const HALF = 6 * PW;
  const WIDTH = FRAME + HALF + BAR + HALF + FRAME + TRAY;
  const HEIGHT = NUM + FRAME + PH + GAP + PH + FRAME + NUM;
  const TOP = NUM + FRAME;                 // the top row's edge
  const BOTTOM = HEIGHT - NUM - FRAME;     // the bottom row's edge
  const MIDDLE = TOP + PH + GAP / 2;
  const BAR_X = FRAME + HALF;
  const TRAY_X = WIDTH - TRAY;
  const MAX_SHOWN = 5;
  const TURN_R = 24;       // the turn marker in the middle of the tray

  /** An SVG element with attributes and optional text. */
  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /** The left edge of point *p* (1..24), and whether it is on the top row. */
  function pointPlace(p) {
    const top = p >= 13;
    const column = top ? p - 13 : 12 - p;          // 0..11 from the left
    const x = FRAME + column * PW + (column >= 6 ? BAR : 0);
    return { x, top };
  }

  /** The centre of the i-th man (0 at the edge) on a point starting at x. */
  function manCentre(x, top, i) {
    return { cx: x + PW / 2, cy: top ? TOP + R + i * 2 * R : BOTTOM - R - i * 2 * R };
  }

  function count(list, i) {
    return (Array.isArray(list) && Number(list[i])) || 0;
  }

  function side(obj, colour) {
    return (obj && Number(obj[colour])) || 0;
  }

  /**
   * A pile (the unstacking games): its men drawn as discs standing one on
   * another, seen from the side, in the first slot of the point, with a
   * badge giving its height, so a pile reads at a glance as a pile and its
   * height as a number. Hook: `g.pile[data-colour][data-height]`.
   */
  function drawPile(group, x, top, colour, height) {
    const { cx, cy } = manCentre(x, top, 0);
    const pile = svg("g", { class: `pile pile-${colour}`, "data-colour": colour, "data-height": height });
    pile.append(svg("title", {}, `a pile of ${height} ${colour} men`));
    const shown = Math.min(height, 5);
    const step = 7;                                  // each disc stands a little towards the point's tip
    const toward = top ? 1 : -1;
    const base = cy - toward * ((shown - 1) * step) / 2;
    for (let i = 0; i < shown; i++) {
      pile.append(svg("ellipse", {
        cx, cy: base + toward * i * step, rx: R - 2, ry: R / 2.4, class: `man man-${colour} pile-disc`,
      }));
    }
    const bx = cx + R - 6;
    const by = cy - toward * (R - 4);
    pile.append(svg("circle", { cx: bx, cy: by, r: 15, class: `pile-badge badge-${colour}` }));
    pile.append(svg("text", { x: bx, y: by, class: "pile-count" }, height));
    group.append(pile);
  }

  /** Up to five men drawn on a point (a pile counting as one); a count on the last when more stand there. */
  function drawMen(group, x, top, men) {
    // men: [{colour, n, piled}] in the order they stand from the edge; piled of them stand in a pile
    const wanted = men.filter((m) => m.n > 0);
    let slot = 0;
    wanted.forEach((m, k) => {
      let flat = m.n;
      if (m.piled >= 2) {
        drawPile(group, x, top, m.colour, Math.min(m.piled, m.n));
        flat = m.n - Math.min(m.piled, m.n);
        slot++;
        if (!flat) return;
      }
      const room = MAX_SHOWN - slot - (wanted.length - 1 - k);
      const shown = Math.max(1, Math.min(flat, room));
      for (let i = 0; i < shown; i++, slot++) {
        const { cx, cy } = manCentre(x, top, slot);
        group.append(svg("circle", { cx, cy, r: R - 2, class: `man man-${m.colour}` }));
        if (i === shown - 1 && shown < flat) {
          group.append(svg("text", { x: cx, y: cy, class: `man-count on-${m.colour}` }, flat));
        }
      }
    });
  }

  function drawFrame(root) {
    root.append(svg("rect", { x: 0, y: NUM, width: WIDTH, height: HEIGHT - 2 * NUM, rx: 10, class: "frame" }));
    root.append(svg("rect", { x: FRAME, y: TOP, width: HALF, height: BOTTOM - TOP, class: "felt" }));
    root.append(svg("rect", { x: BAR_X + BAR, y: TOP, width: HALF, height: BOTTOM - TOP, class: "felt" }));
    root.append(svg("rect", { x: BAR_X, y: NUM, width: BAR, height: HEIGHT - 2 * NUM, class: "bar" }));
    root.append(svg("rect", { x: TRAY_X + 4, y: TOP, width: TRAY - 8, height: BOTTOM - TOP, rx: 6, class: "tray" }));
  }

  function drawPoint(root, board, p, changed) {
    const { x, top } = pointPlace(p);
    const light = count(board.light, p - 1);
    const dark = count(board.dark, p - 1);
    const stacked = board.stacked || {};
    const group = svg("g", {
      class: `point${changed.has(`p${p}`) ? " changed" : ""}`, "data-place": p, "data-light": light, "data-dark": dark,
    });
    const edge = top ? TOP : BOTTOM;
    const tip = top ? TOP + PH - 8 : BOTTOM - PH + 8;
    group.append(svg("title", {}, `light's ${p}, dark's ${25 - p}: ${light} light, ${dark} dark`));
    group.append(svg("polygon", {
      points: `${x},${edge} ${x + PW},${edge} ${x + PW / 2},${tip}`,
      class: `tri ${(p % 2) ? "tri-a" : "tri-b"}`,
    }));
    if (changed.has(`p${p}`)) {
      group.append(svg("polygon", {
        points: `${x + 2},${edge} ${x + PW - 2},${edge} ${x + PW / 2},${tip}`, class: "tri-mark",
      }));
    }
    drawMen(group, x, top, [
      { colour: "light", n: light, piled: count(stacked.light, p - 1) },
      { colour: "dark", n: dark, piled: count(stacked.dark, p - 1) },
    ]);
    root.append(group);
    drawNumber(root, x + PW / 2, top, "dark", 25 - p, p);
    drawNumber(root, x + PW / 2, top, "light", p, p);
  }

  /** The top of the chip row for *colour* in the band beside the top or bottom row of points. */
  function chipTop(top, colour) {
    const upper = colour === "dark";  // dark's numbers towards dark's seat (the far edge), light's towards light's
    const bandTop = top ? 0 : HEIGHT - NUM;
    return bandTop + 1 + (upper ? 0 : ROW) + (ROW - CHIP_H) / 2;
  }

  /** One point's number in *colour*'s own numbering, on a chip of that colour, centred on cx. */
  function drawNumber(root, cx, top, colour, number, place) {
    const y = chipTop(top, colour);
    root.append(svg("rect", {
      x: cx - CHIP_W / 2, y, width: CHIP_W, height: CHIP_H, rx: 8, class: `chip chip-${colour}`,
    }));
    root.append(svg("text", {
      x: cx, y: y + CHIP_H / 2, class: `point-number number-${colour}`,
      "data-side": colour, "data-point": number, "data-place": place,
    }, number));
  }

  /** At the end of each row of numbers, over the tray's column, whose numbers they are. */
  function drawKey(root) {
    const cx = TRAY_X + TRAY / 2;
    for (const top of [true, false]) {
      for (const colour of ["dark", "light"]) {
        const y = chipTop(top, colour);
        const group = svg("g", { class: "number-key", "data-side": colour });
        group.append(svg("title", {}, `${colour}'s numbers: ${colour} counts its points from its own home`));
        group.append(svg("rect", { x: TRAY_X + 2, y, width: TRAY - 4, height: CHIP_H, rx: 8, class: `chip chip-${colour}` }));
        group.append(svg("text", { x: cx, y: y + CHIP_H / 2, class: `key-text number-${colour}` }, colour));
        root.append(group);
      }
    }
  }

  function drawBar(root, board, changed) {
    const group = svg("g", { class: `bar-men${changed.has("bar") ? " changed" : ""}` });
    const cx = BAR_X + BAR / 2;
    // light enters on 19..24 (top), dark on 1..6 (bottom): each waits on its side
    for (const [colour, up] of [["light", true], ["dark", false]]) {
      const n = side(board.bar, colour);
      const shown = Math.min(n, 4);
      for (let i = 0; i < shown; i++) {
        const cy = up ? MIDDLE - GAP / 2 - R - i * 2 * R : MIDDLE + GAP / 2 + R + i * 2 * R;
        group.append(svg("circle", { cx, cy, r: R - 2, class: `man man-${colour}` }));
        if (i === shown - 1 && n > 1) group.append(svg("text", { x: cx, y: cy, class: `man-count on-${colour}` }, n));
      }
    }
    group.append(svg("title", {}, `bar: ${side(board.bar, "light")} light, ${side(board.bar, "dark")} dark`));
    root.append(group);
  }

  function drawOff(root, board, changed) {
    for (const [colour, atBottom] of [["light", true], ["dark", false]]) {
      const n = side(board.off, colour);
      const group = svg("g", { class: `off${changed.has(`off-${colour}`) ? " changed" : ""}` });
      group.append(svg("title", {}, `${n} ${colour} borne off`));
      for (let i = 0; i < Math.min(n, 15); i++) {
        const y = atBottom ? BOTTOM - 4 - (i + 1) * 13 : TOP + 4 + i * 13;
        group.append(svg("rect", { x: TRAY_X + 10, y, width: TRAY - 20, height: 11, rx: 3, class: `man man-${colour}` }));
      }
      // between the stacks of borne-off men, clear of the turn marker in the middle
      const ty = atBottom ? MIDDLE + 58 : MIDDLE - 58;
      group.append(svg("text", { x: TRAY_X + TRAY / 2, y: ty, class: "off-count" }, n ? `${n} off` : ""));
      root.append(group);
    }
  }

  const PIPS = {
    1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
    4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
    6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
  };

  function drawDice(root, dice, colour) {
    if (!Array.isArray(dice) || !dice.length) return;
    const size = 44;
    const start = BAR_X + BAR + HALF / 2 - (dice.length * (size + 10) - 10) / 2;
    dice.forEach((d, i) => {
      const x = start + i * (size + 10);
      const y = MIDDLE - size / 2;
      const group = svg("g", { class: `die die-${colour || "light"}` });
      group.append(svg("title", {}, `die: ${d}`));
      group.append(svg("rect", { x, y, width: size, height: size, rx: 8, class: "die-face" }));
      for (const [dx, dy] of PIPS[d] || []) {
        group.append(svg("circle", { cx: x + size / 2 + dx * 11, cy: y + size / 2 + dy * 11, r: 4.5, class: "pip" }));
      }
      if (!PIPS[d]) group.append(svg("text", { x: x + size / 2, y: y + size / 2, class: "die-text" }, d));
      root.append(group);
    });
  }

  /** Dice the player could not use and the opponent used (``unused_throw=opponent``), in the
   * left half, in the opponent's colour, with whose they became. Hook: `g.passed-dice[data-to]`. */
  function drawPassed(root, passed) {
    if (!passed || !Array.isArray(passed.dice) || !passed.dice.length) return;
    const size = 34;
    const group = svg("g", { class: "passed-dice", "data-to": passed.to || "" });
    const start = FRAME + HALF / 2 + 30;
    passed.dice.forEach((d, i) => {
      const x = start + i * (size + 8);
      const y = MIDDLE - size / 2;
      group.append(svg("rect", { x, y, width: size, height: size, rx: 6, class: `die-face passed-${passed.to}` }));
      group.append(svg("text", { x: x + size / 2, y: y + size / 2, class: "die-text" }, d));
    });
    group.append(svg("text", { x: start - 8, y: MIDDLE, class: "passed-note" }, "→"));
    group.append(svg("title", {}, `${W.diceText(passed.dice)} passed to ${passed.to} and used there`));
    root.append(group);
  }

  function drawCube(root, cube) {
    if (!cube || !cube.enabled) return;
    const size = 44;
    const x = FRAME + HALF / 2 - size / 2;
    const y = MIDDLE - size / 2;
    const offered = cube.offered_by ? " offered" : "";
    const group = svg("g", { class: `cube${offered}` });
    group.append(svg("rect", { x, y, width: size, height: size, rx: 6, class: "cube-face" }));
    group.append(svg("text", { x: x + size / 2, y: y + size / 2, class: "cube-value" }, cube.value || 1));
    // the word "cube" beside its face: a bare "1 in the middle" says nothing to a newcomer
    let note = "cube, in the middle";
    if (cube.offered_by) note = `cube, offered by ${cube.offered_by}`;
    else if (cube.owner) note = `${cube.owner}'s cube`;
    group.append(svg("text", { x: x + size + 8, y: y + size / 2, class: "cube-note" }, note));
    group.append(svg("title", {}, `the cube at ${cube.value || 1}: ${note}`));
    root.append(group);
  }

  /** A man of the mover's colour in the middle of the tray, its arrow towards the mover's seat. */
  function drawTurn(root, turn) {
    if (turn !== "light" && turn !== "dark") return;
    const cx = TRAY_X + TRAY / 2;
    const r = TURN_R;
    const toward = turn === "light" ? 1 : -1;  // light sits at the near (bottom) edge, dark at the far edge
    const group = svg("g", { class: "turn-marker", "data-turn": turn });
    group.append(svg("circle", { cx, cy: MIDDLE, r, class: `man man-${turn}` }));
    const base = MIDDLE + toward * (r + 4);
    group.append(svg("polygon", {
      points: `${cx - 11},${base} ${cx + 11},${base} ${cx},${base + toward * 13}`, class: "turn-arrow",
    }));
    group.append(svg("title", {}, `${turn} to play`));
    root.append(group);
  }

  /**
   * Draw *board* (a board document, or null) into the <svg> element *target*.
   * options: dice (list), cube ({value, owner, offered_by, enabled}),
   * changed (a Set from changedPlaces, to highlight), turn (overrides board.turn),
   * passed ({dice: [...], to: colour}: dice the opponent used).
   */
  W.drawBoard = function (target, board, options) {
    const opts = options || {};
    target.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
    target.replaceChildren();
    const root = svg("g", { class: "board-root" });
    drawFrame(root);
    if (!board) {
      root.append(svg("text", { x: WIDTH / 2, y: MIDDLE, class: "no-board" }, "No board yet"));
      target.append(root);
      return;
    }
    const changed = opts.changed || new Set();
    root.append(svg("desc", {}, "Each point shows two numbers: dark's numbering on a dark chip in the upper row, "
      + "light's on a light chip in the lower row; light's point p is dark's point 25 - p."));
    for (let p = 1; p <= 24; p++) drawPoint(root, board, p, changed);
    drawKey(root);
    drawBar(root, board, changed);
    drawOff(root, board, changed);
    const turn = opts.turn || board.turn;
    drawDice(root, opts.dice, turn);
    drawCube(root, opts.cube);
    drawPassed(root, opts.passed);
    drawTurn(root, turn);
    target.append(root);
  };

  /** The places whose men differ between two board documents: "p1".."p24", "bar", "off-light", "off-dark". */
  W.changedPlaces = function (before, after) {
    const changed = new Set();
    if (!before || !after) return changed;
    for (let i = 0; i < 24; i++) {
      const piles = (doc, colour) => count((doc.stacked || {})[colour], i);
      if (count(before.light, i) !== count(after.light, i) || count(before.dark, i) !== count(after.dark, i)
          || piles(before, "light") !== piles(after, "light") || piles(before, "dark") !== piles(after, "dark")) {
        changed.add(`p${i + 1}`);
      }
    }
    if (side(before.bar, "light") !== side(after.bar, "light") || side(before.bar, "dark") !== side(after.bar, "dark")) {
      changed.add("bar");
    }
    for (const colour of ["light", "dark"]) {
      if (side(before.off, colour) !== side(after.off, colour)) changed.add(`off-${colour}`);
    }
    return changed;
  };

  /** The dice as text: "6-3", or "" for none. */
  W.diceText = function (dice) {
    return Array.isArray(dice) && dice.length ? dice.join("-") : "";
  };

  /** A player's name and colour: "Ann (light)", or "light" with no name. */
  W.playerText = function (players, colour) {
    const name = players && players[colour];
    return name ? `${name} (${colour})` : colour || "";
  };
})();

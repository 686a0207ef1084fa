/* Drawing a counting game's tally (Sice-Ace; docs/board-document.md, "The tally"):
 * each player in turn order with his men, who throws, who is out and who
 * pays, and the pool in the middle. Shared by the live page and the replay.
 *
 * Hooks for tests: each player is `li.tally-player[data-index]` with
 * data-men, data-out ("true"/"false"), data-to-throw and data-pays; the pool
 * is `#...-pool[data-pool]`.
 */
(function () {
  "use strict";
  const W = (window.Willughby = window.Willughby || {});

  function node(tag, attrs, text) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) el.setAttribute(name, String(value));
    if (text !== undefined && text !== null) el.textContent = String(text);
    return el;
  }

  /**
   * Draw into *target* (an element) the tally *doc* ({format: "tally/1", men, pool, turn}) of
   * players *names* (a list); *over* is the game's end ({loser, kind, stake}) or null.
   */
  W.drawTally = function (target, doc, names, over) {
    target.replaceChildren();
    if (!doc || !Array.isArray(doc.men)) {
      target.append(node("p", { class: "subtle" }, "No tally yet"));
      return;
    }
    const list = node("ul", { class: "tally-players" });
    doc.men.forEach((men, k) => {
      const name = (Array.isArray(names) && names[k]) || `player ${k}`;
      const out = Number(men) === 0;
      const toThrow = !over && doc.turn === k;
      const pays = !!over && over.loser === k;
      const item = node("li", {
        class: `tally-player${toThrow ? " to-throw" : ""}${out ? " out" : ""}${pays ? " pays" : ""}`,
        "data-index": k, "data-men": men, "data-out": out, "data-to-throw": toThrow, "data-pays": pays,
      });
      item.append(node("span", { class: "tally-name" }, name));
      const row = node("span", { class: "tally-men", "aria-hidden": "true" });
      for (let i = 0; i < Math.min(Number(men) || 0, 12); i++) row.append(node("span", { class: "tally-man" }));
      item.append(row);
      item.append(node("span", { class: "tally-count" }, `${men} ${Number(men) === 1 ? "man" : "men"}`));
      if (toThrow) item.append(node("span", { class: "tally-tag tag-throw" }, "to throw"));
      if (out) item.append(node("span", { class: "tally-tag tag-out" }, "out"));
      if (pays) item.append(node("span", { class: "tally-tag tag-pays" }, "pays for the drinks"));
      list.append(item);
    });
    target.append(list);
    const pool = Number(doc.pool) || 0;
    target.append(node("p", { class: "tally-pool", id: `${target.id || "tally"}-pool`, "data-pool": pool },
      `Pool: ${pool} ${pool === 1 ? "man" : "men"}`));
  };

  /** Whether a document is a tally (a counting game's state) rather than a board. */
  W.isTally = function (doc) {
    return !!doc && doc.format === "tally/1";
  };
})();

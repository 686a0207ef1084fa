/* Calibration: the camera's picture, large, with the board's corners C1..C4:
 * the saved ones, or those the board finder proposes, to confirm or nudge
 * (corners.js), or tapped one by one. Saved in the picture's pixels. */
(function () {
  "use strict";
  const W = window.Willughby;
  const $ = (id) => document.getElementById(id);
  let editor = null;
  let orderKnown = false;   // whether the corners proposed came in an order the picture told

  // C1 chosen among the corners marked: the long sides kept where they are (C1..C2 and C3..C4), so the
  // board is the same quadrilateral, turned round or mirrored (vision/corner_order.py, ROW_ORDERS)
  const WITH_C1_AT = [[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]];

  async function save(corners, confirmed) {
    const answer = await W.control("/api/calibrate", { corners, c1_confirmed: confirmed });
    if (answer) {
      $("confirm-c1").hidden = true;
      if (Array.isArray(answer.corners)) editor.set(answer.corners);
      // the status line, which still spoke of the corners proposed, says so too (the message line fades)
      $("camera-status").textContent = "The corners are saved: the camera reads the board with them.";
      W.say(answer.order === "players" ? "The corners are saved, with C1 where you said."
        : "The corners are saved.");
    } else if (!confirmed) {
      // nothing on the table told the corners' order (no game's start in the picture): the players say
      // which corner is C1 before anything is saved (the answer says "order_known": false)
      $("confirm-c1").hidden = false;
      $("camera-status").textContent = "The order of the corners is unknown: nothing in the picture tells "
        + "which corner is C1. Say which marked corner touches point 1 (light's ace point).";
    }
  }

  async function snapshot() {
    $("camera-status").textContent = "Taking a picture…";
    try {
      const found = await W.api("GET", "/api/camera");
      const saved = Array.isArray(found.corners) ? found.corners : null;
      const proposed = Array.isArray(found.proposed) ? found.proposed : null;
      orderKnown = Boolean(found.order_known);
      editor.propose(proposed);
      editor.set(saved || proposed);
      if (saved) {
        $("camera-status").textContent = "These are the corners saved: drag one to move it, then save.";
      } else if (proposed) {
        $("camera-status").textContent = found.found_by === "markers"
          ? "The corners are proposed from the printed markers: check each, drag it if it is off, then save."
          : (orderKnown
            ? "The corners are proposed from the picture, in the order the board on the table tells: check each, drag any that is off, then save."
            : "The corners are proposed from the picture, but their order is unknown: check that C1 touches point 1, drag any that is off, then save.");
      } else {
        $("camera-status").textContent = "The board was not found in the picture: tap its four corners.";
      }
      $("camera-image").src = `/api/camera.jpg?t=${Date.now()}`;
    } catch (error) {
      $("camera-status").textContent = error.message;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    editor = W.cornerEditor({
      image: $("camera-image"), overlay: $("camera-overlay"), loupe: $("camera-loupe"), next: $("next-corner"),
      onChange: (corners) => { $("save-corners").disabled = corners.length !== 4; },
    });
    $("undo-corner").addEventListener("click", () => editor.undo());
    $("clear-corners").addEventListener("click", () => editor.clear());
    $("use-detected").addEventListener("click", () => editor.set(editor.proposed()));
    $("snapshot").addEventListener("click", snapshot);
    $("save-corners").addEventListener("click", async () => {
      const corners = editor.corners();
      if (corners.length !== 4) return;
      await save(corners, false);
    });
    document.querySelectorAll("#confirm-c1 button[data-c1]").forEach((button) => {
      button.addEventListener("click", async () => {
        const marked = editor.corners();
        if (marked.length !== 4) return;
        const corners = WITH_C1_AT[Number(button.dataset.c1)].map((i) => marked[i]);
        editor.set(corners);
        await save(corners, true);
      });
    });
    snapshot();
  });
})();

/* Calibration: the camera's picture, large, with the board's corners C1..C4:
 * the saved ones, or those the board finder proposes, to confirm or nudge
 * (corners.js), or tapped one by one. Saved in the picture's pixels. */
(function () {
  "use strict";
  const W = window.Willughby;
  const $ = (id) => document.getElementById(id);
  let editor = null;

  async function snapshot() {
    $("camera-status").textContent = "Taking a picture…";
    try {
      const found = await W.api("GET", "/api/camera");
      const saved = Array.isArray(found.corners) ? found.corners : null;
      const proposed = Array.isArray(found.proposed) ? found.proposed : null;
      editor.propose(proposed);
      editor.set(saved || proposed);
      if (saved) {
        $("camera-status").textContent = "These are the corners saved: drag one to move it, then save.";
      } else if (proposed) {
        $("camera-status").textContent = found.found_by === "markers"
          ? "The corners are proposed from the printed markers: check each, drag it if it is off, then save."
          : "The corners are proposed from the picture: check that C1 touches point 1, drag any that is off, then save.";
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
      const answer = await W.control("/api/calibrate", { corners });
      if (answer) {
        if (Array.isArray(answer.corners)) editor.set(answer.corners);
        // the status line, which still spoke of the corners proposed, says so too (the message line fades)
        $("camera-status").textContent = "The corners are saved: the camera reads the board with them.";
        W.say("The corners are saved.");
      }
    });
    snapshot();
  });
})();

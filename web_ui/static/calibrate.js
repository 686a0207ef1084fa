/* Calibration: the camera's picture with the corners it found (dashed) and
 * the corners tapped here (C1..C4, in that order), saved in image pixels. */
(function () {
  "use strict";
  const W = window.Willughby;
  const $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
  const NAMES = ["C1 (touches point 1)", "C2 (touches point 12)", "C3 (touches point 13)", "C4 (touches point 24)"];

  let detected = null;  // [[x, y] x4] or null
  let tapped = [];      // [[x, y], ...] up to four

  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawCorners(overlay, corners, kind, scale) {
    if (!corners) return;
    if (corners.length > 1) {
      const points = corners.map(([x, y]) => `${x},${y}`).join(" ");
      overlay.append(svg(corners.length === 4 ? "polygon" : "polyline", { points, class: `outline ${kind}`, "stroke-width": 3 * scale }));
    }
    corners.forEach(([x, y], i) => {
      overlay.append(svg("circle", { cx: x, cy: y, r: 9 * scale, class: `corner ${kind}` }));
      overlay.append(svg("text", { x: x + 12 * scale, y: y - 12 * scale, class: `corner-label ${kind}`, "font-size": 22 * scale }, `C${i + 1}`));
    });
  }

  function redraw() {
    const image = $("camera-image");
    const overlay = $("camera-overlay");
    overlay.replaceChildren();
    if (!image.naturalWidth) return;
    overlay.setAttribute("viewBox", `0 0 ${image.naturalWidth} ${image.naturalHeight}`);
    const scale = image.naturalWidth / Math.max(1, image.clientWidth);
    drawCorners(overlay, detected, "detected", scale);
    drawCorners(overlay, tapped, "tapped", scale);
    $("next-corner").textContent = tapped.length < 4 ? `Tap ${NAMES[tapped.length]}` : "All four corners are marked.";
    $("save-corners").disabled = tapped.length !== 4;
  }

  /** The image pixel under a pointer event on the overlay. */
  function imagePoint(event) {
    const image = $("camera-image");
    const box = $("camera-overlay").getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * image.naturalWidth;
    const y = ((event.clientY - box.top) / box.height) * image.naturalHeight;
    return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
  }

  async function snapshot() {
    $("camera-status").textContent = "Taking a picture…";
    try {
      const found = await W.api("GET", "/api/camera");
      detected = Array.isArray(found.corners) ? found.corners : null;
      $("camera-status").textContent = detected ? "The camera found the corners shown dashed." : "The camera found no corners.";
      $("camera-image").src = `/api/camera.jpg?t=${Date.now()}`;
    } catch (error) {
      $("camera-status").textContent = error.message;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("camera-image").addEventListener("load", redraw);
    window.addEventListener("resize", redraw);
    $("camera-overlay").addEventListener("click", (event) => {
      if (tapped.length < 4) tapped.push(imagePoint(event));
      redraw();
    });
    $("undo-corner").addEventListener("click", () => { tapped.pop(); redraw(); });
    $("use-detected").addEventListener("click", () => {
      if (detected) tapped = detected.map((c) => [...c]);
      redraw();
    });
    $("snapshot").addEventListener("click", snapshot);
    $("save-corners").addEventListener("click", async () => {
      if (tapped.length !== 4) return;
      if (await W.control("/api/calibrate", { corners: tapped })) W.say("The corners are saved.");
    });
    snapshot();
  });
})();

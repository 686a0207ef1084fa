/* Marking a board's four corners C1..C4 on a picture, shared by the camera's
 * calibration and a dispute photo. The picture is shown as large as the
 * screen allows; corners proposed by the board finder are drawn and can be
 * taken as they are, or dragged; a tap places the next corner. While a
 * corner is placed or dragged, a loupe shows the picture magnified around
 * it, away from the finger, so a corner lands on the board's edge and not
 * under a fingertip. Corners are kept in the picture's own pixels. */
(function () {
  "use strict";
  const W = window.Willughby;
  const NS = "http://www.w3.org/2000/svg";
  const NAMES = ["C1 (touches point 1)", "C2 (touches point 12)", "C3 (touches point 13)", "C4 (touches point 24)"];
  const ZOOM = 4;          // the loupe's magnification
  const GRAB_PX = 28;      // how near (screen pixels) a press must be to a corner to drag it

  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /**
   * @param {object} parts {image, overlay, loupe (a canvas), next (a line of text), onChange(corners)}
   * @returns {{set(corners), propose(corners), corners(), undo(), redraw()}}
   */
  W.cornerEditor = function (parts) {
    const { image, overlay, loupe, next } = parts;
    let proposed = null;   // [[x, y] x4] or null: what the finder proposed
    let marked = [];       // the corners placed or taken, up to four
    let dragging = -1;     // the corner being dragged, or -1

    function scale() {
      return image.naturalWidth / Math.max(1, image.clientWidth);
    }

    function drawSet(corners, kind) {
      if (!corners || !corners.length) return;
      const s = scale();
      if (corners.length > 1) {
        const points = corners.map(([x, y]) => `${x},${y}`).join(" ");
        overlay.append(svg(corners.length === 4 ? "polygon" : "polyline",
          { points, class: `outline ${kind}`, "stroke-width": 3 * s }));
      }
      corners.forEach(([x, y], i) => {
        overlay.append(svg("circle", { cx: x, cy: y, r: 9 * s, class: `corner ${kind}`, "data-corner": i }));
        overlay.append(svg("text", { x: x + 12 * s, y: y - 12 * s, class: `corner-label ${kind}`, "font-size": 22 * s },
          `C${i + 1}`));
      });
    }

    function redraw() {
      overlay.replaceChildren();
      if (!image.naturalWidth) return;
      overlay.setAttribute("viewBox", `0 0 ${image.naturalWidth} ${image.naturalHeight}`);
      if (marked.length < 4) drawSet(proposed, "detected");
      drawSet(marked, "tapped");
      if (next) {
        next.textContent = marked.length < 4 ? `Tap ${NAMES[marked.length]}, or drag a corner to move it`
          : "All four corners are marked: drag any of them to nudge it.";
      }
      if (parts.onChange) parts.onChange(marked.slice());
    }

    /** The picture's pixel under a pointer event. */
    function pixelAt(event) {
      const box = overlay.getBoundingClientRect();
      const x = ((event.clientX - box.left) / box.width) * image.naturalWidth;
      const y = ((event.clientY - box.top) / box.height) * image.naturalHeight;
      const clamp = (v, hi) => Math.min(hi, Math.max(0, v));
      return [Math.round(clamp(x, image.naturalWidth) * 10) / 10, Math.round(clamp(y, image.naturalHeight) * 10) / 10];
    }

    function showLoupe(event, [x, y]) {
      if (!loupe) return;
      const size = loupe.width;
      const ctx = loupe.getContext("2d");
      const half = size / (2 * ZOOM);
      ctx.imageSmoothingEnabled = false;
      ctx.fillStyle = "#000";
      ctx.fillRect(0, 0, size, size);
      ctx.drawImage(image, x - half, y - half, 2 * half, 2 * half, 0, 0, size, size);
      ctx.strokeStyle = "#ffdd00";
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(size / 2, 0); ctx.lineTo(size / 2, size);
      ctx.moveTo(0, size / 2); ctx.lineTo(size, size / 2);
      ctx.stroke();
      // away from the finger: on the other half of the picture
      const box = overlay.getBoundingClientRect();
      const left = event.clientX - box.left < box.width / 2;
      loupe.style.left = left ? "" : "8px";
      loupe.style.right = left ? "8px" : "";
      loupe.hidden = false;
    }

    function nearest(event) {
      const box = overlay.getBoundingClientRect();
      const perPixel = box.width / Math.max(1, image.naturalWidth);
      let best = -1;
      let bestD = GRAB_PX;
      marked.forEach(([x, y], i) => {
        const d = Math.hypot((x * perPixel + box.left) - event.clientX, (y * perPixel + box.top) - event.clientY);
        if (d < bestD) { best = i; bestD = d; }
      });
      return best;
    }

    overlay.addEventListener("pointerdown", (event) => {
      if (!image.naturalWidth) return;
      event.preventDefault();
      dragging = nearest(event);
      if (dragging < 0 && marked.length < 4) {
        marked.push(pixelAt(event));
        dragging = marked.length - 1;
      }
      if (dragging >= 0) {
        overlay.setPointerCapture(event.pointerId);
        showLoupe(event, marked[dragging]);
        redraw();
      }
    });
    overlay.addEventListener("pointermove", (event) => {
      if (dragging < 0) return;
      marked[dragging] = pixelAt(event);
      showLoupe(event, marked[dragging]);
      redraw();
    });
    const release = () => {
      dragging = -1;
      if (loupe) loupe.hidden = true;
    };
    overlay.addEventListener("pointerup", release);
    overlay.addEventListener("pointercancel", release);
    image.addEventListener("load", redraw);
    window.addEventListener("resize", redraw);

    return {
      /** Take these corners as marked (the proposal accepted, or corners saved before). */
      set(corners) { marked = corners ? corners.map((c) => [c[0], c[1]]) : []; redraw(); },
      /** Show the finder's proposal (dashed) without taking it. */
      propose(corners) { proposed = corners ? corners.map((c) => [c[0], c[1]]) : null; redraw(); },
      proposed() { return proposed ? proposed.map((c) => [c[0], c[1]]) : null; },
      corners() { return marked.map((c) => [c[0], c[1]]); },
      undo() { marked.pop(); redraw(); },
      clear() { marked = []; redraw(); },
      redraw,
    };
  };
})();

/* The dispute view: the board before and after the turn side by side, any
 * legal play the throw allowed, drawn on demand, and a photo of the board
 * sent, its corners confirmed (corners.js) and judged. */
(function () {
  "use strict";
  const W = window.Willughby;
  const $ = (id) => document.getElementById(id);
  let photo = null;     // the photo sent: {photo, size, corners, found_by, order_known}
  let editor = null;

  function percent(p) {
    return p >= 0.995 ? "over 99%" : p < 0.01 ? "under 1%" : `${Math.round(100 * p)}%`;
  }

  function showRuling(ruling) {
    $("photo-ruling").hidden = false;
    const play = ruling.play ? `: ${W.playText(ruling.play)}` : "";
    $("photo-verdict").className = `verdict verdict-${ruling.verdict}`;
    $("photo-verdict").textContent = ruling.verdict === "unsure"
      ? "The photo does not settle this turn"
      : `The photo shows ${ruling.verdict === "legal" ? "a legal" : "an illegal"} turn${play}`;
    $("photo-reason").textContent = [ruling.reason, ruling.citation ? `Rule: ${ruling.citation}` : ""]
      .filter(Boolean).join(" ");
    const ref = ruling.referee || {};
    const same = ref.verdict === ruling.verdict && (ref.play || "") === (ruling.play || "");
    $("photo-compare").textContent = ruling.verdict === "unsure" ? (ruling.notes || []).join("; ")
      : same ? "The referee ruled the same." : `The referee ruled ${ref.verdict}${ref.play ? `: ${W.playText(ref.play)}` : ""}.`;
    W.fill($("photo-candidates"), ...(ruling.candidates || []).filter((c) => c.p >= 0.001).map((c) =>
      W.el("li", {}, `${c.other ? "a board no play leads to" : W.playText(c.play)}: ${percent(c.p)}`)));
  }

  async function send(event) {
    event.preventDefault();
    const file = $("photo-file").files[0];
    if (!file) { W.say("Choose a photo first.", "error"); return; }
    const dispute = W.pageData() || {};
    const form = new FormData();
    form.append("photo", file);
    $("photo-status").textContent = "Sending the photo…";
    $("photo-send").disabled = true;
    try {
      const response = await fetch(`/api/dispute/${dispute.turn}/photo?attempt=${dispute.attempt}`, {
        method: "POST", credentials: "same-origin", body: form,
        headers: { Accept: "application/json", "X-CSRF-Token": W.csrf() },
      });
      let data = null;
      try { data = await response.json(); } catch (e) { data = null; }
      if (!response.ok) throw new Error((data && data.error) || `the server answered ${response.status}`);
      photo = data;
      $("photo-marking").hidden = false;
      $("photo-ruling").hidden = true;
      editor.propose(photo.corners);
      editor.set(photo.corners);
      $("photo-status").textContent = photo.corners
        ? (photo.order_known ? "The board's corners are proposed: check each, drag any that is off, then judge."
          : "The board is found, but not which corner is which: check that C1 touches point 1, then judge.")
        : "The board was not found in the photo: tap its four corners, C1 first.";
      $("photo-image").src = `/api/photos/${photo.photo}.jpg`;
    } catch (error) {
      $("photo-status").textContent = "";
      W.say(error.message, "error");
    } finally {
      $("photo-send").disabled = false;
    }
  }

  async function judgePhoto() {
    if (!photo) return;
    $("photo-status").textContent = "Judging the photo…";
    const ruling = await W.control(`/api/photos/${photo.photo}/judge`, { corners: editor.corners() });
    $("photo-status").textContent = ruling ? "The photo and its ruling are kept with the game." : "";
    if (ruling) {
      editor.set(ruling.corners);
      showRuling(ruling);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    const dispute = W.pageData() || {};
    W.drawBoard($("board-before"), dispute.before, { dice: dispute.dice, turn: dispute.player });
    W.drawBoard($("board-after"), dispute.after, { changed: W.changedPlaces(dispute.before, dispute.after) });
    const plays = dispute.legal_plays || [];
    for (const button of document.querySelectorAll("#legal-plays button")) {
      button.addEventListener("click", () => {
        const play = plays[Number(button.dataset.index)];
        if (!play) return;
        $("legal-figure").hidden = false;
        $("legal-caption").textContent = `Legal: ${W.playText(play.play)}`;
        W.drawBoard($("board-legal"), play.board, { changed: W.changedPlaces(dispute.before, play.board) });
        for (const other of document.querySelectorAll("#legal-plays button")) {
          other.classList.toggle("selected", other === button);
        }
      });
    }
    editor = W.cornerEditor({
      image: $("photo-image"), overlay: $("photo-overlay"), loupe: $("photo-loupe"), next: $("photo-next"),
      onChange: (corners) => { $("photo-judge").disabled = corners.length !== 4; },
    });
    $("photo-form").addEventListener("submit", send);
    $("photo-undo").addEventListener("click", () => editor.undo());
    $("photo-clear").addEventListener("click", () => editor.clear());
    $("photo-judge").addEventListener("click", judgePhoto);
  });
})();

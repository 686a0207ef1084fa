/* The dispute view: the board before and after the turn side by side, and
 * any legal play the throw allowed, drawn on demand. */
(function () {
  "use strict";
  const W = window.Willughby;
  const $ = (id) => document.getElementById(id);

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
  });
})();

/* A stored game, ruling by ruling: step 0 is the board before the first
 * turn, each later step one ruling -- a turn's play, or an illegal attempt
 * within a turn (numbered as everywhere: "Turn 3 of 40, attempt 1"), or a
 * board the players placed where the camera missed a play ("board placed
 * by the players") -- with the points it changed marked. */
(function () {
  "use strict";
  const W = window.Willughby;
  const $ = (id) => document.getElementById(id);

  document.addEventListener("DOMContentLoaded", () => {
    const game = W.pageData() || {};
    const turns = Array.isArray(game.turns) ? game.turns : [];
    const played = typeof game.turns_played === "number" ? game.turns_played
      : turns.filter((t) => t.verdict === "legal").length;
    const slider = $("step");
    slider.max = String(turns.length);
    let step = 0;
    const tally = turns.length > 0 && W.isTally(turns[0].before);   // a counting game: tallies, not boards
    W.show($("board"), !tally);
    W.show($("tally"), tally);
    const names = Array.isArray(game.players) ? game.players : null;
    const who = (player) => (names ? names[player] || `player ${player}` : W.playerText(game.players, player));
    const draw = (doc, options, over) => {
      if (tally) W.drawTally($("tally"), doc, names, over || null);
      else W.drawBoard($("board"), doc, options);
    };

    function show(k) {
      step = Math.max(0, Math.min(turns.length, k));
      slider.value = String(step);
      if (!turns.length) {
        W.drawBoard($("board"), null);
        $("step-label").textContent = "No turns were recorded.";
        return;
      }
      if (step === 0) {
        draw(turns[0].before);
        $("step-label").textContent = "The start";
        $("step-ruling").textContent = "";
        return;
      }
      const t = turns[step - 1];
      if (t.verdict === "placed") {      // a board the players placed: a play (or two) the camera missed
        draw(t.after, { changed: W.changedPlaces(t.before, t.after), turn: t.after && t.after.turn });
        const dice = W.diceText(t.dice);
        const missed = `${who(t.player)}'s ${dice ? `${dice} ` : ""}turn${t.turns === 2 ? " and the next" : ""}`;
        $("step-label").textContent = `Turn ${t.turn} of ${played}: board placed by the players (${missed} not seen)`;
        $("step-ruling").textContent = `placed: the game goes on from the board on the table, `
          + `${who(t.after && t.after.turn)} to throw`;
        $("step-ruling").className = "ruling verdict-placed";
        return;
      }
      const r0 = t.ruling || {};
      draw(t.after, { dice: t.dice, changed: W.changedPlaces(t.before, t.after), turn: t.player }, r0.game_over);
      const dice = W.diceText(t.dice);
      const place = t.verdict === "illegal" || t.attempt > 1 ? `, attempt ${t.attempt}` : "";
      let did = t.verdict === "illegal" ? "an illegal move" : W.playText(t.play);
      if (tally) did = (r0.events || []).map((e) => e.type.replace("_", " ")).join(", ") || "nothing counted";
      else if (r0.opponent_play) did += `; the opponent ${r0.opponent_play}`;
      $("step-label").textContent =
        `Turn ${t.turn ?? step} of ${played}${place}: ${who(t.player)}${dice ? ` threw ${dice}` : ""}, ${did}`;
      const r = t.ruling || {};
      $("step-ruling").textContent = [r.verdict, r.reason, r.citation ? `(${r.citation})` : ""].filter(Boolean).join(": ");
      $("step-ruling").className = `ruling verdict-${r.verdict || "none"}`;
    }

    $("first").addEventListener("click", () => show(0));
    $("prev").addEventListener("click", () => show(step - 1));
    $("next").addEventListener("click", () => show(step + 1));
    $("last").addEventListener("click", () => show(turns.length));
    slider.addEventListener("input", () => show(Number(slider.value)));
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLInputElement && event.target !== slider) return;
      if (event.key === "ArrowLeft") show(step - 1);
      if (event.key === "ArrowRight") show(step + 1);
    });
    show(0);
  });
})();

/* The match's clock on the board page: each player's reserve, counted down on the phone from the moment
 * the state arrived (the server reads the clock as it sends it), the delay of the move in progress, who runs,
 * what holds it, the flag; and its two buttons, Done (the box's DONE) and Hold. */
(function () {
  "use strict";
  const W = (window.Willughby = window.Willughby || {});
  const $ = (id) => document.getElementById(id);

  let shown = null;       // the clock as last received
  let received = 0;       // performance.now() when it was
  let timer = null;

  /** "12:05", "0:07", "1:02:03": seconds as a clock shows them (never below 0). */
  W.clockText = function (seconds) {
    const s = Math.max(0, Math.ceil(seconds - 1e-9));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    const mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? `${h}:` : "") + `${mm}:${String(r).padStart(2, "0")}`;
  };

  function running() {
    return shown && shown.running && !shown.paused && !shown.flagged;
  }

  function tick() {
    if (!shown) return;
    const gone = running() ? (performance.now() - received) / 1000 : 0;
    let delay = shown.delay_left || 0;
    let spent = gone;
    if (shown.mode === "bronstein") {             // the free seconds go first
      const free = Math.min(delay, gone);
      delay -= free;
      spent -= free;
    }
    for (const colour of ["light", "dark"]) {
      const side = $(`clock-${colour}`);
      const left = shown.left[colour] - (colour === shown.running ? spent : 0);
      side.querySelector(".clock-time").textContent = W.clockText(left);
      side.classList.toggle("running", colour === shown.running && !shown.flagged);
      side.classList.toggle("flag", colour === shown.flagged);
    }
    const notes = [];
    if (shown.flagged) notes.push(`${shown.flagged}'s flag has fallen`);
    else if (shown.paused) notes.push(shown.held ? "held by a player" : "held: the referee asks a question");
    else if (shown.running && shown.mode === "bronstein" && delay > 0) notes.push(`${Math.ceil(delay)} s free`);
    else if (!shown.running) notes.push("stopped");
    $("clock-note").textContent = notes.join(" · ");
  }

  /** Draw the clock of *state* (hidden where the game has none); *names* by colour. */
  W.renderClock = function (state) {
    const clock = state.clock;
    W.show($("clock"), !!clock);
    shown = clock || null;
    received = performance.now();
    if (!clock) {
      clearInterval(timer);
      timer = null;
      return;
    }
    for (const colour of ["light", "dark"]) {
      const name = (state.players && state.players[colour]) || colour;
      $(`clock-${colour}`).querySelector(".clock-name").textContent = name;
    }
    if ($("clock-hold")) {
      $("clock-hold").textContent = clock.held ? "Restart the clock" : "Hold the clock";
      $("clock-hold").disabled = !W.loggedIn() || !!clock.flagged;
      $("clock-done").disabled = !W.loggedIn() || !!state.game_over;
    }
    tick();
    if (!timer) timer = setInterval(tick, 250);
  };
})();

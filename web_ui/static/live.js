/* The board page: follows the live state (EventSource on /api/events) and
 * redraws everything from each state document; wires the controls. */
(function () {
  "use strict";
  const W = window.Willughby;
  const $ = (id) => document.getElementById(id);

  const PHASES = {
    start: "the roll for the start",
    throw: "to throw",
    move: "to move",
    over: "game over",
  };

  const PHASE_WORDS = { unstack: "playing down", restack: "restacking", bear_off: "bearing off" };

  let current = null;   // the latest state drawn
  let editor = null;    // the board editor (editor.js), when the controls are shown

  function render(state) {
    if (!state || (current && typeof state.version === "number" && state.version < current.version)) return;
    current = state;
    renderStatus(state);
    renderBoard(state);
    renderGameOver(state);
    renderMatch(state);
    W.renderClock(state);
    renderStakes(state);
    renderQuestion(state);
    renderRuling(state);
    renderList($("announcements"), [...(state.announcements || [])].sort((a, b) => b.n - a.n), announcementItem);
    renderList($("rulings"), [...(state.rulings || [])].reverse(), (r) => rulingItem(r, state));
    renderDevices(state.devices);
    renderControls(state);
  }

  function counting(state) {
    return (state.board_kind || "") === "tally" || W.isTally(state.board);
  }

  /** A player in words: "Ann (light)", or a counting game's "Cat" (players a list, player an index). */
  function who(state, player) {
    if (Array.isArray(state.players)) return state.players[player] || `player ${player}`;
    return W.playerText(state.players, player);
  }

  /** A part of a line that must not break across two lines ("dice 5-4" wrapped as "dice 5-" / "4"). */
  function kept(text) {
    return W.el("span", { class: "nowrap" }, text);
  }

  /** The parts of a status line, strings or elements, joined by " · ". */
  function setLine(line, parts) {
    line.textContent = "";
    parts.forEach((part, i) => {
      if (i) line.append(" · ");
      line.append(part);
    });
  }

  function renderStatus(state) {
    const players = state.players || {};
    if (counting(state)) {
      $("headline").textContent = `${players.join(", ")} · ${state.preset || ""}`;
      const parts = [];
      if (state.phase === "over") parts.push(`Game over after ${state.turns_played || 0} throws`);
      else {
        if (state.turn_number) parts.push(`Turn ${state.turn_number}`);
        const tally = state.tally || {};
        if (state.board && typeof state.board.turn === "number") {
          parts.push(`${who(state, state.board.turn)} to throw${tally.throws_again ? " again" : ""}`);
        }
      }
      if (state.dice && state.dice.length) parts.push(kept(`last throw ${W.diceText(state.dice)}`));
      setLine($("turn-line"), parts);
      return;
    }
    const light = W.playerText(players, "light");
    const dark = W.playerText(players, "dark");
    $("headline").textContent = state.game_id ? `${light} v ${dark} · ${state.preset || ""}` : "No game in progress";
    const turn = state.board && state.board.turn;
    const parts = [];
    const played = state.turns_played || 0;
    const offeredBy = state.cube && state.cube.offered_by;
    if (state.phase === "over") {
      parts.push(`Game over after ${played} turn${played === 1 ? "" : "s"}`);
    } else {
      if (state.turn_number) parts.push(`Turn ${state.turn_number}`);
      // one die each, entered light's first: say whose die is whose
      if (state.phase === "start") parts.push(`${PHASES.start}: ${light}'s die first, then ${dark}'s`);
      else if (state.phase === "cube" && offeredBy) {
        const taker = offeredBy === "light" ? "dark" : "light";
        parts.push(`${W.playerText(players, offeredBy)} doubles: ${W.playerText(players, taker)} to take or drop`);
      } else if (turn) parts.push(`${W.playerText(players, turn)} ${PHASES[state.phase] || state.phase || ""}`.trim());
    }
    if (state.dice && state.dice.length) parts.push(kept(`dice ${W.diceText(state.dice)}`));
    setLine($("turn-line"), parts);
  }

  function renderBoard(state) {
    const tally = counting(state);
    W.show($("board-panel"), !tally);
    W.show($("tally-panel"), tally);
    if (tally) {
      W.drawTally($("tally"), state.board, state.players, state.game_over);
      return;
    }
    const last = state.last_play;
    const changed = last ? W.changedPlaces(last.before, last.after) : new Set();
    const opponent = last && (last.player === "light" ? "dark" : "light");
    const passed = last && last.passed && last.passed.length ? { dice: last.passed, to: opponent } : null;
    W.drawBoard($("board"), state.board, { dice: state.dice, cube: state.cube, changed, passed });
    let text = "";
    if (last) {
      text = `Last play: turn ${last.turn}, ${W.playerText(state.players, last.player)} ${W.playText(last.play || "")}`;
      if (last.opponent_play) text += `; ${W.playerText(state.players, opponent)} ${last.opponent_play}`;
    }
    $("last-play").textContent = text;
    W.show($("passed-line"), !!passed);
    if (passed) {
      $("passed-line").textContent = `${W.playerText(state.players, last.player)} could not use `
        + `${W.diceText(passed.dice)}: ${W.playerText(state.players, opponent)} used ${passed.dice.length === 1 ? "it" : "them"}`;
    }
    const phases = state.phases;
    W.show($("phases"), !!phases);
    if (phases) {
      $("phases").textContent = ["light", "dark"].map((c) =>
        `${W.playerText(state.players, c)}: ${PHASE_WORDS[phases[c]] || phases[c]}`).join(" · ");
    }
  }

  function renderGameOver(state) {
    const over = state.game_over;
    W.show($("game-over"), !!over);
    if (!over) return;
    if (over.loser !== undefined && over.loser !== null) {
      const stake = over.stake !== undefined && over.stake !== null ? `, stake ${over.stake}` : "";
      $("game-over").textContent = `${who(state, over.loser)} pays for the drinks: ${over.kind || "single"}${stake}`;
      return;
    }
    const stake = over.stake !== undefined && over.stake !== null ? `, stake ${over.stake}` : "";
    $("game-over").textContent = `${W.playerText(state.players, over.winner)} wins: ${over.kind || "single"}${stake}`;
  }

  const STAKE_WORDS = { gammon: "gammon", backgammon: "backgammon", double: "won on a doublet",
    "backgammon-double": "backgammon on a doublet", fill: "filling the home table" };

  const STAGE_WORDS = { crawford: "the Crawford game: no cube", "post-crawford": "post-Crawford" };

  /** "Match to 5, game 3: Ann needs 2, Bob needs 4 · the Crawford game: no cube": the match the game is a game
   * of, in place of the running score; between games, the button that begins the next. */
  function renderMatch(state) {
    const match = state.match;
    W.show($("match-line"), !!match);
    if (match) {
      const stage = match.winner ? "" : STAGE_WORDS[match.stage] || "";
      $("match-line").textContent = `Match to ${match.length}, game ${match.game}: ${match.text.replace(/ \((Crawford game|post-Crawford)\)$/, "")}`
        + (stage ? ` · ${stage}` : "");
    }
    if ($("next-game-line")) {
      W.show($("next-game-line"), !!(match && state.game_over && !match.winner && match.status === "playing"));
      $("next-game").disabled = !W.loggedIn();
    }
  }

  /** "Stake 2 · gammon 4 · backgammon 6 (the cube at 2) · Score: Ann 3, Bob 1 in 4 games": what the game in
   * progress is played for, and what the two have won of each other so far. */
  function renderStakes(state) {
    const terms = state.stakes || [];
    const parts = [];
    if (terms.length && !state.game_over) {
      const words = terms.map((t) => (t.kind === "single" ? `Stake ${t.stake}` : `${STAKE_WORDS[t.kind] || t.kind} ${t.stake}`));
      const cube = state.cube && state.cube.enabled && state.cube.value > 1 ? ` (the cube at ${state.cube.value})` : "";
      parts.push(words.join(" · ") + cube);
    }
    const score = state.score;
    if (score && score.games > 0 && !state.match) {      // in a match, the match's score stands in its place
      const name = (colour) => (state.players && state.players[colour]) || colour;
      parts.push(`Score: ${name("light")} ${score.light}, ${name("dark")} ${score.dark} in ${score.games} game${score.games === 1 ? "" : "s"}`);
    }
    W.show($("stakes-line"), parts.length > 0);
    $("stakes-line").textContent = parts.join(" · ");
  }

  function renderQuestion(state) {
    const q = state.question;
    W.show($("question"), !!q);
    if (!q) return;
    $("question-about").textContent = q.about || "";
    $("question-text").textContent = q.text || "";
    const preview = (board, caption) => {
      W.drawBoard($("question-board"), board);
      $("question-caption").textContent = caption;
    };
    // a question of the turn is about the board the players placed, not a reading
    const readingCaption = q.kind === "turn" ? "The board placed by the players" : "What the camera read";
    const buttons = (q.choices || []).map((choice) => {
      // the turn reader's chance of the play; a chance under half a percent is said so, not "0%"
      const chance = typeof choice.p !== "number" ? ""
        : choice.p < 0.005 ? " (under 1%)" : ` (${Math.round(100 * choice.p)}%)`;
      const button = W.el("button", { type: "button", class: "choice", "data-index": choice.index },
        W.playText(choice.play) + chance);
      button.disabled = !W.loggedIn();
      button.addEventListener("click", async () => {
        const state2 = await W.control("/api/answer", { question: q.id, choice: choice.index });
        if (state2) render(state2);
      });
      const show = () => preview(choice.board, `Choice: ${W.playText(choice.play)}`);
      const back = () => preview(q.reading, readingCaption);
      button.addEventListener("pointerenter", show);
      button.addEventListener("focus", show);
      button.addEventListener("pointerleave", back);
      button.addEventListener("blur", back);
      return button;
    });
    W.fill($("question-choices"), ...buttons);
    preview(q.reading, readingCaption);
  }

  const TALLY_WORDS = { hand_left: "hands a man on", bear_off: "bears off", pool_in: "pool in",
    pool_out: "pool out", throw_again: "throws again", out: "out" };

  /** "Turn 12 · Bob (dark) · 6-3: 20/14 20/17", "Turn 12, attempt 1 · ...: illegal". */
  function rulingText(r, state) {
    const place = W.turnText(r);
    const head = [place ? place[0].toUpperCase() + place.slice(1) : "", who(state, r.player),
      W.diceText(r.dice)].filter(Boolean).join(" · ");
    let what;
    if (counting(state)) {
      const words = (r.events || []).map((e) => TALLY_WORDS[e.type] || e.type);
      return `${head}: ${words.length ? words.join(", ") : "nothing counted"}`;
    }
    if (r.verdict === "illegal") what = "illegal";
    else if (!r.play || r.play === "(no play)") what = "no play possible";
    else what = r.play;
    if (r.opponent_play) what += `; ${r.player === "light" ? "dark" : "light"} ${r.opponent_play}`;
    return `${head}: ${what}`;
  }

  function renderRuling(state) {
    const rulings = state.rulings || [];
    const r = rulings[rulings.length - 1];
    W.show($("ruling"), !!r);
    if (!r) return;
    $("ruling-text").textContent = rulingText(r, state);
    $("ruling-text").className = `verdict verdict-${r.verdict}`;
    $("ruling-reason").textContent = r.reason || "";
    $("ruling-citation").textContent = r.citation ? `Rule: ${r.citation}` : "";
    const link = $("ruling-link");
    W.show(link, !!r.turn);
    if (r.turn) link.setAttribute("href", W.disputeHref(r));
    if (counting(state)) W.show(link, false);   // a throw of the dice alone: nothing to dispute
  }

  function renderList(list, items, make) {
    W.fill(list, ...items.map(make));
  }

  function announcementItem(a) {
    return W.el("li", { class: `announcement kind-${String(a.kind || "info").replace(/[^a-z_-]/gi, "")}` }, a.text || "");
  }

  function rulingItem(r, state) {
    const item = W.el("li", { class: `verdict-${r.verdict}` }, rulingText(r, state));
    if (r.reason) item.append(W.el("span", { class: "reason" }, ` ${r.reason}`));
    if (r.turn && !counting(state)) item.append(" ", W.el("a", { href: W.disputeHref(r) }, "details"));
    return item;
  }

  /** A device's status is a word, shown in the devices line, or {alert: text}: shown where no one misses it
   * (the disk full, someone guessing the PIN). */
  function isAlert(value) {
    return value !== null && typeof value === "object" && typeof value.alert === "string";
  }

  function renderDevices(devices) {
    if (!devices) return;
    const entries = Object.entries(devices).filter(([, value]) => value !== null && value !== undefined);
    const words = entries.filter(([, value]) => !isAlert(value)).map(([name, value]) =>
      `${name}: ${value === true ? "on" : value === false ? "off" : value}`);
    $("devices").textContent = words.join(" · ");
    const alerts = entries.filter(([, value]) => isAlert(value));
    $("alerts").textContent = "";
    for (const [, value] of alerts) $("alerts").append(W.el("p", {}, value.alert));
    W.show($("alerts"), alerts.length > 0);
  }

  function renderControls(state) {
    if (!$("controls")) return;
    const cube = state.cube || {};
    for (const button of document.querySelectorAll("[data-cube]")) button.disabled = !cube.enabled;
    W.show($("cube-buttons"), state.phase !== "start");   // no cube is offered before the first turn
    const undo = $("undo");
    undo.disabled = !state.undo;
    $("undo-what").textContent = state.undo ? `Undo takes back ${state.undo}` : "Nothing to take back";
    W.show($("board-editor"), !counting(state));
    if (editor && !$("board-editor").open && !counting(state)) editor.load(state.board);
  }

  function connect() {
    const source = new EventSource("/api/events");
    source.addEventListener("state", (event) => {
      W.show($("connection"), false);
      render(JSON.parse(event.data));
    });
    source.addEventListener("error", () => {
      W.show($("connection"), true);
      // a refused stream (503: as many pages as allowed follow the game) is not retried by the
      // browser itself: come back later, as Retry-After asks
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 30000);
    });
  }

  // -- controls -----------------------------------------------------------

  /** Dice typed as "6 3", "6,3" or "63": every digit is a die. */
  function parseDice(text) {
    return (text.match(/\d/g) || []).map(Number);
  }

  function wireControls() {
    if (!$("controls")) return;
    const send = async (url, body) => {
      const state = await W.control(url, body);
      if (state) render(state);
      return state;
    };

    $("dice-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      if (await send("/api/dice", { dice: parseDice($("dice-input").value) })) $("dice-input").value = "";
    });
    for (const button of document.querySelectorAll("[data-die]")) {
      button.addEventListener("click", () => { $("dice-input").value += button.dataset.die; });
    }
    $("undo").addEventListener("click", () => {
      const what = current && current.undo ? current.undo : "the last thing done";
      if (window.confirm(`Take back ${what}?`)) send("/api/undo", {});
    });
    for (const button of document.querySelectorAll("[data-cube]")) {
      button.addEventListener("click", () => send("/api/cube", { action: button.dataset.cube }));
    }

    editor = W.boardEditor($("editor-grid"), $("editor-preview"));
    $("board-editor").addEventListener("toggle", () => {
      if ($("board-editor").open && current && !counting(current)) editor.load(current.board);
    });
    $("editor-reset").addEventListener("click", () => current && editor.load(current.board));
    $("editor-submit").addEventListener("click", async () => {
      if (await send("/api/board", { board: editor.read() })) $("board-editor").open = false;
    });

    $("new-game-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const options = {};
      for (const line of $("new-options").value.split("\n")) {
        if (!line.trim()) continue;
        const at = line.indexOf("=");
        if (at < 1) {
          W.say(`Write each option as name=value, not "${line.trim()}"`, "error");
          return;
        }
        options[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      }
      let players = { light: $("new-light").value.trim(), dark: $("new-dark").value.trim() };
      const names = $("new-names").value.split("\n").map((n) => n.trim()).filter(Boolean);
      if (names.length) {                      // a counting game's players, in turn order
        players = names;
        if (!("players" in options)) options.players = String(names.length);
      }
      const length = Number($("new-match").value || 0);
      const inMatch = !!(current && current.match && current.match.status === "playing");
      const what = length > 0 ? `a match to ${length}` : "a new game";
      const ends = inMatch ? "The match in play is abandoned." : "The game in progress ends unfinished.";
      if (!window.confirm(`Start ${what}? ${ends}`)) return;
      const body = { preset: $("new-preset").value, options, players };
      const minutes = Number($("new-clock-min").value || 0);
      const clock = minutes > 0 ? { reserve_s: minutes * 60, delay_s: Number($("new-clock-delay").value || 0),
        mode: $("new-clock-mode").value, on_flag: $("new-clock-flag").value } : null;
      const started = length > 0
        ? await send("/api/match", { ...body, length, crawford: $("new-crawford").checked, clock })
        : await send("/api/game", { ...body, abandon_match: inMatch });
      if (started) $("new-game").open = false;
    });
    if ($("next-game")) $("next-game").addEventListener("click", () => send("/api/match/next", {}));
    if ($("clock-done")) $("clock-done").addEventListener("click", () => send("/api/done", {}));
    if ($("clock-hold")) $("clock-hold").addEventListener("click", () => send("/api/clock", { hold: !(current && current.clock && current.clock.held) }));

    // logging in or out changes which buttons work
    document.addEventListener("willughby:session", () => current && render({ ...current }));
  }

  document.addEventListener("DOMContentLoaded", () => {
    // the state as it stood when the page was served: drawn at once, before the live stream's first event
    const served = $("page-data");
    let first = null;
    try {
      first = served ? JSON.parse(served.textContent) : null;
    } catch (err) {
      first = null;
    }
    wireControls();
    if (first) render(first);
    else W.drawBoard($("board"), null);
    connect();
  });
})();

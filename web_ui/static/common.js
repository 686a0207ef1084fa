/* What every page shares: building elements safely, talking to the API with
 * the CSRF token, the login form, and the message line.
 *
 * Text always goes in as text nodes (never innerHTML): player names and
 * announcements come from users and the board.
 */
(function () {
  "use strict";
  const W = (window.Willughby = window.Willughby || {});

  /** An HTML element: attributes set one by one, children appended as nodes or text. */
  W.el = function (tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === false || value === null || value === undefined) continue;
      node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  };

  /** Empty *node* and put *children* in it. */
  W.fill = function (node, ...children) {
    node.replaceChildren();
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  };

  /** Show or hide *node*. */
  W.show = function (node, visible) {
    node.hidden = !visible;
  };

  /** The JSON a page's server put in <script type="application/json" id="...">. */
  W.pageData = function (id) {
    const block = document.getElementById(id || "page-data");
    return block ? JSON.parse(block.textContent) : null;
  };

  function meta(name) {
    return document.querySelector(`meta[name="${name}"]`);
  }

  W.csrf = function () {
    return meta("csrf-token").getAttribute("content") || "";
  };

  W.loggedIn = function () {
    return W.csrf() !== "";
  };

  function setSession(token, name) {
    meta("csrf-token").setAttribute("content", token || "");
    meta("willughby-user").setAttribute("content", name || "");
    document.body.classList.toggle("logged-in", !!token);
    document.body.classList.toggle("logged-out", !token);
    const who = document.getElementById("user-name");
    if (who) who.textContent = name || "";
    document.dispatchEvent(new CustomEvent("willughby:session", { detail: { loggedIn: !!token } }));
  }

  /** Ask the API; resolves to its JSON, rejects with an Error carrying its sentence. */
  W.api = async function (method, url, body) {
    const options = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (method !== "GET") {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRF-Token"] = W.csrf();
      options.body = JSON.stringify(body || {});
    }
    const response = await fetch(url, options);
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok) {
      const error = new Error((data && data.error) || `the server answered ${response.status}`);
      error.status = response.status;
      throw error;
    }
    return data;
  };

  /** A play as the page writes it: the engine's "(no play)" in words. */
  W.playText = function (play) {
    return !play || play === "(no play)" ? "no play possible" : play;
  };

  /** A ruling's place in the game: "turn 12", or "turn 12, attempt 2" where the turn had illegal attempts. */
  W.turnText = function (r) {
    if (!r || !r.turn) return "";
    return r.attempt > 1 || r.verdict === "illegal" ? `turn ${r.turn}, attempt ${r.attempt || 1}` : `turn ${r.turn}`;
  };

  /** The dispute view's address of a ruling. */
  W.disputeHref = function (r) {
    return `/dispute/${encodeURIComponent(r.turn)}?attempt=${encodeURIComponent(r.attempt || 1)}`;
  };

  let messageTimer = null;
  /** Show a sentence on the message line (kind "error" or "ok"). */
  W.say = function (text, kind) {
    const line = document.getElementById("message");
    if (!line) return;
    line.textContent = text;
    line.className = `message ${kind || "ok"}`;
    line.hidden = false;
    clearTimeout(messageTimer);
    messageTimer = setTimeout(() => { line.hidden = true; }, kind === "error" ? 8000 : 3000);
  };

  /** Hide the message line (an error that a later success has made stale). */
  W.unsay = function () {
    const line = document.getElementById("message");
    if (!line) return;
    clearTimeout(messageTimer);
    line.hidden = true;
  };

  /** Post to a control endpoint; shows its error, resolves to the state or null.
   * A success clears the error an earlier request left on the line. */
  W.control = async function (url, body) {
    try {
      const answer = await W.api("POST", url, body);
      const line = document.getElementById("message");
      if (line && line.classList.contains("error")) W.unsay();
      return answer;
    } catch (error) {
      if (error.status === 403 && /log in/.test(error.message)) setSession("", "");
      W.say(error.message, "error");
      return null;
    }
  };

  function wireLogin() {
    const form = document.getElementById("login-form");
    if (form) {
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const pin = document.getElementById("login-pin");
        const name = document.getElementById("login-name");
        try {
          const answer = await W.api("POST", "/api/login", { pin: pin.value, name: name.value });
          pin.value = "";
          setSession(answer.csrf, answer.name);
          W.say(`Logged in as ${answer.name}`);
        } catch (error) {
          W.say(error.message, "error");
        }
      });
    }
    const logout = document.getElementById("logout");
    if (logout) {
      logout.addEventListener("click", async () => {
        try {
          await W.api("POST", "/api/logout");
        } catch (error) {
          W.say(error.message, "error");
        }
        setSession("", "");
      });
    }
  }

  document.addEventListener("DOMContentLoaded", wireLogin);
})();

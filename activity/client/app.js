// The Tiến lên table inside Discord (issue 43): sign in through the Embedded App SDK, then one WebSocket
// to this bot that carries the public table, your own hand, and your moves.  The server decides
// everything (who you are, which table, what is legal); this page only draws what it is sent and
// sends what you tap.  Every word comes from the server's catalogue (the welcome frame), in your
// Discord language.  Stable hooks for tests and automation: data-card, data-action, data-seat.

const root = document.documentElement;
const $ = (id) => document.getElementById(id);
const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const RECONNECT_MAX_MS = 8000;

const state = {
  strings: {}, me: null, lang: "en", clockOffset: 0, levels: [], level: "normal",
  table: null, hand: null, selected: new Set(), selection: null, replay: null,
  ws: null, token: null, instanceId: null, nextId: 1, retryMs: 500, stopped: false,
};

// ------------------------------------------------------------------ words
function say(key, params = {}) {
  const text = state.strings[key] ?? "";
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

// ------------------------------------------------------------------ signing in
async function signIn() {
  const query = new URLSearchParams(location.search);
  // A test server (and only one) lets a test give the code and instance directly, skipping the SDK's
  // postMessage handshake with a Discord client that is not there; the exchange below is the real one.
  if (root.dataset.testHooks === "1" && query.get("test_code")) {
    state.instanceId = query.get("instance_id");
    state.token = await exchange(query.get("test_code"));
    return;
  }
  const { DiscordSDK } = await import("/client/discord-sdk.js");
  const sdk = new DiscordSDK(root.dataset.clientId);
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: root.dataset.clientId, response_type: "code", state: "", prompt: "none", scope: ["identify"],
  });
  state.token = await exchange(code);
  await sdk.commands.authenticate({ access_token: state.token });
  state.instanceId = sdk.instanceId;
}

async function exchange(code) {
  const answer = await fetch("/api/token", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }),
  });
  const body = await answer.json();
  if (!answer.ok || !body.access_token) throw new Error(body.error || `token ${answer.status}`);
  return body.access_token;
}

// ------------------------------------------------------------------ the socket
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => ws.send(JSON.stringify({ type: "hello", access_token: state.token, instance_id: state.instanceId }));
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    if (state.ws !== ws || state.stopped) return;
    setStatus(say("reconnecting"));
    setTimeout(connect, state.retryMs);  // a restart or a takeover: back by itself, the table as stored
    state.retryMs = Math.min(state.retryMs * 2, RECONNECT_MAX_MS);
  };
}

function send(type, fields = {}) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return null;
  const id = state.nextId++;
  state.ws.send(JSON.stringify({ type, id, ...fields }));
  return id;
}

function receive(frame) {
  switch (frame.type) {
    case "welcome":
      state.strings = frame.strings; state.lang = frame.lang; root.lang = frame.lang; state.levels = frame.levels || [];
      state.me = frame.user; state.clockOffset = frame.now - Date.now() / 1000; state.retryMs = 500;
      break;
    case "table":
      if (frame.phase === "playing" && state.table && state.table.phase !== "playing") state.replay = null;  // a new deal
      state.table = frame;
      break;
    case "replay": {
      const opened = !state.replay;
      state.replay = frame;
      render();
      if (opened) $("replay").scrollIntoView({ block: "nearest" });
      return;
    }
    case "hand":
      if (!frame.hand || !state.hand || frame.hand.game !== state.hand.game || frame.hand.version !== state.hand.version) {
        state.selected = new Set([...state.selected].filter((code) => frame.hand && frame.hand.cards.includes(code)));
        state.selection = null;
        if (state.selected.size) askSelection();
      }
      state.hand = frame.hand;
      break;
    case "selection":
      if (sameCards(frame.cards, [...state.selected])) state.selection = frame;
      break;
    case "ok":
      if (frame.action === "play" || frame.action === "chop") { state.selected.clear(); state.selection = null; }
      break;
    case "error":
      toast(frame.text);
      break;
    case "bye":
      if (["replaced", "auth_failed", "not_in_instance", "bad_instance", "flood"].includes(frame.code)) state.stopped = true;
      if (frame.text) toast(frame.text, 0);
      break;
    default:
      return;
  }
  render();
}

function sameCards(a, b) {
  return a.length === b.length && a.every((code) => b.includes(code));
}

// ------------------------------------------------------------------ drawing
function cardElement(code, extra = "") {
  const suit = code.slice(-1);
  const el = document.createElement("div");
  el.className = `card ${suit === "D" || suit === "H" ? "red" : ""} ${extra}`.trim();
  el.dataset.card = code;
  el.innerHTML = `<span class="rank"></span><span class="suit">${SUITS[suit] || "?"}</span>`;
  el.firstChild.textContent = code.slice(0, -1);
  return el;
}

function button(action, label, style = "", onClick = () => send(action), disabled = false) {
  const el = document.createElement("button");
  el.dataset.action = action;
  el.textContent = label;
  if (style) el.className = style;
  el.disabled = disabled;
  el.addEventListener("click", onClick);
  return el;
}

function mySeat() {
  const table = state.table;
  return table && table.seats ? table.seats.find((seat) => seat.user === state.me) : undefined;
}

function render() {
  const table = state.table;
  $("app").dataset.state = table ? table.phase : "connecting";
  if (!table) { setStatus(say("connecting")); return; }
  $("title").textContent = table.title || "Tiến lên";
  $("bet").textContent = table.bet || "";
  renderSeats(table);
  renderPile(table);
  renderEvents(table);
  renderSummary(table);
  renderReplay();
  renderHand();
  renderControls(table);
  tick();
}

function renderSeats(table) {
  const box = $("seats");
  box.replaceChildren();
  for (const seat of table.seats || []) {
    const el = document.createElement("div");
    el.className = "seat";
    el.dataset.seat = seat.seat;
    el.classList.toggle("turn", !!seat.turn);  // a mark is left out when not set: force a boolean
    el.classList.toggle("me", seat.user === state.me);
    el.classList.toggle("passed", !!seat.passed);
    el.classList.toggle("out", !!seat.out);
    const marks = `${seat.host ? "👑 " : ""}${seat.ai ? "🤖 " : ""}`;
    el.innerHTML = '<span class="count"></span><div class="name"></div><div class="note"></div>';
    el.prepend(avatarElement(seat));
    el.querySelector(".name").textContent = marks + seat.name;
    el.querySelector(".count").textContent = table.phase === "playing" && !seat.out ? `🂠 ${seat.cards}` : "";
    el.querySelector(".note").textContent = seat.status || "";
    box.append(el);
  }
}

// A seat's avatar: the player's Discord picture, through this server (/api/avatar/{id}), over their initials on
// a coloured circle, which is what shows for an AI seat or while (or if) the picture does not load.
const avatars = new Map();  // user id → its <img>, loaded once and moved into each new drawing of the seats

function initials(name) {
  const words = String(name).replace(/[^\p{L}\p{N} ]/gu, "").trim().split(/\s+/).filter(Boolean);
  return words.slice(0, 2).map((word) => [...word][0]).join("").toUpperCase() || "?";
}

function hue(text) {
  let h = 0;
  for (const char of String(text)) h = (h * 31 + char.codePointAt(0)) % 360;
  return h;
}

function avatarElement(seat) {
  const el = document.createElement("span");
  el.className = "avatar";
  el.textContent = initials(seat.name);
  el.style.backgroundColor = `hsl(${hue(seat.user || seat.name)} 45% 38%)`;
  el.setAttribute("aria-hidden", "true");
  if (seat.user) {
    let img = avatars.get(seat.user);
    if (img === undefined) {
      img = new Image(64, 64);
      img.alt = "";
      img.decoding = "async";
      img.addEventListener("error", () => { avatars.set(seat.user, null); img.remove(); });  // initials stay
      img.src = `/api/avatar/${encodeURIComponent(seat.user)}`;
      avatars.set(seat.user, img);
    }
    if (img) el.append(img);
  }
  return el;
}

function renderPile(table) {
  const cards = $("pile-cards");
  const top = table.top;
  const key = top ? top.cards.join(" ") : "";
  if (cards.dataset.shown !== key) {  // redraw (and slide in) only a new play
    const origins = top && cards.dataset.shown !== undefined ? slideOrigins(table, top) : null;
    cards.replaceChildren(...(top ? top.cards.map((code) => cardElement(code)) : []));
    cards.dataset.shown = key;
    if (origins) slideIn(cards, origins);
  }
  $("pile-label").textContent = top ? `${table.top_owner} · ${top.name}` : table.phase === "playing" ? say("on_table") : "";
  $("pile-note").textContent = table.phase === "playing" ? (table.opening || table.lead || "") : "";
}

// A play lands: its cards slide to the pile from where they were, your own hand's cards for your play, the
// player's seat for anyone else's.  One transform transition each (no layout work while it runs), none at
// all when the system asks for reduced motion.
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

function slideOrigins(table, top) {
  if (reducedMotion.matches || table.phase !== "playing") return null;
  const seat = table.top_seat === null || table.top_seat === undefined ? null
    : document.querySelector(`#seats [data-seat="${table.top_seat}"]`);
  return top.cards.map((code) => {
    const held = document.querySelector(`#hand [data-card="${code}"]`);  // still drawn: the hand comes next
    const from = held || seat;
    return from ? { rect: from.getBoundingClientRect(), kind: held ? "hand" : "seat" } : null;
  });
}

function slideIn(box, origins) {
  const cards = [...box.children];
  cards.forEach((el, index) => {
    const origin = origins[index];
    if (!origin) return;
    const end = el.getBoundingClientRect();
    const dx = origin.rect.left + origin.rect.width / 2 - (end.left + end.width / 2);
    const dy = origin.rect.top + origin.rect.height / 2 - (end.top + end.height / 2);
    el.dataset.slide = origin.kind;
    el.style.transition = "none";
    el.style.transform = `translate(${dx}px, ${dy}px) scale(${origin.kind === "hand" ? 1 : 0.5})`;
  });
  void box.offsetWidth;  // the start positions take effect before the transition back to none
  for (const el of cards) {
    el.style.transition = "";
    el.style.transform = "";
  }
}

function renderEvents(table) {
  const box = $("events");
  box.replaceChildren(...(table.events || []).slice().reverse().map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
}

function renderSummary(table) {
  const box = $("summary");
  const summary = table.summary;
  box.hidden = !summary || table.phase === "playing" || !!state.replay;
  if (box.hidden) return;
  box.replaceChildren();
  const line = (text, tag = "div") => {
    const el = document.createElement(tag);
    el.textContent = text;
    box.append(el);
    return el;
  };
  // The channel's summary message, block by block, in its own words (places, frozen, payments, chips, ratings).
  for (const text of summary.headline || []) line(text, "p").className = "headline";
  for (const section of summary.sections || []) {
    line(section.title, "h2");
    for (const text of section.lines) line(text);
  }
  if (summary.hands.length) {
    line(say("last_cards"), "h2");
    for (const [name, codes] of summary.hands) {
      const cards = codes ? codes.split(" ") : [];
      const row = line("", "div");
      row.className = "last";
      const who = document.createElement("span");
      who.textContent = name;
      const list = document.createElement("span");
      list.className = "cards mini";
      list.append(...cards.map((code) => cardElement(code)));
      if (!cards.length) list.textContent = "—";
      row.append(who, list);
    }
  }
}

// ------------------------------------------------------------------ the replay of a finished game
function askReplay(step) {
  const replay = state.replay;
  const game = replay ? replay.game : state.table && state.table.summary && state.table.summary.game;
  if (game) send("replay", { game, step: Math.max(0, step) });
}

function renderReplay() {
  const box = $("replay");
  const replay = state.replay;
  box.hidden = !replay;
  if (!replay) return;
  box.replaceChildren();
  const add = (tag, text, className = "") => {
    const el = document.createElement(tag);
    el.textContent = text;
    if (className) el.className = className;
    box.append(el);
    return el;
  };
  add("h2", replay.title);
  add("div", replay.caption, "step");  // "12/40 · alice: 3♠ 4♠ 5♠"
  for (const line of replay.lines) add("div", line, "line");
  const seats = document.createElement("div");
  seats.className = "rseats";
  replay.seats.forEach((seat, index) => {
    const el = document.createElement("div");
    el.className = `rseat${seat.acting ? " acting" : ""}${seat.turn ? " turn" : ""}`;
    el.dataset.replaySeat = index;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = `${seat.ai ? "🤖 " : ""}${seat.name}${seat.status ? ` · ${seat.status}` : ""}`;
    const cards = document.createElement("div");
    cards.className = "cards mini";
    cards.append(...seat.cards.map((code) => cardElement(code)));
    el.append(name, cards);
    seats.append(el);
  });
  box.append(seats);
  if (replay.top.length) {
    const top = document.createElement("div");
    top.className = "cards rtop";
    top.append(...replay.top.map((code) => cardElement(code)));
    box.append(top);
  }
  for (const block of replay.result) {
    add("h2", block.title);
    for (const line of block.lines) add("div", line);
  }
  const nav = document.createElement("nav");
  nav.className = "rnav";
  const step = (action, label, target, disabled) => {
    const el = button(action, label, "", () => askReplay(target), disabled);
    el.setAttribute("aria-label", say(action.replace("-", "_")));
    el.title = say(action.replace("-", "_"));
    return el;
  };
  const atStart = replay.step <= 0, atEnd = replay.step >= replay.steps;
  nav.append(step("replay-first", "⏮", 0, atStart), step("replay-prev", "◀", replay.step - 1, atStart),
             step("replay-next", "▶", replay.step + 1, atEnd), step("replay-last", "⏭", replay.steps, atEnd),
             step("replay-chop", `💥 ${say("replay_chop")}`, replay.next_chop ?? replay.step, replay.next_chop == null),
             button("replay-close", say("replay_close"), "", () => { state.replay = null; render(); }));
  box.append(nav);
}

function renderHand() {
  const box = $("hand");
  const hand = state.hand;
  box.replaceChildren();
  const selection = $("selection");
  if (!hand) {
    selection.className = "";
    selection.textContent = state.table && state.table.phase === "playing" && !mySeat() ? say("spectator") : "";
    $("quick").replaceChildren();
    return;
  }
  const playable = new Set(hand.playable);
  for (const code of hand.cards) {
    const el = cardElement(code, `${playable.has(code) ? "" : "dim"} ${state.selected.has(code) ? "selected" : ""}`);
    el.setAttribute("role", "button");
    el.tabIndex = 0;
    el.setAttribute("aria-pressed", state.selected.has(code) ? "true" : "false");
    box.append(el);
  }
  if (!state.selected.size) {
    selection.className = "";
    selection.textContent = hand.turn || hand.chop ? say("selection_none") : "";
  } else if (state.selection) {
    selection.className = state.selection.legal ? "legal" : "illegal";
    selection.textContent = state.selection.legal ? say("selection_legal") : state.selection.text;
  }
  const quick = $("quick");
  quick.replaceChildren();
  if (hand.turn || hand.chop) {
    for (const combo of hand.quick) {
      const label = combo.cards.map((code) => code.slice(0, -1) + SUITS[code.slice(-1)]).join(" ");
      const el = button("quick", `${combo.chop ? "💥 " : ""}${label}`, combo.chop ? "chop" : "",
                        () => send("play", { cards: combo.cards }));
      el.title = combo.name;
      el.dataset.cards = combo.cards.join(" ");
      quick.append(el);
    }
  }
}

function toggle(code, ask = true) {
  if (state.selected.has(code)) state.selected.delete(code); else state.selected.add(code);
  state.selection = null;
  if (ask && state.selected.size) askSelection();
  render();
}

// Tap a card, or drag across the hand: every card the pointer passes over toggles once per gesture (mouse,
// pen or touch alike; #hand has touch-action: none, so a drag selects rather than scrolls).  The server is
// asked about the selection once, when the finger lifts, not once per card.
const drag = { pointer: null, seen: new Set() };

function cardAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const card = el && el.closest("#hand [data-card]");
  return card ? card.dataset.card : null;
}

function dragOver(event) {
  const code = cardAt(event.clientX, event.clientY);
  if (!code || drag.seen.has(code)) return;
  drag.seen.add(code);
  toggle(code, false);
}

function dragEnd(event) {
  if (drag.pointer !== event.pointerId) return;
  drag.pointer = null;
  drag.seen.clear();
  if (state.selected.size) askSelection();
  render();
}

function listenToHand() {
  const box = $("hand");
  box.addEventListener("pointerdown", (event) => {
    if (drag.pointer !== null || !state.hand || (event.pointerType === "mouse" && event.button !== 0)) return;
    if (!cardAt(event.clientX, event.clientY)) return;
    event.preventDefault();  // no text selection, no focus jump while dragging
    drag.pointer = event.pointerId;
    box.setPointerCapture(event.pointerId);  // the cards are redrawn as they toggle; the hand is not
    drag.seen.clear();
    dragOver(event);
  });
  box.addEventListener("pointermove", (event) => {
    if (drag.pointer === event.pointerId) dragOver(event);
  });
  for (const kind of ["pointerup", "pointercancel"]) window.addEventListener(kind, dragEnd);
  window.addEventListener("keydown", (event) => {  // the replay steps with the arrow keys
    const replay = state.replay;
    if (!replay || event.target.closest("select")) return;
    if (event.key === "ArrowLeft" && replay.step > 0) askReplay(replay.step - 1);
    if (event.key === "ArrowRight" && replay.step < replay.steps) askReplay(replay.step + 1);
  });
  box.addEventListener("keydown", (event) => {  // a card has the focus: Enter or Space toggles it
    const code = event.target.dataset && event.target.dataset.card;
    if (!code || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    toggle(code);
    const again = box.querySelector(`[data-card="${code}"]`);
    if (again) again.focus();
  });
}

function askSelection() {
  send("select", { cards: [...state.selected] });
}

let levelSelect = null;
function levelChoice() {
  // The AI level the next "Add AI" asks for (the bot's own names for them; normal unless chosen).  One
  // element kept across renders, so a table update does not close it while it is open.
  if (levelSelect) return levelSelect;
  const el = document.createElement("select");
  el.dataset.action = "ailevel";
  el.setAttribute("aria-label", say("ai_level"));
  el.title = say("ai_level");
  for (const [code, name] of state.levels) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.selected = code === state.level;
    el.append(option);
  }
  el.addEventListener("change", () => { state.level = el.value; });
  levelSelect = el;
  return el;
}

function renderControls(table) {
  const box = $("controls");
  const seat = mySeat();
  const isHost = table.host === state.me;
  const items = [];
  if (table.phase === "none" || table.phase === "closed") {
    items.push(button("create", say("create"), "primary"));
  } else if (table.phase === "playing") {
    const hand = state.hand;
    if (hand && (hand.turn || hand.chop)) {
      const legal = state.selection && state.selection.legal;
      const play = () => send(hand.turn ? "play" : "chop", { cards: [...state.selected] });
      items.push(button(hand.turn ? "play" : "chop", say(hand.turn ? "play" : "chop"), hand.turn ? "primary" : "chop",
                        play, !state.selected.size || !legal));
      if (hand.turn) items.push(button("pass", say("pass"), "", () => send("pass"), !hand.can_pass));
      if (state.selected.size) items.push(button("clear", say("clear"), "", () => { state.selected.clear(); render(); }));
    }
    if (seat && hand) items.push(button("leave", say("leave_game"), "danger"));
  } else {
    if (table.phase === "between" && seat) items.push(button("next", say("next"), "primary"));
    if (table.phase === "between" && table.summary && table.summary.game && !state.replay) {
      items.push(button("replay", `🎬 ${say("replay")}`, "", () => askReplay(0)));
    }
    if (!seat) items.push(button("join", say("join"), "primary"));
    if (isHost && table.phase === "lobby") items.push(button("start", say("start"), "primary"));
    if (!table.ranked && (seat || isHost)) {
      items.push(levelChoice());
      items.push(button("addbot", say("addbot"), "", () => send("addbot", { level: state.level })));
      if ((table.seats || []).some((s) => s.ai)) items.push(button("removebot", say("removebot")));
    }
    if (seat) items.push(button("leave", say("leave")));
    if (isHost) items.push(button("end", say("end"), "danger"));
  }
  box.replaceChildren(...items);
}

// ------------------------------------------------------------------ the clock, the status line
function setStatus(text, clock = "") {
  const el = $("status");
  el.textContent = text;
  if (clock) {
    const span = document.createElement("span");
    span.className = "clock";
    span.textContent = clock;
    el.append(span);
  }
}

function tick() {
  const table = state.table;
  if (!table) return;
  if (table.phase !== "playing") {
    const key = { lobby: "lobby", between: "between", closed: "closed", none: "no_table" }[table.phase];
    setStatus(key ? say(key) : "");
    return;
  }
  const seat = (table.seats || [])[table.turn];
  const text = !seat ? "" : seat.user === state.me ? say("your_turn") : say("waiting_for", { name: seat.name });
  let clock = "";
  if (table.deadline) {
    const left = Math.max(0, Math.ceil(table.deadline - (Date.now() / 1000 + state.clockOffset)));
    clock = say("seconds_left", { seconds: left });
  }
  setStatus(text, clock);
}

let toastTimer = null;
function toast(text, ms = 3500) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = !text;
  clearTimeout(toastTimer);
  if (ms) toastTimer = setTimeout(() => { el.hidden = true; }, ms);
}

// ------------------------------------------------------------------ start
listenToHand();
setInterval(tick, 250);
signIn().then(connect).catch((error) => {
  toast(String(error && error.message ? error.message : error), 0);
});

// The sandbox page: draws #lama as one member sees it and sends that member's actions.
// Every text from a message goes into the page through textContent, never as HTML.
"use strict";

const state = {
  me: sessionStorage.getItem("lama-sandbox-me"),
  members: [], names: {}, messages: new Map(), commands: [], language: "auto", texts: {},
  channels: [], channel: null,  // #lama and its threads (a game each); the one shown
  dms: {},  // the bot's direct messages, by member id (shown as DM_VIEW, the member's own)
  drawn: new Map(), generation: 0, stick: true,
  dismissed: new Set(JSON.parse(sessionStorage.getItem("lama-sandbox-dismissed") || "[]")),
};
const $ = (id) => document.getElementById(id);
const DM_VIEW = "dm";  // state.channel while the member's direct messages are shown

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// --- the page's own words (from the bot's catalogs, sent by the sandbox) ---------------------
function t(key, params = {}) {
  const template = state.texts[key] || key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? params[name] : whole));
}

function tNodes(key, nodes) {
  // The template split around its {placeholders}, each replaced by its element.
  const template = state.texts[key] || key;
  return template.split(/(\{\w+\})/).filter(Boolean)
    .map((part) => nodes[part.slice(1, -1)] || document.createTextNode(part));
}

function drawTexts() {
  document.documentElement.lang = state.texts._lang || "en";
  document.documentElement.dir = state.texts._dir || "ltr";
  document.querySelectorAll("[data-t]").forEach((node) => { node.textContent = t(node.dataset.t); });
  document.querySelectorAll("[data-t-placeholder]")
    .forEach((node) => { node.placeholder = t(node.dataset.tPlaceholder); });
  document.querySelectorAll("[data-t-aria]")
    .forEach((node) => { node.setAttribute("aria-label", t(node.dataset.tAria)); });
  const admin = state.members.find((m) => m.admin);
  $("language-hint").replaceChildren(...tNodes("language_hint", {
    command: isolated(el("code", "", "/lama config language")),
    name: isolated(el("b", "", admin ? admin.name : "")),
  }));
}

// --- talking to the sandbox ---------------------------------------------------------------
async function post(path, body) {
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  let data = {};
  try { data = await response.json(); } catch (_) { data = { error: response.statusText }; }
  if (!response.ok || data.error) throw new Error(data.error || response.statusText);
  showError(null);
  return data;
}

function showError(text) {
  const box = $("error");
  box.hidden = !text;
  box.textContent = text || "";
}

function connect() {
  const ws = new WebSocket(`ws://${location.host}/live`);
  $("status").textContent = state.texts.connecting ? t("connecting") : "…";
  ws.onopen = () => { $("status").textContent = ""; };
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    $("status").textContent = t("disconnected");
    setTimeout(connect, 2000);
  };
}

function receive(data) {
  if (data.type === "snapshot") {
    state.messages = new Map(data.messages.map((m) => [m.id, m]));
    $("guild").textContent = data.guild;
    $("channel-name").textContent = data.channel;
    $("topbar-channel").textContent = data.channel;
  } else if (data.type === "message") {
    state.messages.set(data.message.id, data.message);
  }
  if (data.type === "snapshot" || data.type === "meta") {
    receiveChannels(data.channels || []);
    state.members = data.members;
    state.dms = data.dms || {};
    state.names = data.names;
    state.language = data.language;
    state.commands = data.commands;
    state.texts = data.texts;
    state.generation += 1;  // names and words may have changed: draw every message anew
    drawTexts();
    if (!data.members.some((m) => m.id === state.me)) state.me = data.members[0].id;
    drawLanguages();
  }
  draw();
}

// --- drawing --------------------------------------------------------------------------------
function draw() {
  drawMembers();
  drawDmLink();
  const box = $("messages");
  const visible = (state.channel === DM_VIEW ? myDms() : [...state.messages.values()]
    .filter((m) => !m.deleted && (m.to === null || m.to === state.me)
      && (!m.channel || m.channel === state.channel))
    .filter((m) => !state.dismissed.has(m.id)))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const before = new Set([...box.children].map((node) => node.dataset.id));
  // a message unchanged keeps its element: its pictures stay loaded, nothing jumps. (Its
  // drawing is the same for every member, who is read when they click: switching member
  // draws only what is new, not the whole channel again.)
  const nodes = visible.map((m) => {
    const key = state.generation;
    const drawn = state.drawn.get(m.id);
    if (drawn && drawn.msg === m && drawn.key === key) return drawn.node;
    const node = drawMessage(m);
    state.drawn.set(m.id, { msg: m, key, node });
    return node;
  });
  place(box, nodes);
  if (state.channel === DM_VIEW && !nodes.length) box.append(noDms());
  for (const id of state.drawn.keys()) if (!state.messages.has(id)) state.drawn.delete(id);
  // what this member just asked for (a hand, an answer) is shown even when scrolled up
  const mine = visible.some((m) => m.to === state.me && !before.has(m.id));
  if (state.stick || mine) scrollToEnd();
  const me = state.members.find((m) => m.id === state.me);
  const iso = (text) => `\u2068${text}\u2069`;  // FSI…PDI: a name keeps its own direction
  $("slash").placeholder = t("composer", { channel: iso(shownChannelName()),
    name: iso(me ? me.name : "…") });
}

function place(box, nodes) {
  // `box` made to hold exactly `nodes`, in order, touching only what changed: the elements
  // that stay are not taken out and put back, so the browser lays out only what is new (a
  // whole replaceChildren made it lay out the channel again at each message, which grew
  // with the game)
  const keep = new Set(nodes);
  for (const child of [...box.childNodes]) if (!keep.has(child)) child.remove();
  nodes.forEach((node, i) => {
    const at = box.childNodes[i] || null;
    if (at !== node) box.insertBefore(node, at);
  });
}

function scrollToEnd() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
  state.stick = true;
}

function stickToBottom() {
  // a picture loaded and pushed the page: stay at the newest message if we were there
  if (state.stick) scrollToEnd();
}

// --- the channel and its threads: each thread is a channel of its own ---------------------
function receiveChannels(channels) {
  state.channels = channels;
  if (state.channel !== DM_VIEW && !channels.some((c) => c.id === state.channel)) {
    state.channel = channels.length ? channels[0].id : null;
  }
  drawChannels();
}

function shownChannelName() {
  if (state.channel === DM_VIEW) return t("direct_messages");
  const shown = state.channels.find((c) => c.id === state.channel);
  return shown ? shown.name : $("channel-name").textContent;
}

function drawChannels() {
  const main = document.querySelector(".channel-link");
  main.classList.toggle("shown", !state.channels.length || state.channel === state.channels[0].id);
  main.onclick = () => { if (state.channels.length) showChannel(state.channels[0].id); };
  $("threads").replaceChildren(...state.channels.filter((c) => c.thread).map((c) => {
    const item = el("li", "thread-link" + (c.id === state.channel ? " shown" : "")
      + (c.archived ? " archived" : ""), "🧵 " + c.name);
    item.onclick = () => showChannel(c.id);
    return item;
  }));
  $("topbar-channel").textContent = shownChannelName();
}

// --- the member's direct messages (a relaxed game's opt-in DMs), a "channel" of their own ---
function myDms() {
  return state.dms[state.me] || [];
}

function drawDmLink() {
  const link = $("dm-link");
  link.classList.toggle("shown", state.channel === DM_VIEW);
  link.onclick = () => showChannel(DM_VIEW);
  const count = myDms().length;
  $("dm-count").textContent = count ? String(count) : "";
  $("dm-count").hidden = !count;
}

function noDms() {
  // the empty view says how a member gets DMs at all
  return el("p", "no-dms", t("no_dms", { command: "/lama notify" }));
}

// (the slash box sends to the channel shown; from the DMs, to #lama)
function slashChannel() {
  return state.channel === DM_VIEW ? null : state.channel;
}

function showChannel(id) {
  state.channel = id;
  drawChannels();
  draw();
}

function drawMembers() {
  const turn = whoseTurn();
  // at a phone's width the list folds away: who one plays as (and whether it is their turn)
  // stays in the channel's bar
  const me = state.members.find((m) => m.id === state.me);
  const bar = $("topbar-me");
  bar.hidden = !me;
  bar.classList.toggle("turn", Boolean(me) && me.id === turn);
  bar.replaceChildren(...(me ? [el("span", "avatar", me.name.slice(0, 1).toUpperCase()),
    isolated(el("span", "", me.name))] : []));
  if (me && me.id === turn) bar.append(el("span", "badge", t("to_play")));
  $("members").replaceChildren(...state.members.map((m) => {
    const item = el("li");
    const button = item.appendChild(el("button", "member"));
    button.type = "button";
    button.dataset.id = m.id;
    button.dataset.name = m.name;
    button.classList.toggle("current", m.id === state.me);
    button.classList.toggle("turn", m.id === turn);
    button.append(el("span", "avatar", m.name.slice(0, 1).toUpperCase()), el("span", "", m.name));
    const badge = m.id === turn ? t("to_play") : m.admin ? t("admin") : "";
    if (badge) button.append(el("span", "badge", badge));
    button.onclick = () => {
      state.me = m.id;
      sessionStorage.setItem("lama-sandbox-me", m.id);
      showError(null);
      draw();
    };
    return item;
  }));
}

function drawMessage(msg) {
  const box = el("article", "msg");
  box.dataset.id = msg.id;
  box.classList.toggle("bot", msg.bot);
  box.classList.toggle("ephemeral", msg.to !== null);
  if (msg.used) {
    const used = box.appendChild(el("div", "used"));
    // Discord's arrow stays at the left, pointing at the message; the page's own words
    // after it read in the page's direction
    const words = el("span");
    words.dir = state.texts._dir || "ltr";
    words.append(...tNodes("used", { name: isolated(el("b", "", msg.used.user)),
      command: isolated(el("code", "", msg.used.command)) }));
    used.append(el("span", "used-arrow", "↪"), " ", words);
  }
  box.append(el("span", "avatar", msg.author.slice(0, 1).toUpperCase()));
  const head = box.appendChild(el("div", "head"));
  head.append(el("span", "author", msg.author));
  if (msg.bot) head.append(el("span", "tag", t("app")));
  head.append(el("time", "", new Date(msg.time).toLocaleTimeString(pageLocale(),
    { hour: "numeric", minute: "2-digit" })));
  if (msg.edited) head.append(el("span", "edited", t("edited")));
  if (msg.loading) box.append(el("div", "thinking", t("thinking", { name: msg.author })));
  if (msg.content) box.append(markdown("content", msg.content));
  for (const file of msg.attachments) {  // world.py left out those the embeds show
    if (file.image) {
      const img = box.appendChild(el("img", "attachment"));
      img.src = file.url;
      img.alt = file.filename;
      img.addEventListener("load", stickToBottom);
    } else {  // a file: its name in a box, as Discord shows one
      box.append(drawFile({ name: file.filename, file: file.url }));
    }
  }
  msg.embeds.forEach((e) => box.append(drawEmbed(e)));
  if (msg.v2) box.append(drawLayout(msg, msg.layout));
  msg.rows.forEach((row) => box.append(drawRow(msg, row)));
  if (msg.to !== null) box.append(ephemeralNote(msg));
  return box;
}

function ephemeralNote(msg) {
  // Discord's line under an ephemeral: who sees it, and a link that hides it for good
  const note = el("div", "ephemeral-note");
  note.dir = state.texts._dir || "ltr";
  const dismiss = el("button", "dismiss", t("dismiss"));
  dismiss.type = "button";
  dismiss.onclick = () => {
    state.dismissed.add(msg.id);
    sessionStorage.setItem("lama-sandbox-dismissed", JSON.stringify([...state.dismissed]));
    draw();
  };
  note.append(el("span", "only-you", "👁 " + t("only_you")), el("span", "dot", " • "), dismiss);
  return note;
}

function drawEmbed(e) {
  const box = el("div", "embed");
  if (e.color !== null && e.color !== undefined) {
    box.style.borderLeftColor = "#" + Number(e.color).toString(16).padStart(6, "0");
  }
  if (e.author) box.append(directed(el("div", "e-author", e.author)));
  if (e.title) box.append(markdown("e-title", e.title));
  if (e.description) box.append(markdown("e-desc", e.description));
  if (e.fields.length) {
    const fields = box.appendChild(el("div", "fields"));
    for (const f of e.fields) {
      const field = fields.appendChild(el("div", f.inline ? "field inline" : "field"));
      field.append(markdown("f-name", f.name), markdown("f-value", f.value));
    }
  }
  for (const src of [e.thumbnail, e.image].filter(Boolean)) {
    const img = box.appendChild(el("img"));
    img.addEventListener("load", stickToBottom);
    img.src = src;  // only /attachments/<id> of this sandbox (see world.py)
    img.alt = "";
  }
  if (e.footer) box.append(directed(el("div", "e-footer", e.footer)));
  return box;
}

function drawRow(msg, row) {
  const box = el("div", "row");
  for (const item of row) {
    if (item.kind === "button") {
      const button = box.appendChild(el("button", `btn-${item.style}`));
      button.type = "button";
      button.textContent = [item.emoji, item.label, item.link ? "↗" : ""].filter(Boolean)
        .join(" ");
      button.dir = "auto";
      button.dataset.customId = item.custom_id || "";
      button.disabled = item.disabled || !item.custom_id;
      button.onclick = () => act(button, "/api/click", { message: msg.id, custom_id: item.custom_id });
    } else {
      const select = box.appendChild(el("select"));
      select.dataset.customId = item.custom_id;
      select.disabled = item.disabled;
      const placeholder = select.appendChild(el("option", "", item.placeholder || t("choose")));
      placeholder.value = "";
      placeholder.disabled = placeholder.selected = true;
      for (const o of item.options) {
        const option = select.appendChild(el("option", "", o.label));
        option.value = o.value;
        if (o.description) option.title = o.description;
      }
      select.onchange = () => act(select, "/api/select",
        { message: msg.id, custom_id: item.custom_id, value: select.value });
    }
  }
  return box;
}

async function act(control, path, body) {
  control.disabled = true;
  try {
    await post(path, { member: state.me, ...body });
  } catch (err) {
    showError(err.message);
  }
  control.disabled = false;  // (an edited message is drawn anew; this one may be kept)
}

function drawLanguages() {
  const select = $("language");
  const choices = optionDef(["lama", "config", "language"], "language")?.choices || [];
  const wanted = choices.map((c) => c.value + c.name).join() + t("language_auto");
  if (select.dataset.choices !== wanted) {
    select.dataset.choices = wanted;
    select.replaceChildren(...choices.map((c) => {
      // the languages in their own words, as language menus show them; Automatic in ours
      const option = el("option", "", c.value === "auto" ? t("language_auto") : c.name);
      option.value = c.value;
      return option;
    }));
  }
  select.value = state.language;
}

// --- wiring -----------------------------------------------------------------------------------
$("slash").addEventListener("input", () => { active = 0; drawSuggestions(); });
$("slash").addEventListener("keydown", onKey);
$("slash").addEventListener("focus", drawSuggestions);
$("slash-form").addEventListener("submit", (event) => { event.preventDefault(); send(); });
$("add-member").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("new-member");
  try {
    const data = await post("/api/members", { name: input.value });
    input.value = "";
    state.me = data.member.id;
    sessionStorage.setItem("lama-sandbox-me", state.me);
    if (!state.members.some((m) => m.id === state.me)) state.members.push(data.member);
    draw();
  } catch (err) {
    showError(err.message);
  }
});
$("language").addEventListener("change", async () => {
  const select = $("language");
  try {
    await post("/api/language", { language: select.value });
  } catch (err) {
    showError(err.message);
    select.value = state.language;
  }
});
$("messages").addEventListener("scroll", () => {
  const box = $("messages");
  state.stick = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
});
$("side-toggle").addEventListener("click", () => {
  const open = $("side").classList.toggle("open");
  $("side-toggle").setAttribute("aria-expanded", String(open));
});
connect();

// The sandbox page: draws #lama as one member sees it and sends that member's actions.
// Every text from a message goes into the page through textContent, never as HTML.
"use strict";

const state = {
  me: sessionStorage.getItem("lama-sandbox-me"),
  members: [], names: {}, messages: new Map(), commands: [], language: "auto", texts: {},
  channels: [], channel: null,  // #lama and its threads (a game each); the one shown
};
const $ = (id) => document.getElementById(id);

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
    command: el("code", "", "/lama config language"), name: el("b", "", admin ? admin.name : ""),
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
    state.names = data.names;
    state.language = data.language;
    state.commands = data.commands;
    state.texts = data.texts;
    drawTexts();
    if (!data.members.some((m) => m.id === state.me)) state.me = data.members[0].id;
    drawLanguages();
  }
  draw();
}

// --- markdown subset, built from text nodes ------------------------------------------------
const TOKEN = /(\*\*[^*\n]+\*\*|__[^_\n]+__|~~[^~\n]+~~|`[^`\n]+`|\*[^*\s][^*\n]*\*|<@!?\d+>)/;

function inline(parent, text) {
  for (const part of text.split(TOKEN)) {
    if (!part) continue;
    const mention = /^<@!?(\d+)>$/.exec(part);
    if (mention) {
      parent.append(el("span", "mention", "@" + (state.names[mention[1]] || "unknown")));
    } else if (part.length > 4 && part.startsWith("**") && part.endsWith("**")) {
      inline(parent.appendChild(el("strong")), part.slice(2, -2));
    } else if (part.length > 4 && part.startsWith("__") && part.endsWith("__")) {
      inline(parent.appendChild(el("u")), part.slice(2, -2));
    } else if (part.length > 4 && part.startsWith("~~") && part.endsWith("~~")) {
      inline(parent.appendChild(el("s")), part.slice(2, -2));
    } else if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) {
      parent.append(el("code", "", part.slice(1, -1)));
    } else if (part.length > 2 && part.startsWith("*") && part.endsWith("*")) {
      inline(parent.appendChild(el("em")), part.slice(1, -1));
    } else {
      parent.append(document.createTextNode(part));
    }
  }
}

function markdown(cls, text) {
  const box = el("div", cls);
  text.split("\n").forEach((line, i) => {
    if (i > 0) box.append(document.createTextNode("\n"));
    if (line.startsWith("> ")) inline(box.appendChild(el("blockquote")), line.slice(2));
    else if (line.startsWith("-# ")) inline(box.appendChild(el("span", "subtext")), line.slice(3));
    else inline(box, line);
  });
  return box;
}

// --- drawing --------------------------------------------------------------------------------
function draw() {
  drawMembers();
  const box = $("messages");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  const visible = [...state.messages.values()]
    .filter((m) => !m.deleted && (m.to === null || m.to === state.me)
      && (!m.channel || m.channel === state.channel))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  box.replaceChildren(...visible.map(drawMessage));
  if (atBottom) box.scrollTop = box.scrollHeight;
  const me = state.members.find((m) => m.id === state.me);
  $("slash").placeholder = t("composer", { channel: shownChannelName(),
    name: me ? me.name : "…" });
}

// --- the channel and its threads: each thread is a channel of its own ---------------------
function receiveChannels(channels) {
  state.channels = channels;
  if (!channels.some((c) => c.id === state.channel)) state.channel = channels.length
    ? channels[0].id : null;
  drawChannels();
}

function shownChannelName() {
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

function showChannel(id) {
  state.channel = id;
  drawChannels();
  draw();
}

function drawMembers() {
  const turn = whoseTurn();
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

function whoseTurn() {
  const pings = [...state.messages.values()]
    .filter((m) => !m.deleted && m.to === null && m.bot)
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  // the newest public message that mentions someone: a ping once the player has acted is
  // edited to a line without the mention, so look past it to the table, which names the
  // player to act in its content
  for (let i = pings.length - 1; i >= 0; i -= 1) {
    const found = /<@!?(\d+)>/.exec(pings[i].content || "");
    if (found) return found[1];
  }
  return null;
}

function drawMessage(msg) {
  const box = el("article", "msg");
  box.dataset.id = msg.id;
  box.classList.toggle("bot", msg.bot);
  box.classList.toggle("ephemeral", msg.to !== null);
  if (msg.used) {
    const used = box.appendChild(el("div", "used"));
    used.append("↪ ", ...tNodes("used",
      { name: el("b", "", msg.used.user), command: el("code", "", msg.used.command) }));
  }
  box.append(el("span", "avatar", msg.author.slice(0, 1).toUpperCase()));
  const head = box.appendChild(el("div", "head"));
  head.append(el("span", "author", msg.author));
  if (msg.bot) head.append(el("span", "tag", "APP"));
  head.append(el("time", "", new Date(msg.time).toLocaleTimeString()));
  if (msg.edited) head.append(el("span", "edited", t("edited")));
  if (msg.loading) box.append(el("div", "thinking", t("thinking", { name: msg.author })));
  if (msg.content) box.append(markdown("content", msg.content));
  const shown = new Set(msg.embeds.flatMap((e) => [e.image, e.thumbnail]));
  for (const file of msg.attachments.filter((f) => !shown.has(f.url))) {
    if (file.image) {
      const img = box.appendChild(el("img", "attachment"));
      img.src = file.url;
      img.alt = file.filename;
    } else {
      const link = box.appendChild(el("a", "attachment", file.filename));
      link.href = file.url;
    }
  }
  msg.embeds.forEach((e) => box.append(drawEmbed(e)));
  msg.rows.forEach((row) => box.append(drawRow(msg, row)));
  if (msg.to !== null) box.append(el("div", "only-you", "👁 " + t("only_you")));
  return box;
}

function drawEmbed(e) {
  const box = el("div", "embed");
  if (e.color !== null && e.color !== undefined) {
    box.style.borderLeftColor = "#" + Number(e.color).toString(16).padStart(6, "0");
  }
  if (e.author) box.append(el("div", "e-author", e.author));
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
    img.src = src;  // only /attachments/<id> of this sandbox (see world.py)
    img.alt = "";
  }
  if (e.footer) box.append(el("div", "e-footer", e.footer));
  return box;
}

function drawRow(msg, row) {
  const box = el("div", "row");
  for (const item of row) {
    if (item.kind === "button") {
      const button = box.appendChild(el("button", `btn-${item.style}`));
      button.type = "button";
      button.textContent = [item.emoji, item.label].filter(Boolean).join(" ");
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
    control.disabled = false;
  }
}

function drawLanguages() {
  const select = $("language");
  const choices = optionDef(["lama", "config", "language"], "language")?.choices || [];
  const wanted = choices.map((c) => c.value + c.name).join();
  if (select.dataset.choices !== wanted) {
    select.dataset.choices = wanted;
    select.replaceChildren(...choices.map((c) => {
      const option = el("option", "", c.name);
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
connect();

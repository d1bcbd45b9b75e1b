// Components V2, laid out as Discord's client does: a container is a card with its accent
// colour as a bar on the left; texts, sections (a button or thumbnail beside their text),
// galleries, files, separators and action rows stand where they are in the tree.
// world.py sends only what is drawn here; pictures are the sandbox's own files or nothing.
"use strict";

function drawLayout(msg, components) {
  const box = el("div", "v2");
  components.forEach((c) => box.append(drawComponent(msg, c)));
  return box;
}

function drawComponent(msg, c) {
  switch (c.t) {
    case 17: return drawContainer(msg, c);
    case 10: return markdown("v2-text", c.text);
    case 9: return drawSection(msg, c);
    case 11: return drawThumbnail(c);
    case 12: return drawGallery(c);
    case 13: return drawFile(c);
    case 14: return drawSeparator(c);
    case 1: return drawRow(msg, c.items);
    default: return document.createTextNode("");
  }
}

function drawContainer(msg, c) {
  const box = el("div", "v2-container");
  if (c.accent !== null && c.accent !== undefined) {
    box.classList.add("accent");
    box.style.setProperty("--accent", "#" + Number(c.accent).toString(16).padStart(6, "0"));
  }
  if (c.spoiler) spoiler(box).classList.add("spoiler", "v2-spoiler");
  c.children.forEach((child) => box.append(drawComponent(msg, child)));
  return box;
}

function drawSection(msg, c) {
  const box = el("div", "v2-section");
  const texts = box.appendChild(el("div", "v2-section-texts"));
  c.children.forEach((child) => texts.append(drawComponent(msg, child)));
  if (c.accessory) {
    const side = box.appendChild(el("div", "v2-accessory"));
    side.append(drawComponent(msg, c.accessory));
  }
  return box;
}

function picture(item, cls) {
  if (!item.url) {  // not one of the message's files (or not an image): Discord shows nothing
    return el("div", cls + " missing", item.description || item.name || "");
  }
  const img = el("img", cls);
  img.src = item.url;  // only /attachments/<id> of this sandbox (see layout.py)
  img.alt = item.description || "";
  if (item.description) img.title = item.description;
  img.addEventListener("load", stickToBottom);
  if (!item.spoiler) return img;
  const wrap = spoiler(el("div", "spoiler media-spoiler"));
  wrap.append(img);
  return wrap;
}

function drawThumbnail(c) {
  return picture(c, "v2-thumbnail");
}

function drawGallery(c) {
  const box = el("div", "v2-gallery");
  box.dataset.count = String(Math.min(c.items.length, 10));
  c.items.forEach((item) => box.append(picture(item, "v2-media")));
  return box;
}

function drawFile(c) {
  const box = el("div", "v2-file");
  box.append(el("span", "v2-file-icon", "📄"));
  if (c.file) {
    const link = box.appendChild(el("a", "", c.name || "file"));
    link.href = c.file;
    link.download = c.name || "file";
  } else {
    box.append(el("span", "", c.name || "file"));
  }
  return box;
}

function drawSeparator(c) {
  const line = el("div", `v2-separator spacing-${c.spacing}`);
  line.classList.toggle("divider", c.divider);
  return line;
}

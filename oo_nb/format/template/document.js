/* Document page: header from the manifest, data-pid binding, [sN] links, table of contents
   with scroll highlighting, the contract panel on the version badge, stub notice, footer. */
var FRESHNESS_DAYS = { daily: 1, weekly: 7, monthly: 30 };
var CITE = /\[[sS](\d+)\]/g;
var SKIP_TEXT_IN = { A: 1, SCRIPT: 1, STYLE: 1, CODE: 1, PRE: 1, TEXTAREA: 1, H1: 1, H2: 1, H3: 1, H4: 1, H5: 1, H6: 1 };

function obj(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}
function asText(value) {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}
function setText(id, value) {
  var node = d.getElementById(id);
  if (node) node.textContent = value;
}
function cadenceDays(manifest) {
  var days = Number(manifest.update_every_days);
  if (isFinite(days) && days >= 1) return Math.round(days);
  var word = typeof manifest.freshness === "string" ? manifest.freshness.trim().toLowerCase() : "";
  return FRESHNESS_DAYS[word] || 7;
}
function uniqueId(base) {
  var id = base;
  for (var n = 2; d.getElementById(id); n++) id = base + "-" + n;
  return id;
}
function slugOf(text) {
  return String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
}

/* ---- header ---------------------------------------------------------------------------- */
function fillHeader(manifest) {
  if (typeof manifest.title === "string" && manifest.title.trim()) {
    setText("doc-title", manifest.title);
    d.title = manifest.title;
  }
  setText("doc-asof", manifest.as_of ? asText(manifest.as_of) : "\u2014");
  setText("doc-version", manifest.version !== undefined && manifest.version !== null ? asText(manifest.version) : "0");
}

/* ---- "pid:section:hex" comments become data-pid="section:hex" on the next element -- */
function bindPids(article) {
  var walker = d.createTreeWalker(article, NodeFilter.SHOW_COMMENT, null);
  var comments = [];
  while (walker.nextNode()) comments.push(walker.currentNode);
  comments.forEach(function (comment) {
    var m = /^\s*pid:(\S+)\s*$/.exec(comment.nodeValue || "");
    if (!m) return;
    var next = comment.nextSibling;
    while (next && next.nodeType !== 1) next = next.nextSibling;
    if (next && !next.hasAttribute("data-pid")) next.setAttribute("data-pid", m[1]);
  });
}

/* ---- references and [sN] citation links ------------------------------------------------ */
function referenceHeading(article) {
  var h = d.getElementById("references");
  if (h && article.contains(h)) return h;
  var heads = article.querySelectorAll("h2");
  for (var i = 0; i < heads.length; i++) {
    if (heads[i].textContent.trim().toLowerCase() === "references") return heads[i];
  }
  return null;
}
function referenceList(article) {
  var h = referenceHeading(article);
  if (!h) return null;
  for (var n = h.nextElementSibling; n && n.tagName !== "H2"; n = n.nextElementSibling) {
    if (n.tagName === "OL" || n.tagName === "UL") return n;
    var inner = n.querySelector("ol, ul");
    if (inner) return inner;
  }
  return null;
}
/* The browser numbers references by position; a reference that starts with its own "[sN]"
   label is matched by that label instead. */
function indexReferences(list) {
  var items = [], byLabel = {};
  if (!list) return { items: items, byLabel: byLabel };
  list.classList.add("references");
  for (var c = list.firstElementChild; c; c = c.nextElementSibling) if (c.tagName === "LI") items.push(c);
  items.forEach(function (li) {
    var m = /^\s*\[([sS]\d+)\]/.exec(li.textContent);
    if (m) {
      var label = m[1].toLowerCase();
      if (!byLabel[label]) byLabel[label] = li;
      if (!li.id && !d.getElementById(label)) li.id = label;
    }
  });
  items.forEach(function (li, i) {
    if (!li.id) li.id = uniqueId(d.getElementById("s" + (i + 1)) ? "ref-" + (i + 1) : "s" + (i + 1));
  });
  return { items: items, byLabel: byLabel };
}
function citableTextNodes(article, list) {
  var nodes = [];
  var walker = d.createTreeWalker(article, NodeFilter.SHOW_TEXT, null);
  while (walker.nextNode()) {
    var node = walker.currentNode;
    CITE.lastIndex = 0;
    if (!CITE.test(node.nodeValue)) continue;
    var skip = false;
    for (var p = node.parentNode; p && p !== article; p = p.parentNode) {
      if (SKIP_TEXT_IN[p.tagName] || p === list) { skip = true; break; }
    }
    if (!skip) nodes.push(node);
  }
  return nodes;
}
function linkCitations(article) {
  var list = referenceList(article);
  var refs = indexReferences(list);
  if (!refs.items.length) return;
  citableTextNodes(article, list).forEach(function (node) {
    var text = node.nodeValue, frag = d.createDocumentFragment(), last = 0, m;
    CITE.lastIndex = 0;
    while ((m = CITE.exec(text)) !== null) {
      var label = "s" + m[1];
      var li = refs.byLabel[label] || refs.items[Number(m[1]) - 1];
      if (!li) continue;
      if (m.index > last) frag.appendChild(d.createTextNode(text.slice(last, m.index)));
      var a = el("a", "cite", m[0]);
      a.setAttribute("href", "#" + li.id);
      a.setAttribute("data-source", label);
      a.setAttribute("title", li.textContent.replace(/\s+/g, " ").trim().slice(0, 200));
      frag.appendChild(a);
      last = m.index + m[0].length;
    }
    if (last === 0) return;
    if (last < text.length) frag.appendChild(d.createTextNode(text.slice(last)));
    node.parentNode.replaceChild(frag, node);
  });
}

/* ---- table of contents ----------------------------------------------------------------- */
function buildToc(article) {
  var toc = d.getElementById("toc");
  if (!toc) return;
  while (toc.firstChild) toc.removeChild(toc.firstChild);
  var heads = article.querySelectorAll("h2, h3");
  if (!heads.length) {
    toc.hidden = true;
    return;
  }
  toc.hidden = false;
  if (!toc.hasAttribute("aria-label")) toc.setAttribute("aria-label", "Contents");
  toc.appendChild(el("p", "toc-title", "Contents"));
  var entries = [];
  Array.prototype.forEach.call(heads, function (h, i) {
    if (!h.id) h.id = uniqueId(slugOf(h.textContent) || "section-" + (i + 1));
    var a = el("a", h.tagName === "H3" ? "toc-h3" : "toc-h2", h.textContent.replace(/\s+/g, " ").trim());
    a.setAttribute("href", "#" + h.id);
    toc.appendChild(a);
    entries.push({ head: h, link: a });
  });
  var ticking = false;
  function highlight() {
    var current = entries[0];
    var se = d.scrollingElement || d.documentElement;
    var atBottom = se.scrollTop > 0 && se.scrollTop + window.innerHeight >= se.scrollHeight - 2;
    for (var i = 0; i < entries.length; i++) {
      if (entries[i].head.getBoundingClientRect().top <= 96) current = entries[i];
      else break;
    }
    if (atBottom) current = entries[entries.length - 1];
    entries.forEach(function (e) {
      var on = e === current;
      e.link.classList.toggle("active", on);
      if (on) e.link.setAttribute("aria-current", "location");
      else e.link.removeAttribute("aria-current");
    });
    if (current && toc.scrollHeight > toc.clientHeight) {
      var top = current.link.offsetTop - toc.offsetTop;
      if (top < toc.scrollTop || top > toc.scrollTop + toc.clientHeight - 24) toc.scrollTop = Math.max(0, top - 48);
    }
  }
  window.addEventListener("scroll", function () {
    if (ticking) return;
    ticking = true;
    window.requestAnimationFrame(function () { ticking = false; highlight(); });
  }, { passive: true });
  window.addEventListener("hashchange", highlight);
  window.addEventListener("resize", highlight);
  highlight();
}

/* ---- contract panel (built on demand: the contract block comes after this script) ------- */
function addRow(dl, label, value) {
  var text = asText(value);
  if (!text.trim()) return;
  dl.appendChild(el("dt", null, label));
  dl.appendChild(el("dd", null, text));
}
function addTags(dl, label, list) {
  if (!Array.isArray(list) || !list.length) return;
  var dd = el("dd");
  list.forEach(function (item) { dd.appendChild(el("span", "tag", asText(item))); });
  dl.appendChild(el("dt", null, label));
  dl.appendChild(dd);
}
function fillContractPanel(panel, manifest) {
  while (panel.firstChild) panel.removeChild(panel.firstChild);
  var c = readJSON("oo-contract");
  if (!c || typeof c !== "object") {
    panel.appendChild(el("p", "panel-error", "This page holds no readable contract."));
    return;
  }
  var identity = obj(c.identity), research = obj(c.research), policy = obj(research.source_policy);
  var dl = el("dl");
  addRow(dl, "Subject", identity.subject);
  addRow(dl, "Scope", identity.scope);
  addRow(dl, "Audience", identity.audience);
  addRow(dl, "Tone", identity.tone);
  addTags(dl, "Research intents", research.intents);
  addTags(dl, "Required sections", research.required_sections);
  addTags(dl, "Preferred domains", policy.prefer_domains);
  addTags(dl, "Avoided domains", policy.deny_domains);
  var budget = obj(c.budget).max_cost_usd;
  var amount = Number(typeof budget === "string" ? budget.replace(/^\s*\$/, "") : budget);
  if (budget !== undefined && budget !== null && budget !== "" && isFinite(amount)) addRow(dl, "Budget", "$" + amount.toFixed(2) + " per update");
  addRow(dl, "Model", c.model);
  var days = cadenceDays(manifest);
  addRow(dl, "Updates", days === 1 ? "every day" : "every " + days + " days");
  var sentinel = c.sentinel;
  if (sentinel && typeof sentinel === "object" && !Array.isArray(sentinel)) {
    addRow(dl, "Watching for", sentinel.event);
    var status = asText(sentinel.status).replace(/_/g, " ");
    if (sentinel.last_checked) status += " (checked " + asText(sentinel.last_checked) + ")";
    addRow(dl, "Status", status);
    addTags(dl, "Criteria", sentinel.criteria);
    addRow(dl, "Evidence", sentinel.evidence);
  } else {
    addRow(dl, "Sentinel", obj(c.instructions).sentinel);
  }
  panel.appendChild(dl);
}
function setupContractPanel(manifest) {
  var badge = d.querySelector(".version-badge");
  var panel = d.getElementById("contract-panel");
  if (!badge || !panel) return;
  if (badge.tagName !== "BUTTON") {
    badge.setAttribute("role", "button");
    if (!badge.hasAttribute("tabindex")) badge.setAttribute("tabindex", "0");
  }
  badge.setAttribute("aria-controls", "contract-panel");
  badge.setAttribute("aria-expanded", "false");
  if (!badge.hasAttribute("title")) badge.setAttribute("title", "Show what this document is asked to cover");
  function toggle() {
    var open = !panel.classList.contains("open");
    if (open) fillContractPanel(panel, manifest);
    panel.classList.toggle("open", open);
    badge.setAttribute("aria-expanded", open ? "true" : "false");
  }
  badge.addEventListener("click", toggle);
  badge.addEventListener("keydown", function (event) {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      toggle();
    }
  });
}

/* ---- stub notice and footer -------------------------------------------------------------- */
function ensureStub(article) {
  if (article.children.length || article.textContent.trim()) return;
  var box = el("div", "stub-notice");
  box.appendChild(el("p", null, "This document has not been researched yet."));
  box.appendChild(el("p", null, "Its first update fills it in: run it with bash, or use oo update."));
  article.appendChild(box);
}
function fillFooter(manifest) {
  var footer = d.getElementById("run-meta");
  if (!footer || footer.children.length || footer.textContent.trim()) return;
  var days = cadenceDays(manifest);
  var every = days === 1 ? "updated daily" : "updated every " + days + " days";
  var version = Number(manifest.version) || 0;
  footer.textContent = version
    ? "Living document \u00b7 version " + version + " \u00b7 as of " + (asText(manifest.as_of) || "\u2014") + " \u00b7 " + every
    : "Living document \u00b7 not researched yet \u00b7 " + every;
}

function initDocument() {
  var manifest = obj(readJSON("oo-manifest"));
  var header = d.querySelector("header");
  var article = d.getElementById("article");
  safely(function () { fillHeader(manifest); });
  safely(function () { setupTheme(header); });
  if (article) {
    safely(function () { bindPids(article); });
    safely(function () { linkCitations(article); });
    safely(function () { buildToc(article); });
    safely(function () { ensureStub(article); });
  }
  safely(function () { setupContractPanel(manifest); });
  safely(function () { fillFooter(manifest); });
}
initDocument();

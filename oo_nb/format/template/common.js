/* oo_nb page script (shared part). It runs where it stands: window.stop() further down ends
   parsing, so neither DOMContentLoaded nor load ever fire. Everything that comes from the
   document's data is written as text (textContent, createTextNode), never as HTML. */
var d = document;
var root = d.documentElement;
var THEME_KEY = "oo-theme";
var sessionTheme = null; /* used when localStorage refuses to store */

function storedTheme() {
  try {
    var v = window.localStorage.getItem(THEME_KEY);
    return v === "dark" || v === "light" ? v : null;
  } catch (e) {
    return null;
  }
}
function systemTheme() {
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
function chosenTheme() {
  return storedTheme() || sessionTheme;
}
function currentTheme() {
  return chosenTheme() || systemTheme();
}
function applyTheme() {
  var chosen = chosenTheme();
  if (chosen) root.setAttribute("data-theme", chosen);
  else root.removeAttribute("data-theme");
  var now = currentTheme();
  var label = now === "dark" ? "Switch to light theme" : "Switch to dark theme";
  var buttons = d.querySelectorAll("button.theme-toggle");
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].setAttribute("aria-label", label);
    buttons[i].setAttribute("title", label);
    buttons[i].setAttribute("aria-pressed", now === "dark" ? "true" : "false");
  }
}
function toggleTheme() {
  var next = currentTheme() === "dark" ? "light" : "dark";
  sessionTheme = next;
  try {
    window.localStorage.setItem(THEME_KEY, next);
  } catch (e) {
    /* private mode or storage disabled: the choice lasts for this visit */
  }
  applyTheme();
}
function setupTheme(container) {
  var buttons = d.querySelectorAll("button.theme-toggle");
  if (!buttons.length && container) {
    var made = el("button", "theme-toggle");
    made.type = "button";
    container.appendChild(made);
    buttons = [made];
  }
  for (var i = 0; i < buttons.length; i++) buttons[i].addEventListener("click", toggleTheme);
  if (window.matchMedia) {
    var mq = window.matchMedia("(prefers-color-scheme: dark)");
    var onChange = function () { if (!chosenTheme()) applyTheme(); };
    if (mq.addEventListener) mq.addEventListener("change", onChange);
    else if (mq.addListener) mq.addListener(onChange);
  }
  applyTheme();
}
function readJSON(id) {
  var node = d.getElementById(id);
  if (!node) return null;
  try {
    return JSON.parse(node.textContent);
  } catch (e) {
    return null;
  }
}
function el(tag, className, text) {
  var node = d.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
/* One failing feature must not stop the others. */
function safely(step) {
  try {
    step();
  } catch (e) {
    if (window.console) window.console.warn("oo page script:", e);
  }
}

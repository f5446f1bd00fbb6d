/* Library index page: live search over cards and rows, column sorting (text, number, date;
   a cell's data-sort value wins over its text, so sizes sort by bytes), theme toggle. */
function normalise(text) {
  return String(text).toLowerCase().replace(/\s+/g, " ").trim();
}
function setupSearch() {
  var input = d.getElementById("search-input");
  if (!input) return;
  var empty = d.getElementById("no-results");
  function run() {
    var terms = normalise(input.value).split(" ").filter(Boolean);
    var shown = 0;
    var items = d.querySelectorAll("#card-grid a.card, #article tbody tr");
    Array.prototype.forEach.call(items, function (item) {
      var haystack = normalise(item.textContent + " " + (item.getAttribute("data-search") || ""));
      var hit = terms.every(function (t) { return haystack.indexOf(t) !== -1; });
      item.hidden = !hit;
      if (hit && item.tagName === "TR") shown++;
    });
    if (empty) empty.hidden = !(terms.length && shown === 0 && items.length);
  }
  input.addEventListener("input", run);
  input.addEventListener("keyup", function (event) {
    if (event.key === "Escape") { input.value = ""; run(); }
  });
  if (input.value) run();
}
function sortValue(cell, type) {
  var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
  raw = String(raw).trim();
  if (type === "number") {
    var n = parseFloat(raw.replace(/,/g, ""));
    return isFinite(n) ? n : -Infinity;
  }
  if (type === "date") {
    var t = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw.slice(0, 10)) : NaN;
    return isFinite(t) ? t : -Infinity;
  }
  return raw.toLowerCase();
}
function compareValues(a, b) {
  if (typeof a === "string" && typeof b === "string") return a.localeCompare(b, undefined, { numeric: true });
  return a < b ? -1 : a > b ? 1 : 0;
}
function setupSorting() {
  var tables = d.querySelectorAll("#article table");
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.querySelectorAll("th.sortable");
    var body = table.tBodies[0];
    if (!body) return;
    Array.prototype.forEach.call(heads, function (th) {
      var column = th.cellIndex;
      th.setAttribute("tabindex", "0");
      th.setAttribute("aria-sort", "none");
      function sort() {
        var type = th.getAttribute("data-type") || "text";
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        var rows = Array.prototype.slice.call(body.rows);
        var keyed = rows.map(function (row, i) {
          var cell = row.cells[column];
          return { row: row, i: i, v: cell ? sortValue(cell, type) : "" };
        });
        keyed.sort(function (x, y) { return compareValues(x.v, y.v) * dir || x.i - y.i; });
        keyed.forEach(function (k) { body.appendChild(k.row); });
        Array.prototype.forEach.call(heads, function (other) {
          other.setAttribute("aria-sort", "none");
          other.classList.remove("asc", "desc");
        });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        th.classList.add(dir === 1 ? "asc" : "desc");
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
  });
}
safely(function () { setupTheme(d.querySelector("header")); });
safely(setupSearch);
safely(setupSorting);

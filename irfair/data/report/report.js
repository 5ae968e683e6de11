// irfair report: sortable tables (click a header), a text filter over the per-query table and the measure chooser
// of the comparison matrices. No network.
(function () {
  "use strict";
  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var raw = cell.getAttribute("data-value");
    return raw === null ? cell.textContent.trim() : raw;
  }
  function compare(a, b) {
    var x = parseFloat(a), y = parseFloat(b);
    var xNum = a !== "" && !isNaN(x), yNum = b !== "" && !isNaN(y);
    if (xNum && yNum) { return x - y; }
    if (xNum !== yNum) { return xNum ? -1 : 1; }
    return a.localeCompare(b, undefined, { numeric: true });
  }
  function makeSortable(table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headers, function (th, index) {
      th.setAttribute("title", "sort by " + th.textContent.trim());
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var order = compare(cellValue(r1, index), cellValue(r2, index));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }
  function makeFilter(input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var counter = document.getElementById(input.getAttribute("data-counter"));
    if (!table) { return; }
    function apply() {
      var words = input.value.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var text = row.textContent.toLowerCase();
        var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
        row.hidden = !keep;
        if (keep) { shown += 1; }
      });
      if (counter) { counter.textContent = shown + " of " + table.tBodies[0].rows.length + " rows"; }
    }
    input.addEventListener("input", apply);
    apply();
  }
  function makeChooser(select) {
    var panels = document.getElementsByClassName(select.getAttribute("data-panels"));
    function apply() {
      Array.prototype.forEach.call(panels, function (panel) {
        panel.hidden = panel.getAttribute("data-measure") !== select.value;
      });
    }
    select.addEventListener("change", apply);
    apply();
  }
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("select[data-panels]"), makeChooser);
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    Array.prototype.forEach.call(document.querySelectorAll("input[data-table]"), makeFilter);
  });
}());

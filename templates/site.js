// Progressive enhancement only: with JavaScript off every row is shown and the box stays hidden.
(function () {
  "use strict";
  var box = document.getElementById("filter-box");
  var input = document.getElementById("skill-filter");
  var count = document.getElementById("filter-count");
  if (!box || !input) {
    return;
  }
  var grid = document.querySelectorAll("#grid tbody tr[data-skill]");
  var rows = document.querySelectorAll("tr[data-skill]");
  box.hidden = false;
  function apply() {
    var query = input.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (row) {
      var hit = query === "" || row.getAttribute("data-skill").toLowerCase().indexOf(query) !== -1;
      row.hidden = !hit;
    });
    grid.forEach(function (row) {
      if (!row.hidden) {
        shown += 1;
      }
    });
    count.textContent = query === "" ? "" : shown + " of " + grid.length + " skills";
  }
  input.addEventListener("input", apply);
  apply();
})();
// The grids' cells carry only their status (glyph and colour, readable without JavaScript);
// each cell's link to its run and its hover text (skill, date, status, diff label, root cause)
// come from one data block instead of 12,000 repeated attributes.
(function () {
  "use strict";
  var block = document.getElementById("grid-data");
  if (!block) {
    return;
  }
  var data = JSON.parse(block.getAttribute("data-grid"));
  Object.keys(data.tables).forEach(function (id) {
    var table = data.tables[id];
    document.querySelectorAll("#" + id + " tbody tr[data-skill]").forEach(function (tr) {
      var skill = tr.getAttribute("data-skill");
      var row = table[skill];
      if (!row) {
        return;
      }
      var causes = {};
      (row[1] || []).forEach(function (pair) {
        causes[pair[0]] = data.strings[pair[1]];
      });
      var cells = tr.querySelectorAll("a.cell");
      for (var i = 0; i < cells.length && i < data.runs.length; i += 1) {
        var cell = cells[i];
        var run = data.runs[i];
        var css = cell.className.replace(/^.*\bs-/, "");
        var label = data.labels[css];
        var title = skill + " \u2014 " + run[0] + ": ";
        if (label === undefined) {
          title += "not evaluated in this run";
        } else {
          title += label;
          if (row[0][i] >= 0) {
            title += "\ndiff: " + data.strings[row[0][i]];
          }
          if (causes[i] !== undefined) {
            title += "\nroot cause: " + causes[i];
          }
        }
        cell.setAttribute("href", run[1]);
        cell.setAttribute("title", title);
        cell.setAttribute("aria-label", title);
      }
    });
  });
})();

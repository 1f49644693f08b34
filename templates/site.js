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

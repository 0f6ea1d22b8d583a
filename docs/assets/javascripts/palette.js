/*
 * The colour-scheme toggle in the header (overrides/partials/palette.html).
 *
 * Each radio input of the form holds one scheme; the label shown is the one that
 * switches to the next scheme. Choosing a scheme sets Material's data-md-color-*
 * attributes on <body> and stores the choice under Material's own key, so Material's
 * restore script (partials/javascripts/palette.html) and the partial's own script apply
 * it on every later page before the first paint.
 * window.coursePalette, which applies a scheme, is defined inline in the partial: it
 * also runs before the first paint. Nothing here runs at page load except binding the
 * events: no style is read then.
 */
(function () {
  "use strict";

  function choose(form, index) {
    // Material's stylesheet turns transitions off while this attribute is set, so the
    // whole page changes colour at once.
    document.body.setAttribute("data-md-color-switching", "");
    var palette = window.coursePalette(form, index);
    __md_set("__palette", palette);
    setTimeout(function () {
      document.body.removeAttribute("data-md-color-switching");
    });
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    var form = input.closest && input.closest("form[data-course-palette]");
    if (form) choose(form, Array.prototype.indexOf.call(form.querySelectorAll("input"), input));
  });

  // Enter or Space on the focused toggle moves on to the next scheme. The focused
  // control is the radio input of the scheme on show, already checked: the browser's own
  // Space would do nothing, and its Enter submits nothing.
  document.addEventListener("keydown", function (event) {
    var form = event.target.closest && event.target.closest("form[data-course-palette]");
    if (!form || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    var inputs = form.querySelectorAll("input");
    var next = inputs[(Array.prototype.indexOf.call(inputs, event.target) + 1) % inputs.length];
    next.click();
    next.focus();
  });
})();

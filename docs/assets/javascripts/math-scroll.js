/*
 * A display equation wider than the text column scrolls in its own box
 * (docs/assets/stylesheets/course.css, .math-display). A box that scrolls must be
 * reachable from the keyboard, so, as Material does for its code blocks, it gets
 * tabindex="0" while (and only while) it is wider than its box: equations that fit
 * add no stop to the tab order.
 */
(function () {
  "use strict";

  function update(box) {
    if (box.scrollWidth > box.clientWidth) {
      box.setAttribute("tabindex", "0");
    } else {
      box.removeAttribute("tabindex");
    }
  }

  function setUp() {
    var boxes = document.querySelectorAll(".md-typeset .math-display");
    if (!boxes.length) {
      return;
    }
    var observer = new ResizeObserver(function (entries) {
      entries.forEach(function (entry) {
        update(entry.target);
      });
    });
    boxes.forEach(function (box) {
      update(box);
      observer.observe(box);
    });
  }

  if (typeof window.document$ !== "undefined") {
    window.document$.subscribe(setUp);
  } else {
    document.addEventListener("DOMContentLoaded", setUp);
  }
})();

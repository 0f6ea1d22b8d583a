/*
 * Interview pages: a visible "Copy link" button on the question (H1) and on each
 * section heading, so a single question or section can be shared.
 *
 * The H1 button copies the page's address; a section's button copies the address
 * with the heading's id (ids are set explicitly in the Markdown, so they never change).
 * A status message, announced by screen readers, says what was copied.
 * Material's document$ runs this once per page shown (and again per page should
 * Material's instant navigation, off in mkdocs.yml, ever swap pages without a reload).
 */
(function () {
  "use strict";

  var STATUS_MS = 4000;

  function isInterviewPage() {
    return /\/interview\//.test(window.location.pathname);
  }

  function pageAddress() {
    return window.location.href.split("#")[0];
  }

  // The Clipboard API needs a secure context (https or localhost); fall back to the
  // older copy command elsewhere (e.g. a page opened from disk).
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var copied = false;
      try {
        copied = document.execCommand("copy");
      } catch (error) {
        copied = false;
      }
      area.remove();
      if (copied) {
        resolve();
      } else {
        reject(new Error("copy command refused"));
      }
    });
  }

  function headingText(heading) {
    var clone = heading.cloneNode(true);
    clone.querySelectorAll(".headerlink, .copy-link").forEach(function (node) {
      node.remove();
    });
    return clone.textContent.trim();
  }

  function addButton(heading, status) {
    var isQuestion = heading.tagName === "H1";
    var name = headingText(heading);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-link";
    button.textContent = "Copy link";
    button.setAttribute(
      "aria-label",
      isQuestion ? "Copy link to this question" : "Copy link to the section " + name
    );
    button.addEventListener("click", function () {
      var address = isQuestion ? pageAddress() : pageAddress() + "#" + heading.id;
      copyText(address).then(
        function () {
          button.textContent = "Copied";
          button.classList.add("copy-link--done");
          status.textContent = "Link copied: " + address;
        },
        function () {
          status.textContent = "Could not copy. The link is: " + address;
        }
      );
      window.clearTimeout(button._reset);
      button._reset = window.setTimeout(function () {
        button.textContent = "Copy link";
        button.classList.remove("copy-link--done");
        status.textContent = "";
      }, STATUS_MS);
    });
    heading.appendChild(button);
  }

  function setUp() {
    var article = document.querySelector("article.md-content__inner");
    if (!article || !isInterviewPage() || article.querySelector(".copy-link")) {
      return;
    }
    var status = document.createElement("p");
    status.className = "copy-link__status";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    article.appendChild(status);
    article.querySelectorAll("h1, h2[id]").forEach(function (heading) {
      addButton(heading, status);
    });
  }

  if (typeof window.document$ !== "undefined") {
    window.document$.subscribe(setUp);
  } else {
    document.addEventListener("DOMContentLoaded", setUp);
  }
})();

"""Markup the app builds itself, drawn by a small component instead of `st.html`, where a redraw is timed.

Why: `st.html` sanitises its markup with DOMPurify and React re-creates it on every rerun. For the
Compare matrix (25 rows of chips) that cost about a third of the 0.3 s budget of a filter change
(one-off A/B in Chromium: a one-line app re-rendering the 500-report matrix after a multiselect
pick took 0.26-0.28 s with it in `st.html`, 0.17-0.20 s with this component; medians of 3, two
rounds). This component swaps the markup in only when it changed.

It is still defence in depth, not trust: the markup is parsed into an inert `<template>` (no script
runs, nothing loads), and before it is shown every element outside a short allowlist is dropped,
every attribute outside an allowlist removed, and a link kept only when it is relative or http(s).
The builders escape every value from a report or YAML file anyway (`html.escape`), as for `st.html`.
"""

from __future__ import annotations

import hashlib
import json

import streamlit as st

#: Tags and attributes the builders use (tables, chips, links, tooltips); everything else is dropped.
TAGS = ("a", "b", "br", "div", "i", "em", "p", "small", "span", "strong", "table", "caption", "thead", "tbody",
        "tr", "th", "td", "colgroup", "col")  # fmt: skip
ATTRS = ("class", "href", "target", "title", "colspan", "rowspan", "data-table", "data-chart")

_JS = """
const TAGS = new Set(%(tags)s);
const ATTRS = new Set(%(attrs)s);
function clean(root) {
  for (const el of [...root.querySelectorAll('*')]) {
    if (!TAGS.has(el.localName)) { el.remove(); continue; }
    for (const a of [...el.attributes]) {
      // read as a browser reads a URL (control characters dropped): "java\\tscript:" is javascript:
      const v = a.value.replace(/[\\u0000-\\u0020]/g, '').toLowerCase();
      if (!ATTRS.has(a.name) || (a.name === 'href' && /^[a-z][a-z0-9+.-]*:/.test(v) && !/^https?:/.test(v))) {
        el.removeAttribute(a.name);
      }
    }
    if (el.localName === 'a' && el.getAttribute('target') !== '_self') el.setAttribute('rel', 'noopener noreferrer');
  }
  return root;
}
export default function (component) {
  const { data, parentElement } = component;
  let box = parentElement.querySelector(':scope > div.frl-markup');
  if (!box) { box = document.createElement('div'); box.className = 'frl-markup'; parentElement.appendChild(box); }
  const html = (data && typeof data.html === 'string') ? data.html : '';
  if (box.__frl === html) return;
  const t = document.createElement('template');
  t.innerHTML = html;
  box.replaceChildren(clean(t.content));
  box.__frl = html;
}
"""


def _js() -> str:
    return _JS % {"tags": json.dumps(list(TAGS)), "attrs": json.dumps(list(ATTRS))}


@st.cache_resource(show_spinner=False)
def _component(css: str):  # type: ignore[no-untyped-def]
    """One registered component per style sheet (the page's CSS lives with it, outside the markup)."""
    name = "frl_markup_" + hashlib.sha1(css.encode()).hexdigest()[:12]
    return st.components.v2.component(name, js=_js(), css=css or None, isolate_styles=False)


def block(markup: str, css: str, key: str) -> None:
    """Draw `markup` (built by this app, values escaped) styled by `css` (a bare style sheet)."""
    _component(css)(data={"html": markup}, key=key)

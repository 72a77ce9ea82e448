"""Whether the browser drew every Chinese character of a page with a real glyph."""

from __future__ import annotations

# Every distinct CJK character of the page (or the characters of arguments[0]) drawn in the
# font of the page's main text on a canvas; a character is missing when it draws nothing or
# draws what an unassigned code point draws (the "tofu" box). Returns the missing characters.
MISSING_GLYPHS = """
const cjk = /[\\u3000-\\u303f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uff00-\\uffef]/;
const chars = arguments[0] === null
  ? Array.from(new Set(Array.from(document.body.innerText))).filter((c) => cjk.test(c))
  : Array.from(arguments[0]);
const canvas = document.createElement("canvas");
canvas.width = canvas.height = 40;
const context = canvas.getContext("2d", {willReadFrequently: true});
const main = document.querySelector("main") || document.body;
context.font = `32px ${getComputedStyle(main).fontFamily}`;
const draw = (c) => {
  context.clearRect(0, 0, 40, 40);
  context.fillText(c, 2, 32);
  return context.getImageData(0, 0, 40, 40).data.filter((v, i) => i % 4 === 3);
};
const tofu = draw("\\u0378").join();
return chars.filter((c) => {
  const alpha = draw(c);
  return alpha.every((v) => v === 0) || alpha.join() === tofu;
});
"""

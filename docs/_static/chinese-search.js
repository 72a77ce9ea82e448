// Chinese search on the Chinese site. Sphinx indexes Chinese text as the words jieba cuts it
// into, but splits a query only at spaces and punctuation, so a query typed as one run of
// Chinese characters ("双缓冲区") would be looked up whole and find nothing. Here each run of
// Chinese characters is cut into the longest words the index knows (forward maximum
// matching); a single character the index does not know (a particle) is dropped. Sphinx's
// searchtools.js uses this splitQuery instead of its own because it is defined first.
var splitQuery = (query) => {
  const index = typeof Search !== "undefined" && Search._index ? Search._index : {};
  const known = (word) => word in (index.terms || {}) || word in (index.titleterms || {});
  const words = [];
  for (const token of query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)) {
    for (const run of token.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu) || []) {
      if (!/\p{Script=Han}/u.test(run)) {
        words.push(run);
        continue;
      }
      const chars = Array.from(run);
      for (let start = 0; start < chars.length; ) {
        let end = Math.min(chars.length, start + 8);
        while (end > start + 1 && !known(chars.slice(start, end).join(""))) end -= 1;
        const word = chars.slice(start, end).join("");
        if (end > start + 1 || known(word)) words.push(word);
        start = end;
      }
    }
  }
  return words;
};

/** The generated parts of a hand-written page: each stands between an opening and a closing marker comment. */

/** The page's text with the part between `markers` replaced by `text`. */
export function withGenerated(page: string, [open, close]: readonly [string, string], text: string): string {
  const i = page.indexOf(open);
  const j = page.indexOf(close);
  if (i < 0 || j < i) throw new Error(`the page lacks the markers ${open} … ${close}`);
  return `${page.slice(0, i + open.length)}\n${text}\n${page.slice(j)}`;
}

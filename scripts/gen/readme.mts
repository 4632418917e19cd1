/** The README's generated parts: each stands between an opening and a closing marker comment. */

/** README text with the part between `markers` replaced by `text`. */
export function withGenerated(readme: string, [open, close]: readonly [string, string], text: string): string {
  const i = readme.indexOf(open);
  const j = readme.indexOf(close);
  if (i < 0 || j < i) throw new Error(`README.md lacks the markers ${open} … ${close}`);
  return `${readme.slice(0, i + open.length)}\n${text}\n${readme.slice(j)}`;
}

/**
 * The one edit the drill scripts (new-kind.mts, new-setting.mts) make: a hand-written file changed
 * at an anchor it must hold once, failing loudly when the file has changed shape.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** An `edit(file, anchor, to)` for files of `repo`: replaces `anchor`'s first match by what `to` makes of it. */
export function editor(repo: string, script: string) {
  return (file: string, anchor: RegExp, to: (found: string) => string): void => {
    const at = path.join(repo, file);
    const text = fs.readFileSync(at, "utf8");
    const m = text.match(anchor);
    if (!m || m.index === undefined) throw new Error(`${file}: ${anchor} not found; has the file changed shape? Update ${script} with it.`);
    fs.writeFileSync(at, text.slice(0, m.index) + to(m[0]) + text.slice(m.index + m[0].length));
  };
}

/**
 * Matches a method and path against route templates: the most literal segments win. One router
 * serves the API and the control routes; each set is registered under its own prefix.
 */
import { HttpError } from "./http";

interface CompiledRoute<R> {
  route: R;
  segments: string[];
  literals: number;
}

export class Router<R extends { method: string; template: string }> {
  private readonly compiled: CompiledRoute<R>[] = [];

  /** Registers routes whose templates are relative to `prefix` (e.g. `/api/v2`). */
  add(prefix: string, routes: readonly R[]): this {
    for (const route of routes) {
      const segments = (prefix + route.template).split("/").slice(1);
      this.compiled.push({ route, segments, literals: segments.filter((s) => !s.startsWith("{")).length });
    }
    return this;
  }

  /** The best route for the method and path, the allowed methods (405), or null (404). */
  match(method: string, path: string): { route: R; params: Record<string, string> } | { allowed: string[] } | null {
    const parts = path.split("/").slice(1);
    let best: { c: CompiledRoute<R>; params: Record<string, string> } | null = null;
    const allowed = new Set<string>();
    for (const c of this.compiled) {
      if (c.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = c.segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith("{")) {
          if (part === "") ok = false;
          else {
            try {
              params[seg.slice(1, -1)] = decodeURIComponent(part);
            } catch {
              throw new HttpError(400, `path: segment "${part}" is not valid percent-encoding`);
            }
          }
        } else if (seg !== part) ok = false;
      }
      if (!ok) continue;
      allowed.add(c.route.method);
      if (c.route.method === method && (best === null || c.literals > best.c.literals)) best = { c, params };
    }
    if (best !== null) return { route: best.c.route, params: best.params };
    if (allowed.size > 0) return { allowed: [...allowed].sort() };
    return null;
  }
}

/** Matches a method and path against route templates: the most literal segments win. */
import { HttpError, type ApiRoute } from "./http";

interface CompiledRoute {
  route: ApiRoute;
  segments: string[];
  literals: number;
}

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: ApiRoute[]) {
    this.compiled = routes.map((route) => {
      const segments = route.template.split("/").slice(1);
      return { route, segments, literals: segments.filter((s) => !s.startsWith("{")).length };
    });
  }

  /** The best route for the method and path, the allowed methods (405), or null (404). */
  match(method: string, path: string): { route: ApiRoute; params: Record<string, string> } | { allowed: string[] } | null {
    const parts = path.split("/").slice(1);
    let best: { c: CompiledRoute; params: Record<string, string> } | null = null;
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

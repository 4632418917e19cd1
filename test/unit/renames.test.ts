/**
 * What the engine's side of a rename and of a parent relies on, in process (everyday.test.ts shows
 * it through the engine): the plugin serves a URN whose type is qualified by its parents; one
 * declaration per object is keyed by URN; a delete leaves Neon alone when another resource of the
 * deployment declares or took its object, and not when the resource itself is replaced.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { Provider } from "../../src/plugin/server";
import { redirectDomainKind } from "../../src/kinds/redirectDomain";
import { guardedCalls } from "../../src/provider/runtime";
import { useLog } from "../../src/provider/log";
import { fakeContext } from "./fake-context";
import { inRef } from "./refs";

const fromPulumi = createRequire(require.resolve("@pulumi/pulumi"));
const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");
const provproto = fromPulumi("./proto/provider_pb");

const P = "p-renames";
const B = "br-main-p-renames";
const ORIGIN = "https://app.example.com";
const IDENTITY = { authProviderProjectId: "ap-1", createdAt: "2026-11-01T10:00:00Z" };

/** Every call the handlers make on the client, by name; each answers `{}`. */
function recordingClient(calls: string[]): Record<string, unknown> {
  const node = (at: string): unknown =>
    new Proxy(async () => {
      calls.push(at);
      return {};
    }, { get: (_, name) => (name === "then" ? undefined : node(`${at}.${String(name)}`)) });
  return node("client") as Record<string, unknown>;
}

async function pluginCheck(provider: Provider, urn: string): Promise<string[]> {
  const req = new provproto.CheckRequest();
  req.setUrn(urn);
  req.setOlds(new structproto.Struct());
  req.setNews(structproto.Struct.fromJavaScript({ integration: { projectId: P, branchId: B, authProvider: "better_auth", ...IDENTITY }, domain: ORIGIN }));
  const resp: any = await new Promise((resolve, reject) => provider.service().check({ request: req }, (err: unknown, value?: unknown) => (err ? reject(err) : resolve(value))));
  return resp.getFailuresList().map((f: any) => f.getReason());
}

describe("parents and renames", () => {
  it("the plugin reads a parented URN's own type, and names both URNs of one origin declared in two components", async () => {
    const provider = new Provider(fakeContext(recordingClient([])));
    const box = `urn:pulumi:s::p::acme:index:Box$neon-auth:index:RedirectDomain::app`;
    const other = `urn:pulumi:s::p::acme:index:Other$neon-auth:index:RedirectDomain::app`;
    expect(await pluginCheck(provider, box)).toEqual([]);
    expect(await pluginCheck(provider, box)).toEqual([]);
    expect(await pluginCheck(provider, other)).toEqual([
      `RedirectDomain ${box} and RedirectDomain ${other} declare one origin (domain): both would manage one object at Neon, and removing either would delete it under the other. Declare it once.`,
    ]);
  });

  it("a delete whose object another resource declares leaves Neon alone and says so; a replaced one's delete goes through", async () => {
    const calls: string[] = [];
    const lines: string[] = [];
    useLog({ info: (line) => lines.push(line), warn: (line) => lines.push(line) });
    const ctx = fakeContext(recordingClient(calls));
    const domains = guardedCalls(redirectDomainKind, ctx);
    const id = `${P}/${B}/${ORIGIN}`;
    const props = { projectId: P, branchId: B, authProvider: "better_auth", domain: ORIGIN, integration: IDENTITY };
    // Nothing declared yet (a destroy): the delete is sent.
    await domains.delete(id, props);
    expect(calls.length).toBeGreaterThan(0);
    calls.length = 0;

    // The new name declares the origin (its check), the old one leaves the program.
    const checked = await domains.check({}, inRef({ projectId: P, branchId: B, integration: IDENTITY, domain: ORIGIN }));
    expect(checked.failures).toBeUndefined();
    await domains.delete(id, props);
    expect(calls).toEqual([]);
    expect(lines).toEqual([
      `neon-auth: RedirectDomain ${ORIGIN} is not deleted at Neon: another resource of this deployment declares or took this object and now manages it, so only this resource leaves the stack. A rename without \`aliases\` runs this way; README, "Renaming resources".`,
    ]);

    // The resource itself replaced (its diff says so): the delete is sent.
    const d = await domains.diff(id, props, { ...props, domain: "https://web.example.com" });
    expect(d.replaces).toEqual(["domain"]);
    await domains.delete(id, props);
    expect(calls.length).toBeGreaterThan(0);
  });
});

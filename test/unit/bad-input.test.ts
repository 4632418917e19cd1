/**
 * Every bad input of test/bad-inputs.ts through the check each face runs, in process: the
 * dynamic provider's (`handler(kind).check`, on the props the class registers, as the engine hands
 * them on) and the plugin's `Check` RPC (on the request the engine sends it). Each case must be
 * refused naming the field and the rule, without a value that must not be shown, and without a
 * call to the client. How such a failure reaches the user through the engine is sampled in
 * test/e2e/bad-input.test.ts.
 */
import { createRequire } from "node:module";
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { forgetSecrets } from "../../src/client/redact";
import { packageSchema, tokenOf } from "../../src/plugin/schema";
import { Provider } from "../../src/plugin/server";
import * as classes from "../../src/resources";
import { DECLARATIONS } from "../../src/kinds";
import type { Kind, Props } from "../../src/provider/kit";
import { handler } from "../../src/resources/runtime";
import { argsOf, CASES, FUNCTION_CASES, GROUPS, MISSING, NEVER_SHOWN, type Group } from "../bad-inputs";
import { fakeContext } from "./fake-context";

// The messages and the server the plugin uses: @pulumi/pulumi's own instances (src/plugin/server.ts).
const fromPulumi = createRequire(require.resolve("@pulumi/pulumi"));
const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");
const provproto = fromPulumi("./proto/provider_pb");

const SIG = pulumi.runtime.specialSigKey;
const SECRET = pulumi.runtime.specialSecretSig;

interface Failure {
  property: string;
  reason: string;
}

/** Every call a check makes on the client: a check must send nothing. */
const clientCalls: string[] = [];
const ctx = fakeContext(
  new Proxy(
    {},
    {
      get: (_, name) => () => {
        clientCalls.push(String(name));
        return Promise.reject(new Error(`check called the client's ${String(name)}`));
      },
    },
  ),
);

/** Props as the engine hands them to the dynamic-provider host, which answers `acceptSecrets: false`: each secret as its plain value. */
function revealed(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if ((v as Props)[SIG] === SECRET) return revealed((v as Props).value);
  if (Array.isArray(v)) return v.map(revealed);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revealed(x)]));
}

/** The inputs each resource the program registers hands the mocked engine, by arrival. */
let registered: (inputs: Props) => void = () => {
  throw new Error("a resource registered while no group was being made");
};

/**
 * The classes' face: the group's class made as test/e2e/programs/many-resources makes it, so that
 * its secrets, `__provider` and a child's place are what the class registers; then the check the
 * dynamic-provider host calls with them.
 */
async function classesCheck(g: Group): Promise<Failure[]> {
  const inputs = new Promise<Props>((resolve) => (registered = resolve));
  const Class = classes[g.kind as keyof typeof classes] as unknown as new (name: string, args: unknown) => pulumi.CustomResource;
  new Class("case-0", argsOf(g));
  const news = revealed(await inputs) as Props;
  // A first preview: no old inputs.
  return (await handler(g.kind as Kind, ctx).check({}, news)).failures ?? [];
}

const schema = packageSchema();

/**
 * The group's args (a child's place in its `integration`, as on the classes), each input the
 * schema marks secret marked so, as an SDK made from the schema sends them to a plugin that
 * accepts secrets.
 */
function pluginNews(g: Group): Props {
  const d = DECLARATIONS[g.kind as Kind];
  const inputs = argsOf(g);
  const spec = schema.resources[tokenOf(d.kind)]!.inputProperties;
  return Object.fromEntries(
    Object.entries(inputs)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, spec[k]?.secret ? { [SIG]: SECRET, value: v } : v]),
  );
}

/** The plugin's face: its `Check` RPC on a request as it arrives over gRPC, in a provider of its own (a preview starts one plugin). */
async function pluginCheck(g: Group): Promise<Failure[]> {
  const req = new provproto.CheckRequest();
  req.setUrn(`urn:pulumi:bad::many-resources::${tokenOf(g.kind as Kind)}::case-0`);
  req.setOlds(new structproto.Struct());
  req.setNews(structproto.Struct.fromJavaScript(pluginNews(g)));
  const request = provproto.CheckRequest.deserializeBinary(req.serializeBinary());
  const resp: any = await new Promise((resolve, reject) =>
    new Provider(ctx).service().check({ request }, (err: unknown, value?: unknown) => (err ? reject(err) : resolve(value))),
  );
  return resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() }));
}

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        registered(a.inputs);
        return { id: undefined, state: {} };
      },
      call: (a) => a.inputs,
    },
    "many-resources",
    "bad",
    true,
  );
});

it(`tries at least 100 bad inputs across every kind (${CASES.length} in ${GROUPS.length} resources)`, () => {
  expect(CASES.length).toBeGreaterThanOrEqual(100);
  expect(new Set(CASES.map((c) => c.kind))).toEqual(
    new Set(["AuthIntegration", "AuthSdkKeys", "AuthOwnershipTransfer", "AuthUser", "OAuthProvider", "RedirectDomain", "EmailServer", "NeonAuth", "DataApi", "OAuthClient", "ProjectJwks"]),
  );
});

const shown = (v: unknown) => JSON.stringify(v === MISSING ? "(missing)" : v)?.slice(0, 60);
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe.each([
  ["the classes", classesCheck],
  ["the plugin", pluginCheck],
] as const)("bad input through the check of %s", (_face, check) => {
  const failures = new Map<number, Failure[]>();

  beforeAll(async () => {
    clientCalls.length = 0;
    for (const [gi, g] of GROUPS.entries()) {
      // Each preview has a provider process of its own: no secret of another group is known to it.
      forgetSecrets();
      failures.set(gi, await check(g));
    }
    forgetSecrets();
  });

  it.each(CASES.map((c) => [c.kind, c.field, shown(c.value), c] as const))("%s %s %s is refused, naming the field and the rule", (kind, field, _shown, c) => {
    // A child's place is named inside its `integration` on both faces.
    expect(failures.get(c.gi)!.map((f) => f.reason)).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${escaped(`${kind} ${field} ${c.rule}`)}`))]));
  });

  it("lists a child's inputs as the plugin's schema has them when an input is unknown", () => {
    const lists = [...failures.values()].flat().flatMap((f) => {
      const m = /^(\w+) .* known inputs: (.*)$/.exec(f.reason);
      return m && DECLARATIONS[m[1] as Kind].parent !== undefined ? [[m[1]!, m[2]!] as const] : [];
    });
    expect(lists.length).toBeGreaterThan(0);
    const schema = packageSchema().resources;
    expect(lists.map(([kind, list]) => [kind, list.split(", ")])).toEqual(lists.map(([kind]) => [kind, Object.keys(schema[tokenOf(kind as Kind)]!.inputProperties)]));
  });

  it("refuses only the fields of the cases", () => {
    for (const [gi, g] of GROUPS.entries()) {
      const fields = new Set(CASES.filter((c) => c.gi === gi).map((c) => c.field));
      expect(new Set(failures.get(gi)!.map((f) => f.reason.split(" ")[1])), `${g.kind} #${gi}`).toEqual(fields);
    }
  });

  it("names the field in the reason only: given a property, the engine would print its value beside it", () => {
    expect([...failures.values()].flat().filter((f) => f.property !== "")).toEqual([]);
  });

  it("never shows a secret or a raw value in any message", () => {
    const all = [...failures.values()].flat().map((f) => f.reason).join("\n");
    expect(NEVER_SHOWN.filter((s) => all.includes(s))).toEqual([]);
  });

  it("calls nothing on the client", () => {
    expect(clientCalls).toEqual([]);
  });
});

/** A function through the plugin's `Invoke`, as the engine sends it: its failures' reasons. */
async function pluginInvoke(fn: string, args: Props): Promise<string[]> {
  const req = new provproto.InvokeRequest();
  req.setTok(`neon-auth:index:${fn}`);
  req.setArgs(structproto.Struct.fromJavaScript(args));
  const request = provproto.InvokeRequest.deserializeBinary(req.serializeBinary());
  const resp: any = await new Promise((resolve, reject) =>
    new Provider(ctx).service().invoke({ request }, (err: unknown, value?: unknown) => (err ? reject(err) : resolve(value))),
  );
  return resp.getFailuresList().map((f: any) => f.getReason());
}

/** A function of the TypeScript face (no key is configured here: a failure about the arguments shows they were checked first). */
async function classesInvoke(fn: string, args: Props): Promise<string[]> {
  const call = (classes as unknown as Record<string, (a: Props) => Promise<unknown>>)[fn]!;
  return call(args).then(
    () => [],
    (e: Error) => e.message.split("\n"),
  );
}

describe.each([
  ["the classes", classesInvoke],
  ["the plugin", pluginInvoke],
] as const)("bad arguments of a function through %s", (_face, invoke) => {
  it.each(FUNCTION_CASES.map((c) => [c.fn, c.field, c] as const))("%s %s is refused, naming the argument, before any request", async (fn, field, c) => {
    clientCalls.length = 0;
    expect(await invoke(fn, c.args)).toEqual([expect.stringMatching(new RegExp(`^${escaped(`${fn} ${field} ${c.rule}`)}`))]);
    expect(clientCalls).toEqual([]);
  });
});

/**
 * The `neon-auth` provider plugin: Pulumi's provider protocol over gRPC, serving every kind with
 * the handlers the dynamic resources use (provider/runtime.ts), for programs in any language.
 *
 * Its own server on `@grpc/grpc-js` and the stubs `@pulumi/pulumi/proto` ships, not the Node SDK's
 * `provider.main` (3.259), which drops `Configure`'s request (no key reaches a handler), sends no
 * `detailedDiff` and fails on an import's `Read` (DEVELOPMENT.md, "A provider plugin from the
 * declarations"). grpc-js and google-protobuf are taken from `@pulumi/pulumi`'s own dependencies,
 * so that the messages and the server are the instances the stubs were made with.
 */
import { keptAtPreview, secondDeclaration, SECRET_INPUTS, type Kind, type KindDeclaration, type Props } from "../provider/kit";
import { contextOf, type Context } from "../provider/context";
import { resolveSettings } from "../provider/settings";
import { guardedCalls, type Provided } from "../provider/runtime";
import { useLog } from "../provider/log";
import { tieToEngine } from "../provider/engine";
import { NotOwnedError } from "../provider/converge";
import { importableId } from "../provider/declaration";
import { redactText } from "../client";
import { VERSION } from "../client/options";
import { containsUnknown, sameValue, UNKNOWN, type FieldsDiff } from "../provider/diff";
import { plain } from "./props";
import { PACKAGE, packageSchema } from "./schema";
import { DECLARATIONS } from "../kinds";
import { FUNCTIONS, functionFailures } from "../kinds/functions";
import { emptyproto, engineproto, enginerpc, grpc, initFailed, jsOf, kindsOfDiff, pluginStructOf, plugproto, provproto, provrpc, RpcStatus, runtimeOf, structOf } from "./protocol";
import { placeholdersRecorded, placeholdersTaken, refusePlaceholders } from "../provider/placeholders";
import { placed } from "../provider/place";

type Callback = (err: unknown, value?: unknown) => void;
type Call = { request: any };

/**
 * The declaration of the kind of a type token `neon-auth:index:<Kind>`, or of a URN's. A URN's type
 * is qualified by its parents' (`my:x:Component$neon-auth:index:<Kind>`): the resource's own is the
 * last `$`-segment.
 */
function declarationOf(urnOrType: string): KindDeclaration {
  const type = (urnOrType.includes("::") ? urnOrType.split("::")[2]! : urnOrType).split("$").pop()!;
  const d = DECLARATIONS[type.split(":")[2] as Kind];
  if (!type.startsWith(`${PACKAGE}:index:`) || d === undefined) throw new Error(`${PACKAGE} has no resource type ${type}`);
  return d;
}

/** The stack-configuration reader the settings expect, over `Configure`'s arguments. */
function configFrom(args: Props): (name: string) => string | undefined {
  const values = plain(args);
  return (name) => {
    if (!name.startsWith(`${PACKAGE}:`)) return undefined;
    const v = values[name.slice(PACKAGE.length + 1)];
    return v === undefined || v === null ? undefined : String(v);
  };
}


/**
 * @internal
 * The plugin's RPCs. A context given here stands in for the one `Configure` builds from the stack
 * configuration, so that a test can run the RPCs in process over a faked client.
 */
export class Provider {
  #ctx: Context | Error;

  constructor(ctx?: Context) {
    this.#ctx = ctx ?? new Error("the neon-auth provider was not configured");
  }

  /**
   * The resource that manages each object, by kind and canonical key. One provider process serves
   * every resource of a deployment, so it sees every Check: a second resource naming an object
   * another one names fails at preview, as the classes fail in the program (resources/registration.ts `declareOnce`).
   */
  #owners = new Map<string, string>();

  /** The failure of a resource that names an object another resource of this deployment names; undefined when it is the first. */
  #secondOwner(d: KindDeclaration, urn: string, inputs: Props): string | undefined {
    const key = d.object === undefined || containsUnknown(inputs) ? undefined : d.object.key(placed(inputs));
    if (key === undefined) return undefined;
    return secondDeclaration(this.#owners, d.kind, d.object!, key, urn);
  }

  #on(d: KindDeclaration): Provided {
    if (this.#ctx instanceof Error) throw this.#ctx;
    return guardedCalls(d, this.#ctx);
  }

  /** Runs an RPC: its errors reach the engine with every secret this process has seen scrubbed. */
  #rpc(fn: (req: any) => Promise<unknown>) {
    return (call: Call, callback: Callback) => {
      fn(call.request).then(
        (value) => callback(null, value),
        (e: unknown) =>
          callback(e instanceof RpcStatus ? e.status : { code: grpc.status.UNKNOWN, details: redactText(e instanceof Error ? e.message : String(e)) }),
      );
    };
  }

  // A new key or URL changes where requests go, never the objects: an update of the provider
  // (so that the engine configures it with the new settings), never a replacement.
  async #diffConfig(req: any): Promise<unknown> {
    const olds = plain(jsOf(req.getOlds()));
    const news = plain(jsOf(req.getNews()));
    const changed = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => k !== SECRET_INPUTS && !sameValue(olds[k], news[k]));
    const resp = new provproto.DiffResponse();
    resp.setChanges(changed.length > 0 ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE);
    resp.setDiffsList(changed);
    return resp;
  }

  async #configure(req: any): Promise<unknown> {
    try {
      this.#ctx = contextOf(resolveSettings(configFrom(jsOf(req.getArgs())), process.env));
    } catch (e) {
      // Reported by every call, so preview names it for each resource (as the dynamic resources do).
      this.#ctx = e as Error;
    }
    const resp = new provproto.ConfigureResponse();
    resp.setAcceptsecrets(true);
    resp.setSupportspreview(true);
    resp.setAcceptresources(false);
    return resp;
  }

  async #check(req: any): Promise<unknown> {
    const d = declarationOf(req.getUrn());
    const r = await this.#on(d).check(runtimeOf(req.getOlds()), runtimeOf(req.getNews()));
    const resp = new provproto.CheckResponse();
    if (r.inputs) resp.setInputs(pluginStructOf(d, r.inputs));
    const twice = r.failures === undefined && r.inputs ? this.#secondOwner(d, req.getUrn(), r.inputs) : undefined;
    const failures = twice === undefined ? (r.failures ?? []) : [{ property: "", reason: twice }];
    resp.setFailuresList(
      failures.map((f) => {
        const failure = new provproto.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        return failure;
      }),
    );
    return resp;
  }

  async #diff(req: any): Promise<unknown> {
    const d = declarationOf(req.getUrn());
    const news = runtimeOf(req.getNews());
    // An imported secret: compared with what the program last gave, once it gave one.
    const olds = placeholdersTaken(runtimeOf(req.getOlds()), news, runtimeOf(req.getOldInputs())) as Props;
    const r: FieldsDiff = await this.#on(d).diff(req.getId(), olds, news);
    const resp = new provproto.DiffResponse();
    resp.setChanges(r.changes === true ? provproto.DiffResponse.DiffChanges.DIFF_SOME : r.changes === false ? provproto.DiffResponse.DiffChanges.DIFF_NONE : provproto.DiffResponse.DiffChanges.DIFF_UNKNOWN);
    resp.setReplacesList(r.replaces ?? []);
    resp.setDeletebeforereplace(r.deleteBeforeReplace === true);
    const detail = Object.entries(r.detailedDiff ?? {});
    const map = resp.getDetaileddiffMap();
    for (const [path, change] of detail) {
      const pd = new provproto.PropertyDiff();
      pd.setKind(kindsOfDiff[change]);
      pd.setInputdiff(true);
      map.set(path, pd);
    }
    resp.setDiffsList([...new Set(detail.map(([p]) => p.split(".")[0]!))]);
    resp.setHasdetaileddiff(r.changes !== undefined);
    return resp;
  }

  async #create(req: any): Promise<unknown> {
    const d = declarationOf(req.getUrn());
    const inputs = runtimeOf(req.getProperties());
    const resp = new provproto.CreateResponse();
    if (req.getPreview()) {
      resp.setProperties(pluginStructOf(d, placed(inputs)));
      return resp;
    }
    refusePlaceholders(d.kind, inputs);
    const r = await this.#on(d)
      .create(inputs)
      .catch(async (e: unknown) => Promise.reject(initFailed(await this.#importStep(e, d, req.getUrn(), inputs), d)));
    resp.setId(r.id);
    resp.setProperties(pluginStructOf(d, r.outs ?? {}));
    return resp;
  }

  /**
   * An object that exists and is not this stack's may be one a run of this stack made and never
   * recorded: the plugin killed during the create leaves the engine no pending operation, so the
   * recovery from pending creates finds nothing. The error names the exact import that takes it in.
   */
  async #importStep(e: unknown, d: KindDeclaration, urn: string, inputs: Props): Promise<unknown> {
    if (!(e instanceof NotOwnedError) || this.#ctx instanceof Error) return e;
    const id = await importableId(d, this.#ctx, inputs).catch(() => undefined);
    if (id === undefined) return e;
    const [, , type, name] = urn.split("::");
    // A resource with a parent (`<parent type>$<type>`) is imported under it; the URN does not name the parent.
    const parent = type!.includes("$") ? " (with `--parent <name>=<URN>` of its parent, from `pulumi stack --show-urns`)" : "";
    e.message += ` If a run of this stack that was killed made it, take it in as it is: \`pulumi import ${type!.split("$").pop()} ${name} '${id}' --generate-code=false --yes\`${parent}, then \`pulumi up\`.`;
    return e;
  }

  async #read(req: any): Promise<unknown> {
    const d = declarationOf(req.getUrn());
    const r = await this.#on(d).read(req.getId(), runtimeOf(req.getProperties()));
    const resp = new provproto.ReadResponse();
    // An empty id says the object is gone.
    if (r.props === undefined) return resp;
    resp.setId(r.id ?? req.getId());
    resp.setProperties(pluginStructOf(d, r.props));
    // An imported secret's place in the inputs changes only when the program gives it: the
    // diff compares with that while the outputs hold the placeholder (placeholders.ts).
    const recorded = runtimeOf(req.getInputs());
    if (r.inputs) resp.setInputs(pluginStructOf(d, placeholdersRecorded(r.inputs, recorded) as Props));
    return resp;
  }

  async #update(req: any): Promise<unknown> {
    const d = declarationOf(req.getUrn());
    const olds = runtimeOf(req.getOlds());
    const news = runtimeOf(req.getNews());
    const resp = new provproto.UpdateResponse();
    if (req.getPreview()) {
      const kept = Object.fromEntries(keptAtPreview(d).filter((k) => olds[k] !== undefined).map((k) => [k, olds[k]]));
      const computed = Object.fromEntries(Object.keys(d.outputs ?? {}).filter((k) => !(k in kept) && !(k in d.inputs)).map((k) => [k, UNKNOWN]));
      resp.setProperties(pluginStructOf(d, { ...news, ...computed, ...kept }));
      return resp;
    }
    refusePlaceholders(d.kind, news);
    const r = await this.#on(d).update(req.getId(), olds, news).catch((e: unknown) => Promise.reject(initFailed(e, d)));
    resp.setProperties(pluginStructOf(d, r.outs ?? {}));
    return resp;
  }

  async #delete(req: any): Promise<unknown> {
    const d = declarationOf(req.getUrn());
    await this.#on(d).delete(req.getId(), runtimeOf(req.getProperties()));
    return new emptyproto.Empty();
  }

  /**
   * A function (kinds/functions.ts): bad arguments are failures naming the argument, before any
   * request; then its reads, on the context `Configure` built (the stack's key and URL).
   */
  async #invoke(req: any): Promise<unknown> {
    const tok: string = req.getTok();
    const fn = tok.startsWith(`${PACKAGE}:index:`) ? FUNCTIONS[tok.slice(PACKAGE.length + 7)] : undefined;
    if (fn === undefined) throw new Error(`${PACKAGE} has no function ${tok}`);
    const { [SECRET_INPUTS]: _, ...args } = plain(jsOf(req.getArgs()));
    const resp = new provproto.InvokeResponse();
    const failures = functionFailures(fn, args);
    if (failures.length > 0) {
      resp.setFailuresList(
        failures.map((reason) => {
          const failure = new provproto.CheckFailure();
          failure.setReason(reason);
          return failure;
        }),
      );
      return resp;
    }
    if (this.#ctx instanceof Error) throw this.#ctx;
    resp.setReturn(structOf(await fn.read(fn.args.parse(args), this.#ctx)));
    return resp;
  }

  service() {
    return {
      getPluginInfo: this.#rpc(async () => {
        const info = new plugproto.PluginInfo();
        info.setVersion(VERSION);
        return info;
      }),
      getSchema: this.#rpc(async () => {
        const resp = new provproto.GetSchemaResponse();
        resp.setSchema(JSON.stringify(packageSchema()));
        return resp;
      }),
      checkConfig: this.#rpc(async (req) => {
        const resp = new provproto.CheckResponse();
        resp.setInputs(req.getNews());
        return resp;
      }),
      diffConfig: this.#rpc((req) => this.#diffConfig(req)),
      configure: this.#rpc((req) => this.#configure(req)),
      check: this.#rpc((req) => this.#check(req)),
      diff: this.#rpc((req) => this.#diff(req)),
      create: this.#rpc((req) => this.#create(req)),
      read: this.#rpc((req) => this.#read(req)),
      update: this.#rpc((req) => this.#update(req)),
      delete: this.#rpc((req) => this.#delete(req)),
      cancel: this.#rpc(async () => new emptyproto.Empty()),
      invoke: this.#rpc((req) => this.#invoke(req)),
    };
  }
}

/** Serves the plugin on a loopback port and prints it, as the engine expects of a plugin's first line. */
export async function serve(): Promise<void> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(provrpc.ResourceProviderService, new Provider().service());
  const port: number = await new Promise((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) => (err ? reject(err) : resolve(p))),
  );
  process.stdout.write(`${port}\n`);
  logToEngine(process.argv[2]);
  tieToEngine("pulumi-resource-neon-auth");
}

/**
 * The plugin's log for the provider room's notices (provider/log.ts: waits, deletes left alone,
 * the users_sync read-back warning) is the engine's, as the dynamic resources' is: the Node SDK's
 * `pulumi.log` has no engine to talk to in a plugin and falls back to stderr, which the engine
 * shows of a resource plugin only at debug level (sdk/go/common/resource/plugin/plugin.go, 3.259),
 * so a line would be lost. The engine gives its address as the plugin's first argument.
 */
function logToEngine(address: string | undefined): void {
  if (address === undefined || address === "") return;
  const engine = new enginerpc.EngineClient(address, grpc.credentials.createInsecure());
  const send = (severity: number) => (line: string) => {
    const req = new engineproto.LogRequest();
    req.setSeverity(severity);
    req.setMessage(line);
    // A line that cannot be delivered is not the request's failure.
    engine.log(req, () => undefined);
  };
  useLog({ info: send(engineproto.LogSeverity.INFO), warn: send(engineproto.LogSeverity.WARNING) });
}

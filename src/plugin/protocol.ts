/**
 * The provider protocol's messages as the plugin builds them: grpc-js and the protobuf stubs from
 * @pulumi/pulumi's own dependencies (the instances its stubs were made with; scripts/release.mts
 * bundles them from there), Structs of props, diff kinds, and the init-failed answer.
 */
import { createRequire } from "node:module";
import { redactText } from "../client";
import { isHalfMade, type KindDeclaration, type Props } from "../provider/kit";
import { marked, plain } from "./props";

const fromPulumi = createRequire(require.resolve("@pulumi/pulumi"));
export const grpc = fromPulumi("@grpc/grpc-js");
const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");
export const emptyproto = fromPulumi("google-protobuf/google/protobuf/empty_pb");
export const provproto = fromPulumi("./proto/provider_pb");
export const provrpc = fromPulumi("./proto/provider_grpc_pb");
export const plugproto = fromPulumi("./proto/plugin_pb");
const statusproto = fromPulumi("./proto/status_pb");
const anyproto = fromPulumi("google-protobuf/google/protobuf/any_pb");
export const engineproto = fromPulumi("./proto/engine_pb");
export const enginerpc = fromPulumi("./proto/engine_grpc_pb");

/** A Struct of props; a key without a value (an output not known yet, at any depth) is left out, as protobuf has no undefined. */
export const structOf = (props: Props) => structproto.Struct.fromJavaScript(defined(props));
function defined(v: any): any {
  if (Array.isArray(v)) return v.map(defined);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, defined(x)]));
}
export const jsOf = (s: any): Props => (s ? s.toJavaScript() : {});

/** A request's Struct as a kind's runtime props: secrets unwrapped (and named). */
export const runtimeOf = (s: any): Props => plain(jsOf(s));

/** A kind's props as the Struct the engine records: secrets marked. */
export const pluginStructOf = (d: KindDeclaration, props: Props) => structOf(marked(d, props));

/** Pulumi's kind of each property change. */
export const kindsOfDiff: Record<string, number> = {
  add: provproto.PropertyDiff.Kind.ADD,
  addReplace: provproto.PropertyDiff.Kind.ADD_REPLACE,
  delete: provproto.PropertyDiff.Kind.DELETE,
  deleteReplace: provproto.PropertyDiff.Kind.DELETE_REPLACE,
  update: provproto.PropertyDiff.Kind.UPDATE,
  updateReplace: provproto.PropertyDiff.Kind.UPDATE_REPLACE,
};

/** An answer the engine takes as it is: a gRPC status with its details (a half-made object's). */
export class RpcStatus {
  constructor(readonly status: { code: number; details: string; metadata: unknown }) {}
}

/**
 * A create or update that failed after the object came to exist (kit.ts `halfMade`), answered as
 * native providers do: Pulumi's init-failed detail with the id and properties, so that the engine
 * records the object instead of losing it.
 */
export function initFailed(e: unknown, d: KindDeclaration): unknown {
  if (!isHalfMade(e)) return e;
  const message = redactText(e.message);
  const detail = new provproto.ErrorResourceInitFailed();
  detail.setId(e.id);
  detail.setProperties(pluginStructOf(d, e.properties));
  detail.setReasonsList(e.reasons.map((r) => redactText(r)));
  const any = new anyproto.Any();
  any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusproto.Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return new RpcStatus({ code: grpc.status.UNKNOWN, details: message, metadata });
}
